#include "ir/onnx/kernel_builder.h"

#include <cctype>
#include <set>

#include "ir/arith/region.h"

namespace tirc::onnx {

namespace {

std::string shape_str(const Shape& s) {
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + (s.size() == 1 ? ",)" : ")");
}

std::vector<Expr> shape_exprs(const Shape& shape) {
  std::vector<Expr> out;
  for (int64_t d : shape) {
    if (d < 0 || d > INT32_MAX)
      throw Error("dimension " + std::to_string(d) + " out of range in shape " + shape_str(shape));
    out.push_back(make_int(d));
  }
  return out;
}

// An immediate holding element i of a known tensor, in the tensor's own type
// (int64 values keep every bit; bool is 0/1).
Expr element_immediate(const NDArray& a, int64_t i) {
  DataType t = a.dtype();
  if (t.is_float()) return make_float(a.get_float(i), t);
  if (t.is_bool()) return make_bool(a.get_int(i) != 0);
  return make_int(a.get_int(i), t);
}

// Python-identifier-like names keep printed text close to the IR's own names.
std::string sanitize(const std::string& hint) {
  std::string name;
  for (char c : hint) {
    unsigned char u = static_cast<unsigned char>(c);
    name += (std::isalnum(u) || c == '_') && u < 128 ? c : '_';
  }
  if (name.empty()) return "t";
  if (std::isdigit(static_cast<unsigned char>(name[0]))) name.insert(name.begin(), '_');
  // Names the printer would have to rename (Python keywords, its own aliases),
  // so that printed text names every buffer as the IR does.
  static const std::set<std::string> reserved = {
      "False",   "None",     "True",     "and",    "as",   "assert", "async",  "await",
      "break",   "class",    "continue", "def",    "del",  "elif",   "else",   "except",
      "finally", "for",      "from",     "global", "if",   "import", "in",     "is",
      "lambda",  "nonlocal", "not",      "or",     "pass", "raise",  "return", "try",
      "while",   "with",     "yield",    "T",      "I",    "range",  "print",  "metadata"};
  if (reserved.count(name)) name += "_";
  return name;
}

struct Nest {
  std::vector<Var> loops;
  std::vector<IterVar> iters;
  std::vector<Expr> vars;  // the iterators as expressions
};

void add_axes(Nest& n, const Shape& extents, const char* loop_prefix, IterKind kind) {
  for (size_t d = 0; d < extents.size(); ++d) {
    std::string name = loop_prefix + std::to_string(d);
    Var loop = make_var(name);
    Var iv = make_var("v" + name);
    n.loops.push_back(loop);
    n.iters.push_back(
        IterVar{iv, Range::from_min_extent(make_int(0), make_int(extents[d])), kind, {}});
    n.vars.push_back(iv);
  }
}

Shape buffer_shape(const Buffer& b) {
  Shape s;
  for (const Expr& e : b->shape) {
    auto v = as_const_int(e);
    if (!v) throw Error("buffer " + b->name + " has a non-constant shape");
    s.push_back(*v);
  }
  return s;
}

// The block realized under one serial loop per iterator (outermost first).
Stmt realize_in_loops(const Nest& n, std::shared_ptr<BlockNode> block) {
  AccessRegions regions = infer_access_regions(*block);
  block->reads = std::move(regions.reads);
  block->writes = std::move(regions.writes);
  block->iter_vars = n.iters;
  std::vector<Expr> values(n.loops.begin(), n.loops.end());
  Stmt s = make_block_realize(std::move(values), make_bool(true), std::move(block));
  for (size_t d = n.loops.size(); d-- > 0;)
    s = make_for(n.loops[d], make_int(0), n.iters[d].dom.extent, ForKind::Serial, s);
  return s;
}

Expr checked_value(const Expr& v, const Buffer& out, const std::string& block) {
  if (!v) throw Error("block " + block + ": no value for " + out->name);
  if (v.dtype() != out->dtype)
    throw Error("block " + block + ": value of type " + v.dtype().str() + " stored into " +
                out->name + " of type " + out->dtype.str());
  return v;
}

}  // namespace

// ---- TensorValue ------------------------------------------------------------

int64_t TensorValue::num_elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

Expr TensorValue::load(const std::vector<Expr>& indices) const {
  if (indices.size() != shape.size())
    throw Error("tensor of shape " + shape_str(shape) + " read with " +
                std::to_string(indices.size()) + " indices");
  if (value && value->num_elements() == 1) return element_immediate(*value, 0);
  if (buffer) return make_load(buffer, indices);
  if (element) return element(indices);
  if (value)
    throw Error("a constant tensor of shape " + shape_str(shape) +
                " has no buffer to read it from (only single-element constants become immediates)");
  throw Error("tensor of shape " + shape_str(shape) + " has neither a buffer nor an expression");
}

TensorValue TensorValue::of_buffer(Buffer b, Shape shape) {
  TensorValue v;
  v.dtype = b->dtype;
  v.shape = std::move(shape);
  v.buffer = std::move(b);
  return v;
}

TensorValue TensorValue::of_element(DataType dtype, Shape shape, ElementFn fn) {
  TensorValue v;
  v.dtype = dtype;
  v.shape = std::move(shape);
  v.element = std::move(fn);
  return v;
}

TensorValue TensorValue::of_constant(std::shared_ptr<const NDArray> value) {
  TensorValue v;
  v.dtype = value->dtype();
  v.shape = value->shape();
  v.value = std::move(value);
  return v;
}

// ---- broadcasting -------------------------------------------------------------

Shape broadcast_shapes(const std::vector<Shape>& shapes) {
  size_t rank = 0;
  for (const Shape& s : shapes) rank = std::max(rank, s.size());
  Shape out(rank, 1);
  for (const Shape& s : shapes) {
    size_t lead = rank - s.size();
    for (size_t d = 0; d < s.size(); ++d) {
      int64_t& o = out[lead + d];
      if (s[d] == o || s[d] == 1) continue;
      if (o == 1) {
        o = s[d];
        continue;
      }
      std::string all;
      for (const Shape& x : shapes) all += (all.empty() ? "" : ", ") + shape_str(x);
      throw Error("shapes " + all + " do not broadcast (dimension " + std::to_string(lead + d) +
                  ": " + std::to_string(o) + " vs " + std::to_string(s[d]) + ")");
    }
  }
  return out;
}

std::vector<Expr> broadcast_indices(const Shape& shape, const Shape& out,
                                    const std::vector<Expr>& indices) {
  if (shape.size() > out.size() || indices.size() != out.size())
    throw Error("cannot broadcast shape " + shape_str(shape) + " to " + shape_str(out));
  size_t lead = out.size() - shape.size();
  std::vector<Expr> idx;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == out[lead + d])
      idx.push_back(indices[lead + d]);
    else if (shape[d] == 1)
      idx.push_back(make_int(0, indices[lead + d].dtype()));
    else
      throw Error("cannot broadcast shape " + shape_str(shape) + " to " + shape_str(out));
  }
  return idx;
}

