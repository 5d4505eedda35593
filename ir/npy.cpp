// NumPy .npy: magic "\x93NUMPY", version, header length, a Python dict
// literal {'descr': ..., 'fortran_order': ..., 'shape': (...)}, then raw data.
#include <cctype>
#include <cstring>
#include <fstream>
#include <sstream>

#include "ir/error.h"
#include "ir/ndarray.h"

namespace tirc {

namespace {

struct Descr {
  const char* text;
  DataType dtype;
};

constexpr Descr kDescrs[] = {
    {"<f4", DataType::float32()}, {"<f8", DataType::float64()}, {"<f2", DataType::float16()},
    {"<i1", DataType::int8()},    {"<i2", DataType::int16()},   {"<i4", DataType::int32()},
    {"<i8", DataType::int64()},   {"|i1", DataType::int8()},    {"<u1", DataType::uint8()},
    {"|u1", DataType::uint8()},   {"|b1", DataType::boolean()},
};

const char* descr_of(DataType t, const std::string& path) {
  for (const Descr& d : kDescrs)
    if (d.dtype == t) return d.text;
  throw Error(path + ": cannot write element type " + t.str() + " to .npy");
}

// The value text after 'key': in the header dict, up to the next top-level
// comma or closing brace.
std::string dict_value(const std::string& header, const std::string& key, const std::string& path) {
  size_t k = header.find("'" + key + "'");
  if (k == std::string::npos) throw Error(path + ": .npy header has no '" + key + "'");
  size_t colon = header.find(':', k);
  if (colon == std::string::npos) throw Error(path + ": malformed .npy header");
  size_t pos = colon + 1;
  int depth = 0;
  size_t end = pos;
  for (; end < header.size(); ++end) {
    char c = header[end];
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (depth == 0 && (c == ',' || c == '}')) break;
  }
  if (depth != 0 || end >= header.size()) throw Error(path + ": malformed .npy header");
  std::string v = header.substr(pos, end - pos);
  size_t a = v.find_first_not_of(" \t");
  size_t b = v.find_last_not_of(" \t");
  return a == std::string::npos ? "" : v.substr(a, b - a + 1);
}

std::vector<int64_t> parse_shape(const std::string& text, const std::string& path) {
  if (text.size() < 2 || text.front() != '(' || text.back() != ')')
    throw Error(path + ": malformed .npy shape " + text);
  std::vector<int64_t> shape;
  size_t i = 1;
  while (i + 1 < text.size()) {
    while (i + 1 < text.size() && (text[i] == ' ' || text[i] == ',')) ++i;
    if (i + 1 >= text.size()) break;
    if (!std::isdigit(static_cast<unsigned char>(text[i])))
      throw Error(path + ": malformed .npy shape " + text);
    int64_t v = 0;
    while (i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      v = v * 10 + (text[i] - '0');
      if (v > (int64_t{1} << 40)) throw Error(path + ": .npy extent too large");
      ++i;
    }
    if (text[i] == 'L') ++i;  // Python 2 longs
    shape.push_back(v);
  }
  return shape;
}

}  // namespace

NDArray parse_npy(std::string_view content, const std::string& path) {
  if (content.size() < 10 || content.compare(0, 6, "\x93NUMPY") != 0)
    throw Error(path + ": not a .npy file (bad magic)");
  const auto byte = [&](size_t i) { return static_cast<uint8_t>(content[i]); };
  int major = byte(6);
  size_t header_len = 0, header_start = 0;
  if (major == 1) {
    header_len = byte(8) | (size_t{byte(9)} << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (content.size() < 12) throw Error(path + ": truncated .npy header");
    header_len =
        byte(8) | (size_t{byte(9)} << 8) | (size_t{byte(10)} << 16) | (size_t{byte(11)} << 24);
    header_start = 12;
  } else {
    throw Error(path + ": unsupported .npy version " + std::to_string(major));
  }
  if (content.size() < header_start + header_len) throw Error(path + ": truncated .npy header");
  std::string header(content.substr(header_start, header_len));
  std::string descr = dict_value(header, "descr", path);
  std::string fortran = dict_value(header, "fortran_order", path);
  std::string shape_text = dict_value(header, "shape", path);
  if (fortran != "False")
    throw Error(path + ": only C-order .npy files are supported (fortran_order " + fortran + ")");
  if (descr.size() < 2 || (descr.front() != '\'' && descr.front() != '"') ||
      descr.back() != descr.front())
    throw Error(path + ": malformed .npy descr " + descr);
  descr = descr.substr(1, descr.size() - 2);
  const Descr* found = nullptr;
  for (const Descr& d : kDescrs)
    if (descr == d.text) found = &d;
  if (!found) throw Error(path + ": unsupported .npy element type '" + descr + "'");
  std::vector<int64_t> shape = parse_shape(shape_text, path);
  // Check the size before allocating: a corrupt header must not ask for terabytes.
  size_t data_start = header_start + header_len;
  uint64_t available = content.size() - data_start, need = found->dtype.bytes();
  for (int64_t d : shape)
    if (d != 0 && need > available / static_cast<uint64_t>(d))
      need = available + 1;
    else
      need *= static_cast<uint64_t>(d);
  if (available < need)
    throw Error(path + ": truncated .npy data (" + std::to_string(available) + " bytes for shape " +
                shape_text + ")");
  NDArray a(found->dtype, std::move(shape));
  if (a.num_bytes() > 0) std::memcpy(a.data(), content.data() + data_start, a.num_bytes());
  return a;
}

NDArray read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open");
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parse_npy(content, path);
}

std::string to_npy(const NDArray& a, const std::string& what) {
  std::ostringstream dict;
  dict << "{'descr': '" << descr_of(a.dtype(), what) << "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < a.shape().size(); ++i) dict << (i ? ", " : "") << a.shape()[i];
  if (a.shape().size() == 1) dict << ",";
  dict << "), }";
  std::string header = dict.str();
  // Pad so the data starts on a 64-byte boundary; the header ends in '\n'.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  if (header.size() > 0xFFFF) throw Error(what + ": .npy header too long");
  std::string out("\x93NUMPY\x01\x00", 8);
  out.push_back(static_cast<char>(header.size() & 0xFF));
  out.push_back(static_cast<char>(header.size() >> 8));
  out += header;
  out.append(reinterpret_cast<const char*>(a.data()), a.num_bytes());
  return out;
}

void write_npy(const std::string& path, const NDArray& a) {
  std::string bytes = to_npy(a, path);
  std::ofstream out(path, std::ios::binary);
  if (!out) throw Error(path + ": cannot open for writing");
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw Error(path + ": write failed");
}

}  // namespace tirc
