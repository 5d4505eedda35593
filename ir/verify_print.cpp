// Renderings for verifier messages, built on the canonical expression printer
// so messages read like the source.
#include "ir/arith/analyzer.h"
#include "ir/text/printer.h"
#include "ir/verify_internal.h"

namespace tirc::verify_detail {
namespace {

std::string join(const std::vector<Expr>& es) {
  std::string s;
  for (size_t i = 0; i < es.size(); ++i) {
    if (i) s += ", ";
    s += print_expr(es[i]);
  }
  return s;
}

}  // namespace

std::string expr_str(const Expr& e) { return print_expr(e); }

std::string access_str(const Buffer& buffer, const std::vector<Expr>& indices) {
  return buffer->name + "[" + (indices.empty() ? "()" : join(indices)) + "]";
}

std::string region_str(const BufferRegion& region) {
  std::string s = region.buffer->name + "[";
  for (size_t i = 0; i < region.region.size(); ++i) {
    const Range& r = region.region[i];
    s += i ? ", " : "";
    if (is_const_int(r.extent, 1)) {
      s += print_expr(r.min);
    } else {
      s += print_expr(r.min);
      s += ":";
      s += print_expr(simplify(r.min + r.extent));
    }
  }
  return s + "]";
}

// Built by appending: GCC 12 warns falsely (-Wrestrict) on "(" + string.
std::string shape_str(const Buffer& buffer) {
  std::string s = "(";
  s += join(buffer->shape);
  s += buffer->shape.size() == 1 ? ",)" : ")";
  return s;
}

std::string bound_str(const ConstIntBound& b) {
  std::string s = "[";
  s += b.min ? std::to_string(*b.min) : "-inf";
  s += ", ";
  s += b.max ? std::to_string(*b.max) : "inf";
  s += "]";
  return s;
}

}  // namespace tirc::verify_detail