// ---- KernelBuilder ------------------------------------------------------------

KernelBuilder::KernelBuilder(std::string name) : name_(std::move(name)) {}

std::string KernelBuilder::unique_name(const std::string& hint) {
  std::string base = sanitize(hint);
  std::string name = base;
  for (int suffix = 1; names_.count(name); ++suffix) name = base + "_" + std::to_string(suffix);
  names_[name] = 1;
  return name;
}

Buffer KernelBuilder::add_param(const std::string& hint, DataType dtype, const Shape& shape) {
  Buffer b = make_buffer(unique_name(hint), dtype, shape_exprs(shape));
  params_.push_back(Param{b->data, b});
  return b;
}

Buffer KernelBuilder::alloc(const std::string& hint, DataType dtype, const Shape& shape) {
  Buffer b = make_buffer(unique_name(hint), dtype, shape_exprs(shape));
  intermediates_.push_back(b);
  return b;
}

void KernelBuilder::append(Stmt stmt) {
  body_.push_back(std::move(stmt));
}

void KernelBuilder::emit_elementwise(const std::string& block, const Buffer& out,
                                     const ElementFn& fn) {
  Nest n;
  const Shape shape = buffer_shape(out);
  const bool pixels = shape.size() == 4 && shape == pixel_shape_;
  add_axes(n, pixels ? Shape{shape[0], shape[1], shape[2] * shape[3]} : shape, "i",
           IterKind::DataPar);
  std::vector<Expr> at = n.vars;
  if (pixels) {
    const Expr w = make_int(shape[3], at[2].dtype());
    at = {at[0], at[1], floordiv(at[2], w), floormod(at[2], w)};
  }
  auto b = std::make_shared<BlockNode>();
  b->name = unique_name(block);
  b->body = make_store(out, checked_value(fn(at), out, b->name), at);
  append(realize_in_loops(n, b));
}

