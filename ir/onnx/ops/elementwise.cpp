// Elementwise operators: each output element is an expression of the input
// elements at the (broadcast) same position, returned for the consumer to
// inline.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ir/onnx/ops/ops.h"
#include "ir/onnx/tensor_proto.h"

namespace tirc::onnx {

namespace {

using Indices = std::vector<Expr>;
using Unary = std::function<Expr(const Expr&)>;
using Nary = std::function<Expr(const std::vector<Expr>&)>;

std::string type_name(DataType t) {
  return t.str();
}

void require_float(OpContext& ctx, const TensorValue& v, size_t input) {
  if (!v.dtype.is_float())
    ctx.fail("input " + std::to_string(input) + " has type " + type_name(v.dtype) +
             "; this operator supports floating-point tensors only");
}

void require_numeric(OpContext& ctx, const TensorValue& v, size_t input) {
  if (!v.dtype.is_float() && !v.dtype.is_integer())
    ctx.fail("input " + std::to_string(input) + " has type " + type_name(v.dtype) +
             "; this operator supports numeric tensors only");
}

TensorValue map_unary(const TensorValue& x, DataType out, Unary f) {
  return TensorValue::of_element(out, x.shape,
                                 [x, f = std::move(f)](const Indices& i) { return f(x.load(i)); });
}

// f applied to the inputs read at the numpy-broadcast position.
TensorValue map_broadcast(OpContext& ctx, std::vector<TensorValue> ins, DataType out, Nary f) {
  std::vector<Shape> shapes;
  for (const TensorValue& v : ins) shapes.push_back(v.shape);
  Shape shape;
  try {
    shape = broadcast_shapes(shapes);
  } catch (const Error& e) {
    ctx.fail(e.message());
  }
  return TensorValue::of_element(out, shape,
                                 [ins = std::move(ins), shape, f = std::move(f)](const Indices& i) {
                                   std::vector<Expr> args;
                                   for (const TensorValue& v : ins)
                                     args.push_back(v.load(broadcast_indices(v.shape, shape, i)));
                                   return f(args);
                                 });
}

// Before opset 7, `broadcast=1, axis=k` aligns B with A's dimensions from k
// on (numpy aligns trailing dimensions): B is read as a tensor of A's rank.
TensorValue legacy_broadcast_b(OpContext& ctx, const TensorValue& a, const TensorValue& b) {
  const Node& n = ctx.node();
  if (ctx.opset() >= 7 || n.attr_int("broadcast", 0) == 0 || !n.has_attr("axis")) return b;
  int64_t axis = n.attr_int("axis", 0);
  if (axis < 0) axis += a.rank();
  if (axis < 0 || axis + b.rank() > a.rank())
    ctx.fail("axis " + std::to_string(n.attr_int("axis", 0)) + " does not place B's " +
             std::to_string(b.rank()) + " dimensions inside A's " + std::to_string(a.rank()));
  Shape shape(static_cast<size_t>(a.rank()), 1);
  std::copy(b.shape.begin(), b.shape.end(), shape.begin() + axis);
  return TensorValue::of_element(b.dtype, shape, [b, axis](const Indices& i) {
    return b.load(Indices(i.begin() + axis, i.begin() + axis + b.rank()));
  });
}

// Two inputs of one type (ONNX's binary operators do not promote).
TensorValue same_type_binary(OpContext& ctx, DataType out, std::function<Expr(Expr, Expr)> f) {
  const TensorValue& a = ctx.input(0);
  TensorValue b = legacy_broadcast_b(ctx, a, ctx.input(1));
  if (a.dtype != b.dtype)
    ctx.fail("inputs have different types (" + type_name(a.dtype) + " and " + type_name(b.dtype) +
             ")");
  return map_broadcast(ctx, {a, b}, out,
                       [f = std::move(f)](const std::vector<Expr>& v) { return f(v[0], v[1]); });
}

Expr call(const std::string& op, const Expr& x) {
  return make_call(x.dtype(), op, {x});
}
Expr fconst(const Expr& like, double v) {
  return make_const(like.dtype(), v);
}

OpDef injective(std::string op, std::function<std::vector<TensorValue>(OpContext&)> build,
                std::vector<size_t> constant_inputs = {}) {
  return OpDef{std::move(op), OpPattern::Injective, std::move(constant_inputs), std::move(build)};
}

// A float-only unary operator f(x).
OpDef float_unary(std::string op, Unary f) {
  return injective(std::move(op), [f = std::move(f)](OpContext& ctx) -> std::vector<TensorValue> {
    const TensorValue& x = ctx.input(0);
    require_float(ctx, x, 0);
    return {map_unary(x, x.dtype, f)};
  });
}

// A unary operator on any numeric type.
OpDef numeric_unary(std::string op, Unary f) {
  return injective(std::move(op), [f = std::move(f)](OpContext& ctx) -> std::vector<TensorValue> {
    const TensorValue& x = ctx.input(0);
    require_numeric(ctx, x, 0);
    return {map_unary(x, x.dtype, f)};
  });
}

OpDef arithmetic(std::string op, ExprKind kind) {
  return injective(std::move(op), [kind](OpContext& ctx) -> std::vector<TensorValue> {
    require_numeric(ctx, ctx.input(0), 0);
    require_numeric(ctx, ctx.input(1), 1);
    DataType t = ctx.input(0).dtype;
    if (kind == ExprKind::Div && t.is_integer())
      return {same_type_binary(ctx, t, [](Expr a, Expr b) { return truncdiv(a, b); })};
    return {same_type_binary(ctx, t, [kind](Expr a, Expr b) { return make_binary(kind, a, b); })};
  });
}

OpDef comparison(std::string op, ExprKind kind) {
  return injective(std::move(op), [kind](OpContext& ctx) -> std::vector<TensorValue> {
    return {same_type_binary(ctx, DataType::boolean(),
                             [kind](Expr a, Expr b) { return make_binary(kind, a, b); })};
  });
}

OpDef logical(std::string op, std::function<Expr(Expr, Expr)> f) {
  return injective(std::move(op), [f = std::move(f)](OpContext& ctx) -> std::vector<TensorValue> {
    for (size_t i = 0; i < 2; ++i)
      if (!ctx.input(i).dtype.is_bool()) ctx.fail("input " + std::to_string(i) + " must be bool");
    return {same_type_binary(ctx, DataType::boolean(), f)};
  });
}

// ---- Pow ----------------------------------------------------------------------

std::vector<TensorValue> build_pow(OpContext& ctx) {
  const TensorValue& x = ctx.input(0);
  TensorValue y = legacy_broadcast_b(ctx, x, ctx.input(1));
  require_float(ctx, x, 0);
  require_numeric(ctx, y, 1);
  DataType t = x.dtype;
  if (y.value && y.value->num_elements() == 1) {
    double e = y.value->get_float(0);
    Unary f;
    if (e == 1)
      f = [](const Expr& v) { return v; };
    else if (e == 2)
      f = [](const Expr& v) { return v * v; };
    else if (e == 0.5)
      f = [](const Expr& v) { return call("sqrt", v); };
    else
      f = [e](const Expr& v) { return make_call(v.dtype(), "pow", {v, fconst(v, e)}); };
    // The exponent may still broadcast x to a higher rank.
    Shape shape;
    try {
      shape = broadcast_shapes({x.shape, y.shape});
    } catch (const Error& err) {
      ctx.fail(err.message());
    }
    return {TensorValue::of_element(t, shape, [x, shape, f](const Indices& i) {
      return f(x.load(broadcast_indices(x.shape, shape, i)));
    })};
  }
  return {map_broadcast(ctx, {x, y}, t, [t](const std::vector<Expr>& v) {
    Expr e = v[1].dtype() == t ? v[1] : make_cast(t, v[1]);
    return make_call(t, "pow", {v[0], e});
  })};
}

// ---- Clip -----------------------------------------------------------------------

// A bound of Clip: the attribute before opset 11, the optional scalar input after.
std::optional<Expr> clip_bound(OpContext& ctx, const char* attr, size_t input, DataType t) {
  if (ctx.opset() < 11) {
    if (!ctx.node().has_attr(attr)) return std::nullopt;
    return make_const(t, ctx.node().attr_float(attr, 0));
  }
  if (!ctx.has_input(input)) return std::nullopt;
  const TensorValue& b = ctx.input(input);
  if (b.num_elements() != 1)
    ctx.fail("input '" + ctx.node().inputs[input] + "' (" + attr + ") must be a scalar, has " +
             std::to_string(b.num_elements()) + " elements");
  if (b.dtype != t)
    ctx.fail("input '" + ctx.node().inputs[input] + "' (" + attr + ") has type " +
             type_name(b.dtype) + ", the data " + type_name(t));
  // A known bound becomes an immediate; a run-time scalar is read where used.
  return b.load(std::vector<Expr>(b.shape.size(), make_int(0)));
}

std::vector<TensorValue> build_clip(OpContext& ctx) {
  const TensorValue& x = ctx.input(0);
  require_numeric(ctx, x, 0);
  std::optional<Expr> lo = clip_bound(ctx, "min", 1, x.dtype),
                      hi = clip_bound(ctx, "max", 2, x.dtype);
  return {map_unary(x, x.dtype, [lo, hi](const Expr& v) {
    Expr r = v;
    if (lo) r = max(r, *lo);
    if (hi) r = min(r, *hi);
    return r;
  })};
}

// ---- Gelu -------------------------------------------------------------------------

std::vector<TensorValue> build_gelu(OpContext& ctx) {
  const TensorValue& x = ctx.input(0);
  require_float(ctx, x, 0);
  std::string approx = ctx.node().attr_string("approximate", "none");
  if (approx == "none")
    return {map_unary(x, x.dtype, [](const Expr& v) {
      return fconst(v, 0.5) * v * (fconst(v, 1) + call("erf", v * fconst(v, M_SQRT1_2)));
    })};
  if (approx == "tanh")
    return {map_unary(x, x.dtype, [](const Expr& v) {
      Expr inner = fconst(v, std::sqrt(2 / M_PI)) * (v + fconst(v, 0.044715) * v * v * v);
      return fconst(v, 0.5) * v * (fconst(v, 1) + call("tanh", inner));
    })};
  ctx.fail("attribute 'approximate' must be \"none\" or \"tanh\", not \"" + approx + "\"");
}

// ---- Where, Cast ------------------------------------------------------------------

std::vector<TensorValue> build_where(OpContext& ctx) {
  const TensorValue &c = ctx.input(0), &a = ctx.input(1), &b = ctx.input(2);
  if (!c.dtype.is_bool()) ctx.fail("condition must be bool, not " + type_name(c.dtype));
  if (a.dtype != b.dtype)
    ctx.fail("inputs X and Y have different types (" + type_name(a.dtype) + " and " +
             type_name(b.dtype) + ")");
  return {map_broadcast(ctx, {c, a, b}, a.dtype,
                        [](const std::vector<Expr>& v) { return make_select(v[0], v[1], v[2]); })};
}

Expr cast_to(DataType to, const Expr& v) {
  if (v.dtype() == to) return v;
  if (to.is_bool()) return v != make_const(v.dtype(), 0);
  // Float to integer truncates toward zero (the IR's Cast), like C.
  return make_cast(to, v);
}

std::vector<TensorValue> build_cast(OpContext& ctx) {
  int64_t code = ctx.node().require_int("to");
  if (code == 8) ctx.fail("Cast to STRING is not supported");
  // Cast-19's saturate only concerns the float8 types, which tirc refuses here.
  bool in_range = code >= 0 && code <= std::numeric_limits<int32_t>::max();
  std::optional<DataType> to =
      in_range ? dtype_of_elem_type(static_cast<int32_t>(code)) : std::nullopt;
  if (!to)
    ctx.fail("Cast to data type " +
             (in_range ? elem_type_name(static_cast<int32_t>(code)) : std::to_string(code)) +
             " is not supported");
  const TensorValue& x = ctx.input(0);
  if (!x.dtype.is_float() && !x.dtype.is_integer() && !x.dtype.is_bool())
    ctx.fail("Cast from " + type_name(x.dtype) + " is not supported");
  DataType t = *to;
  return {map_unary(x, t, [t](const Expr& v) { return cast_to(t, v); })};
}

std::vector<TensorValue> build_leaky_relu(OpContext& ctx) {
  const TensorValue& x = ctx.input(0);
  require_float(ctx, x, 0);
  double alpha = ctx.node().attr_float("alpha", 0.01);
  return {map_unary(x, x.dtype, [alpha](const Expr& v) {
    return make_select(v < fconst(v, 0), v * fconst(v, alpha), v);
  })};
}

std::vector<TensorValue> build_not(OpContext& ctx) {
  const TensorValue& x = ctx.input(0);
  if (!x.dtype.is_bool()) ctx.fail("input must be bool, not " + type_name(x.dtype));
  return {map_unary(x, x.dtype, [](const Expr& v) { return make_not(v); })};
}

// Min, Max, Sum, Mean: any number of inputs of one type, broadcast together.
OpDef variadic(std::string op, std::function<Expr(Expr, Expr)> f, bool mean = false) {
  return injective(
      std::move(op), [f = std::move(f), mean](OpContext& ctx) -> std::vector<TensorValue> {
        std::vector<TensorValue> ins;
        for (size_t i = 0; i < ctx.num_inputs(); ++i) {
          const TensorValue& v = ctx.input(i);
          require_numeric(ctx, v, i);
          if (v.dtype != ctx.input(0).dtype)
            ctx.fail("input " + std::to_string(i) + " has type " + type_name(v.dtype) +
                     ", input 0 " + type_name(ctx.input(0).dtype));
          ins.push_back(v);
        }
        if (ins.empty()) ctx.fail("needs at least one input");
        if (mean) require_float(ctx, ins[0], 0);
        size_t n = ins.size();
        return {map_broadcast(ctx, ins, ins[0].dtype, [f, mean, n](const std::vector<Expr>& v) {
          Expr r = v[0];
          for (size_t i = 1; i < v.size(); ++i) r = f(r, v[i]);
          return mean ? r / fconst(r, static_cast<double>(n)) : r;
        })};
      });
}

// Mod: fmod=0 takes the divisor's sign (integers only), fmod=1 the dividend's.
std::vector<TensorValue> build_mod(OpContext& ctx) {
  require_numeric(ctx, ctx.input(0), 0);
  DataType t = ctx.input(0).dtype;
  bool fmod = ctx.node().attr_int("fmod", 0) != 0;
  if (t.is_float() && !fmod) ctx.fail("fmod must be 1 for floating-point inputs");
  if (t.is_float())
    return {same_type_binary(ctx, t, [](Expr a, Expr b) {
      return make_call(a.dtype(), "fmod", {a, b});
    })};
  if (fmod) return {same_type_binary(ctx, t, [](Expr a, Expr b) { return truncmod(a, b); })};
  return {same_type_binary(ctx, t, [](Expr a, Expr b) { return floormod(a, b); })};
}

// PRelu: the slope broadcasts to X (unidirectionally).
std::vector<TensorValue> build_prelu(OpContext& ctx) {
  const TensorValue &x = ctx.input(0), &slope = ctx.input(1);
  require_float(ctx, x, 0);
  if (slope.dtype != x.dtype)
    ctx.fail("slope has type " + type_name(slope.dtype) + ", X " + type_name(x.dtype));
  TensorValue r = same_type_binary(
      ctx, x.dtype, [](Expr v, Expr a) { return make_select(v < fconst(v, 0), v * a, v); });
  if (r.shape != x.shape) ctx.fail("slope does not broadcast to X's shape");
  return {r};
}

std::vector<TensorValue> build_cast_like(OpContext& ctx) {
  const TensorValue &x = ctx.input(0), &like = ctx.input(1);
  if (!x.dtype.is_float() && !x.dtype.is_integer() && !x.dtype.is_bool())
    ctx.fail("CastLike from " + type_name(x.dtype) + " is not supported");
  DataType t = like.dtype;
  return {map_unary(x, t, [t](const Expr& v) { return cast_to(t, v); })};
}

// A float unary operator with float attributes (alpha, beta, ...) and their defaults.
OpDef float_unary_attrs(std::string op, std::vector<std::pair<std::string, double>> attrs,
                        std::function<Expr(const Expr&, const std::vector<double>&)> f) {
  return injective(
      std::move(op),
      [attrs = std::move(attrs), f = std::move(f)](OpContext& ctx) -> std::vector<TensorValue> {
        const TensorValue& x = ctx.input(0);
        require_float(ctx, x, 0);
        std::vector<double> a;
        for (const auto& [name, fallback] : attrs)
          a.push_back(ctx.node().attr_float(name, fallback));
        return {map_unary(x, x.dtype, [f, a](const Expr& v) { return f(v, a); })};
      });
}

Expr exp_minus_one(const Expr& v) {
  return call("exp", v) - fconst(v, 1);
}

}  // namespace

std::vector<OpDef> elementwise_ops() {
  std::vector<OpDef> ops;
  ops.push_back(arithmetic("Add", ExprKind::Add));
  ops.push_back(arithmetic("Sub", ExprKind::Sub));
  ops.push_back(arithmetic("Mul", ExprKind::Mul));
  ops.push_back(arithmetic("Div", ExprKind::Div));
  ops.push_back(injective("Pow", build_pow));
  ops.push_back(numeric_unary("Relu", [](const Expr& v) { return max(v, fconst(v, 0)); }));
  ops.push_back(injective("LeakyRelu", build_leaky_relu));
  ops.push_back(injective("Clip", build_clip));
  ops.push_back(float_unary("Sigmoid", [](const Expr& v) { return call("sigmoid", v); }));
  ops.push_back(float_unary("Tanh", [](const Expr& v) { return call("tanh", v); }));
  ops.push_back(float_unary("Erf", [](const Expr& v) { return call("erf", v); }));
  ops.push_back(injective("Gelu", build_gelu));
  ops.push_back(float_unary("Exp", [](const Expr& v) { return call("exp", v); }));
  ops.push_back(float_unary("Log", [](const Expr& v) { return call("log", v); }));
  ops.push_back(float_unary("Sqrt", [](const Expr& v) { return call("sqrt", v); }));
  ops.push_back(float_unary("Reciprocal", [](const Expr& v) { return fconst(v, 1) / v; }));
  ops.push_back(float_unary("Floor", [](const Expr& v) { return call("floor", v); }));
  ops.push_back(float_unary("Ceil", [](const Expr& v) { return call("ceil", v); }));
  ops.push_back(numeric_unary("Neg", [](const Expr& v) { return v * fconst(v, -1); }));
  ops.push_back(numeric_unary("Abs", [](const Expr& v) { return call("abs", v); }));
  ops.push_back(injective("Where", build_where));
  ops.push_back(injective("Cast", build_cast));
  ops.push_back(comparison("Equal", ExprKind::EQ));
  ops.push_back(comparison("Less", ExprKind::LT));
  ops.push_back(comparison("LessOrEqual", ExprKind::LE));
  ops.push_back(comparison("Greater", ExprKind::GT));
  ops.push_back(comparison("GreaterOrEqual", ExprKind::GE));
  ops.push_back(logical("And", logical_and));
  ops.push_back(logical("Or", logical_or));
  ops.push_back(logical("Xor", [](Expr a, Expr b) { return a != b; }));
  ops.push_back(injective("Not", build_not));
  ops.push_back(variadic("Min", [](Expr a, Expr b) { return min(a, b); }));
  ops.push_back(variadic("Max", [](Expr a, Expr b) { return max(a, b); }));
  ops.push_back(variadic("Sum", [](Expr a, Expr b) { return a + b; }));
  ops.push_back(variadic(
      "Mean", [](Expr a, Expr b) { return a + b; }, true));
  ops.push_back(injective("Mod", build_mod));
  ops.push_back(injective("PRelu", build_prelu));
  ops.push_back(injective("CastLike", build_cast_like));
  // Halfway cases to even, as ONNX specifies.
  ops.push_back(float_unary("Round", [](const Expr& v) { return call("nearbyint", v); }));
  ops.push_back(numeric_unary("Sign", [](const Expr& v) {
    return make_select(v > fconst(v, 0), fconst(v, 1),
                       make_select(v < fconst(v, 0), fconst(v, -1), fconst(v, 0)));
  }));
  ops.push_back(float_unary(
      "Softplus", [](const Expr& v) { return call("log", call("exp", v) + fconst(v, 1)); }));
  ops.push_back(
      float_unary("Softsign", [](const Expr& v) { return v / (fconst(v, 1) + call("abs", v)); }));
  ops.push_back(float_unary_attrs(
      "HardSigmoid", {{"alpha", 0.2}, {"beta", 0.5}}, [](const Expr& v, const auto& a) {
        return max(fconst(v, 0), min(fconst(v, 1), v * fconst(v, a[0]) + fconst(v, a[1])));
      }));
  ops.push_back(float_unary("HardSwish", [](const Expr& v) {
    return v * max(fconst(v, 0), min(fconst(v, 1), v * fconst(v, 1.0 / 6) + fconst(v, 0.5)));
  }));
  ops.push_back(float_unary_attrs("Elu", {{"alpha", 1.0}}, [](const Expr& v, const auto& a) {
    return make_select(v < fconst(v, 0), fconst(v, a[0]) * exp_minus_one(v), v);
  }));
  ops.push_back(float_unary_attrs(
      "Selu", {{"alpha", 1.67326319217681884765625}, {"gamma", 1.05070102214813232421875}},
      [](const Expr& v, const auto& a) {
        Expr neg = fconst(v, a[0]) * exp_minus_one(v);
        return fconst(v, a[1]) * make_select(v <= fconst(v, 0), neg, v);
      }));
  ops.push_back(
      float_unary_attrs("ThresholdedRelu", {{"alpha", 1.0}}, [](const Expr& v, const auto& a) {
        return make_select(v > fconst(v, a[0]), v, fconst(v, 0));
      }));
  ops.push_back(float_unary_attrs("Celu", {{"alpha", 1.0}}, [](const Expr& v, const auto& a) {
    Expr neg = fconst(v, a[0]) * exp_minus_one(v / fconst(v, a[0]));
    return max(v, fconst(v, 0)) + min(fconst(v, 0), neg);
  }));
  return ops;
}

}  // namespace tirc::onnx
