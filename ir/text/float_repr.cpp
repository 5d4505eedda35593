#include "ir/text/float_repr.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace tirc {

namespace {

// The fewest significant digits that read back as v, as a digit string without
// a decimal point ("15" for 1.5) and the decimal exponent of its first digit.
void shortest_digits(double v, std::string& digits, int& exponent) {
  char buf[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*e", precision - 1, v);
    if (std::strtod(buf, nullptr) == v || precision == 17) break;
  }
  // buf is "d.ddde[+-]XX" (v is non-negative here).
  std::string text(buf);
  size_t e = text.find('e');
  digits.clear();
  for (size_t i = 0; i < e; ++i)
    if (text[i] != '.') digits += text[i];
  exponent = std::atoi(text.c_str() + e + 1);
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
}

}  // namespace

std::string float_repr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  std::string sign = std::signbit(v) ? "-" : "";
  double magnitude = std::fabs(v);
  if (magnitude == 0) return sign + "0";

  std::string digits;
  int exponent = 0;
  shortest_digits(magnitude, digits, exponent);

  // Python's repr switches to scientific notation outside [1e-4, 1e16).
  if (exponent < -4 || exponent >= 16) {
    std::string out = sign + digits.substr(0, 1);
    if (digits.size() > 1) out.append(".").append(digits, 1);
    char exp_text[16];
    std::snprintf(exp_text, sizeof exp_text, "e%c%02d", exponent < 0 ? '-' : '+',
                  std::abs(exponent));
    return out + exp_text;
  }
  int point = exponent + 1;  // digits before the decimal point
  if (point <= 0) return sign + "0." + std::string(-point, '0') + digits;
  if (static_cast<size_t>(point) >= digits.size())
    return sign + digits + std::string(point - digits.size(), '0');
  return sign + digits.substr(0, point) + "." + digits.substr(point);
}

}  // namespace tirc