void KernelBuilder::emit_reduction(
    const std::string& block, const Buffer& out, const Shape& reduce_extents, Expr init,
    const std::function<Expr(const std::vector<Expr>& i, const std::vector<Expr>& r)>& value,
    const std::function<Expr(Expr acc, Expr v)>& combine) {
  emit_reduction(
      block, out, reduce_extents, [init](const std::vector<Expr>&) { return init; }, value,
      combine);
}

void KernelBuilder::emit_reduction(
    const std::string& block, const Buffer& out, const Shape& reduce_extents, const ElementFn& init,
    const std::function<Expr(const std::vector<Expr>& i, const std::vector<Expr>& r)>& value,
    const std::function<Expr(Expr acc, Expr v)>& combine) {
  emit_reduction(
      block, out, buffer_shape(out), [](const std::vector<Expr>& i) { return i; }, reduce_extents,
      init, value, combine);
}

void KernelBuilder::emit_reduction(
    const std::string& block, const Buffer& out, const Shape& space,
    const std::function<std::vector<Expr>(const std::vector<Expr>& i)>& out_index,
    const Shape& reduce_extents, const ElementFn& init,
    const std::function<Expr(const std::vector<Expr>& i, const std::vector<Expr>& r)>& value,
    const std::function<Expr(Expr acc, Expr v)>& combine) {
  Nest n;
  add_axes(n, space, "i", IterKind::DataPar);
  std::vector<Expr> spatial = n.vars;
  add_axes(n, reduce_extents, "rk", IterKind::Reduce);
  std::vector<Expr> reduce(n.vars.begin() + static_cast<long>(spatial.size()), n.vars.end());
  std::vector<Expr> at = out_index(spatial);
  auto b = std::make_shared<BlockNode>();
  b->name = unique_name(block);
  Expr start = checked_value(init(spatial), out, b->name);
  if (reduce_extents.empty()) {
    // Nothing to reduce over: one combine with the initial value.
    b->body = make_store(out, checked_value(combine(start, value(spatial, {})), out, b->name), at);
  } else {
    b->init = make_store(out, start, at);
    b->body = make_store(
        out, checked_value(combine(make_load(out, at), value(spatial, reduce)), out, b->name), at);
  }
  append(realize_in_loops(n, b));
}

Buffer KernelBuilder::materialize(const TensorValue& v, const std::string& hint) {
  if (v.buffer) return v.buffer;
  Buffer b = alloc(hint, v.dtype, v.shape);
  write_to(v, b, hint);
  return b;
}

void KernelBuilder::write_to(const TensorValue& v, const Buffer& out,
                             const std::string& block_hint) {
  if (v.buffer == out) return;
  Shape shape = buffer_shape(out);
  if (shape != v.shape)
    throw Error("cannot write a tensor of shape " + shape_str(v.shape) + " into " + out->name +
                " of shape " + shape_str(shape));
  TensorValue copy = v;
  emit_elementwise(block_hint, out, [copy](const std::vector<Expr>& i) { return copy.load(i); });
}

PrimFunc KernelBuilder::finish() const {
  auto root = std::make_shared<BlockNode>();
  root->name = "root";
  root->alloc_buffers = intermediates_;
  root->body = body_.empty() ? make_evaluate(make_int(0)) : make_seq(body_);
  return make_prim_func(params_, make_block_realize({}, make_bool(true), root));
}

}  // namespace tirc::onnx
