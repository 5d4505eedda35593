// Einsum: the equation's output subscripts become the spatial iterators of one
// block and the subscripts it sums over its reduction iterators; the block
// multiplies the operands read at their subscripts. Diagonals (a subscript
// repeated within an operand) read both dimensions at the same iterator.
// Ellipses broadcast like numpy's (right-aligned), and so does a dimension of
// extent 1 against the same subscript's larger extent elsewhere.
#include <algorithm>
#include <map>

#include "ir/onnx/ops/axis_util.h"
#include "ir/onnx/ops/ops.h"

namespace tirc::onnx {
namespace {

using axis_util::shape_str;
using Indices = std::vector<Expr>;

// One dimension's subscript: a letter, or dimension k of the broadcast
// ellipsis (counted from its first dimension).
struct Axis {
  char letter = 0;  // 0 for an ellipsis dimension
  size_t ellipsis = 0;
  bool operator<(const Axis& o) const {
    return letter != o.letter ? letter < o.letter : ellipsis < o.ellipsis;
  }
  bool operator==(const Axis& o) const { return letter == o.letter && ellipsis == o.ellipsis; }
};

// A term of the equation as written: letters, with kEllipsis for "...".
constexpr char kEllipsis = '.';

std::vector<char> parse_term(OpContext& ctx, const std::string& term) {
  std::vector<char> out;
  for (size_t p = 0; p < term.size(); ++p) {
    char c = term[p];
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
      out.push_back(c);
    } else if (term.compare(p, 3, "...") == 0) {
      if (std::count(out.begin(), out.end(), kEllipsis))
        ctx.fail("term '" + term + "' has more than one ellipsis");
      out.push_back(kEllipsis);
      p += 2;
    } else {
      ctx.fail("term '" + term + "' has '" + std::string(1, c) +
               "'; subscripts are letters and '...'");
    }
  }
  return out;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts{""};
  for (char c : s) {
    if (c == sep)
      parts.emplace_back();
    else
      parts.back().push_back(c);
  }
  return parts;
}

std::vector<TensorValue> build_einsum(OpContext& ctx) {
  std::string equation;
  for (char c : ctx.node().attr_string("equation", ""))
    if (c != ' ') equation += c;
  if (equation.empty()) ctx.fail("attribute 'equation' is missing or empty");
  size_t arrow = equation.find("->");
  bool explicit_output = arrow != std::string::npos;
  std::vector<std::string> terms = split(equation.substr(0, arrow), ',');
  size_t n = ctx.node().inputs.size();
  if (terms.size() != n)
    ctx.fail("equation '" + equation + "' has " + std::to_string(terms.size()) +
             " input terms for " + std::to_string(n) + " inputs");

  std::vector<TensorValue> ins;
  for (size_t k = 0; k < n; ++k) {
    ins.push_back(ctx.input(k));
    if (!ins[k].dtype.is_float() && !ins[k].dtype.is_integer())
      ctx.fail("input " + std::to_string(k) + " has type " + ins[k].dtype.str());
    if (ins[k].dtype != ins[0].dtype)
      ctx.fail("input " + std::to_string(k) + " has type " + ins[k].dtype.str() + ", input 0 " +
               ins[0].dtype.str());
  }

  // Each operand dimension's axis; the ellipsis's shape, broadcast over operands.
  std::vector<std::vector<char>> parsed;
  std::vector<Shape> ellipsis_shapes;
  for (size_t k = 0; k < n; ++k) {
    parsed.push_back(parse_term(ctx, terms[k]));
    int64_t letters = static_cast<int64_t>(parsed[k].size()) -
                      std::count(parsed[k].begin(), parsed[k].end(), kEllipsis);
    bool has_ellipsis = letters != static_cast<int64_t>(parsed[k].size());
    if (ins[k].rank() < letters || (!has_ellipsis && ins[k].rank() != letters))
      ctx.fail("term '" + terms[k] + "' does not match input " + std::to_string(k) + " of shape " +
               shape_str(ins[k].shape));
    size_t begin = static_cast<size_t>(std::find(parsed[k].begin(), parsed[k].end(), kEllipsis) -
                                       parsed[k].begin());
    ellipsis_shapes.push_back(
        has_ellipsis ? Shape(ins[k].shape.begin() + static_cast<std::ptrdiff_t>(begin),
                             ins[k].shape.end() - (static_cast<std::ptrdiff_t>(parsed[k].size()) -
                                                   static_cast<std::ptrdiff_t>(begin) - 1))
                     : Shape{});
  }
  Shape ellipsis;
  try {
    ellipsis = broadcast_shapes(ellipsis_shapes);
  } catch (const Error& e) {
    ctx.fail("the ellipsis dimensions do not broadcast: " + e.message());
  }
  std::vector<std::vector<Axis>> axes(n);
  std::map<Axis, int64_t> extent;
  for (size_t k = 0; k < n; ++k) {
    size_t d = 0;
    for (char c : parsed[k]) {
      if (c == kEllipsis) {
        size_t skip = ellipsis.size() - ellipsis_shapes[k].size();
        for (size_t e = 0; e < ellipsis_shapes[k].size(); ++e) axes[k].push_back({0, skip + e});
        d += ellipsis_shapes[k].size();
        continue;
      }
      int64_t dim = ins[k].shape[d++];
      int64_t& known = extent.try_emplace(Axis{c, 0}, dim).first->second;
      if (known != dim && known != 1 && dim != 1)
        ctx.fail("subscript '" + std::string(1, c) + "' has extents " + std::to_string(known) +
                 " and " + std::to_string(dim));
      known = std::max(known, dim);
      axes[k].push_back({c, 0});
    }
  }
  for (size_t e = 0; e < ellipsis.size(); ++e) extent[{0, e}] = ellipsis[e];

  // The output's axes: as written, or (implicit) the ellipsis then the letters
  // used once, in ASCII order.
  std::vector<Axis> out_axes;
  auto add_ellipsis = [&] {
    for (size_t e = 0; e < ellipsis.size(); ++e) out_axes.push_back({0, e});
  };
  if (explicit_output) {
    std::string rhs = equation.substr(arrow + 2);
    std::vector<char> out_term = parse_term(ctx, rhs);
    if (!ellipsis.empty() && !std::count(out_term.begin(), out_term.end(), kEllipsis))
      ctx.fail("the inputs have ellipsis dimensions but the output '" + rhs + "' has no '...'");
    for (char c : out_term) {
      if (c == kEllipsis) {
        add_ellipsis();
        continue;
      }
      if (!extent.count({c, 0}))
        ctx.fail("output subscript '" + std::string(1, c) + "' is in no input term");
      if (std::count(out_term.begin(), out_term.end(), c) > 1)
        ctx.fail("output subscript '" + std::string(1, c) + "' is repeated");
      out_axes.push_back({c, 0});
    }
  } else {
    add_ellipsis();
    std::map<char, int> uses;
    for (const auto& t : parsed)
      for (char c : t)
        if (c != kEllipsis) ++uses[c];
    for (const auto& [c, count] : uses)
      if (count == 1) out_axes.push_back({c, 0});
  }
  // Summed: the letters the output leaves out, in order of first appearance.
  std::vector<Axis> summed;
  for (const auto& t : axes)
    for (const Axis& a : t)
      if (std::find(out_axes.begin(), out_axes.end(), a) == out_axes.end() &&
          std::find(summed.begin(), summed.end(), a) == summed.end())
        summed.push_back(a);

  Shape out_shape, reduce;
  for (const Axis& a : out_axes) out_shape.push_back(extent.at(a));
  for (const Axis& a : summed) reduce.push_back(extent.at(a));
  auto product = [ins, axes, out_axes, summed, extent](const Indices& i, const Indices& r) {
    std::map<Axis, Expr> at;
    for (size_t d = 0; d < out_axes.size(); ++d) at[out_axes[d]] = i[d];
    for (size_t d = 0; d < summed.size(); ++d) at[summed[d]] = r[d];
    Expr value;
    for (size_t k = 0; k < ins.size(); ++k) {
      Indices idx;
      for (size_t d = 0; d < axes[k].size(); ++d) {
        const Expr& v = at.at(axes[k][d]);
        bool broadcast = ins[k].shape[d] == 1 && extent.at(axes[k][d]) != 1;
        idx.push_back(broadcast ? make_int(0, v.dtype()) : v);
      }
      Expr x = ins[k].load(idx);
      value = value ? value * x : x;
    }
    return value;
  };
  DataType t = ins[0].dtype;
  Buffer y = ctx.output_buffer(0, t, out_shape);
  if (reduce.empty())
    ctx.kernel().emit_elementwise("einsum", y,
                                  [product](const Indices& i) { return product(i, {}); });
  else
    ctx.kernel().emit_reduction("einsum", y, reduce, make_const(t, 0), product,
                                [](Expr acc, Expr v) { return acc + v; });
  return {TensorValue::of_buffer(y, out_shape)};
}

}  // namespace

std::vector<OpDef> einsum_ops() {
  return {{"Einsum", OpPattern::Complex, {}, build_einsum}};
}

}  // namespace tirc::onnx
