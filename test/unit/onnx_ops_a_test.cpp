// The elementwise and neural-network operators of the ONNX library: each
// one-node kernel verifies, lowers, runs in the interpreter and matches a
// plain C++ reference loop written here (bit for bit on small integers).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>

#include "codegen/x86/generator.h"
#include "codegen/x86/jit.h"
#include "ir/eval/interpreter.h"
#include "ir/onnx/op.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "ir/verify.h"
#include "passes/pipeline.h"
#include "skip.h"

using namespace tirc;
using namespace tirc::onnx;

namespace {

const DataType f32 = DataType::float32();

// One node input: a run-time tensor (a kernel parameter), a compile-time
// constant, or omitted ("" in the node).
struct In {
  NDArray a;
  bool constant = false;
  bool omitted = false;
};

In omitted() {
  In i;
  i.omitted = true;
  return i;
}

In constant(NDArray a) {
  return In{std::move(a), true, false};
}

// "x0", "y1": node value names (appending avoids GCC 12's -Wrestrict false positive).
std::string indexed(char prefix, size_t i) {
  std::string s(1, prefix);
  s += std::to_string(i);
  return s;
}

struct Built {
  PrimFunc f;
  std::vector<TensorValue> results;
  std::vector<NDArray> run_inputs;  // the parameter inputs, in order
};

// Builds a kernel of one node: inputs are parameters (or constants), every
// result is written to an output parameter.
Built build_node(const std::string& op, const std::vector<In>& ins,
                 std::map<std::string, AttrValue> attrs = {}, int64_t opset = 17,
                 size_t num_outputs = 1) {
  Graph g;
  g.name = "test";
  g.opset = opset;
  Node n;
  n.name = "n";
  n.op_type = op;
  n.attrs = std::move(attrs);
  for (size_t o = 0; o < num_outputs; ++o) n.outputs.push_back(indexed('y', o));
  KernelBuilder k("kernel");
  std::vector<TensorValue> vals;
  Built b;
  for (size_t i = 0; i < ins.size(); ++i) {
    n.inputs.push_back(ins[i].omitted ? "" : indexed('x', i));
    if (ins[i].omitted) {
      vals.push_back({});
    } else if (ins[i].constant) {
      vals.push_back(TensorValue::of_constant(std::make_shared<NDArray>(ins[i].a)));
    } else {
      Buffer p = k.add_param(n.inputs.back(), ins[i].a.dtype(), ins[i].a.shape());
      vals.push_back(TensorValue::of_buffer(p, ins[i].a.shape()));
      b.run_inputs.push_back(ins[i].a);
    }
  }
  const OpDef* def = find_op("", op);
  REQUIRE(def);
  OpContext ctx(g, n, vals, k, std::vector<bool>(num_outputs, true));
  b.results = def->build(ctx);
  PrimFunc partial = k.finish();
  for (size_t o = 0; o < b.results.size(); ++o) {
    const TensorValue& r = b.results[o];
    bool is_param = false;
    for (const Param& p : partial->params) is_param |= p.buffer == r.buffer;
    if (!is_param) k.write_to(r, k.add_param(indexed('y', o), r.dtype, r.shape), "write_y");
  }
  b.f = k.finish();
  return b;
}

// Builds, checks well-formedness (verify, text round trip, lowering) and runs
// the node; returns its outputs.
std::vector<NDArray> run_node(const std::string& op, const std::vector<In>& ins,
                              std::map<std::string, AttrValue> attrs = {}, int64_t opset = 17) {
  Built b = build_node(op, ins, std::move(attrs), opset);
  for (const Diagnostic& d : verify(b.f, "kernel"))
    FAIL(d.message << "\n" << print_func(b.f, "kernel"));
  std::string text = print_func(b.f, "kernel");
  INFO(text);
  CHECK(print_func(parse_module(text).at("kernel"), "kernel") == text);
  CHECK_NOTHROW(lower(b.f));
  std::vector<NDArray> arrays = b.run_inputs;
  for (const TensorValue& r : b.results) arrays.emplace_back(r.dtype, r.shape);
  std::vector<Argument> args;
  for (NDArray& a : arrays) args.push_back({&a});
  run(b.f, args);
  return std::vector<NDArray>(arrays.begin() + static_cast<long>(b.run_inputs.size()),
                              arrays.end());
}

NDArray run1(const std::string& op, const std::vector<In>& ins,
             std::map<std::string, AttrValue> attrs = {}, int64_t opset = 17) {
  auto outs = run_node(op, ins, std::move(attrs), opset);
  REQUIRE(outs.size() == 1);
  return outs[0];
}

// Small integers -4..4 from a simple deterministic sequence.
NDArray ints(Shape shape, uint64_t seed = 1, DataType t = f32) {
  NDArray a(t, std::move(shape));
  uint64_t s = seed * 2654435761u + 12345;
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    a.set_float(i, static_cast<double>(static_cast<int64_t>((s >> 33) % 9) - 4));
  }
  return a;
}

NDArray values(Shape shape, std::vector<double> v, DataType t = f32) {
  NDArray a(t, std::move(shape));
  REQUIRE(static_cast<int64_t>(v.size()) == a.num_elements());
  for (size_t i = 0; i < v.size(); ++i) a.set_float(static_cast<int64_t>(i), v[i]);
  return a;
}

NDArray scalar(double v, DataType t = f32) {
  return values({}, {v}, t);
}

std::vector<double> as_vector(const NDArray& a) {
  std::vector<double> v;
  for (int64_t i = 0; i < a.num_elements(); ++i) v.push_back(a.get_float(i));
  return v;
}

void check_equal(const NDArray& got, const NDArray& want) {
  REQUIRE(got.shape() == want.shape());
  REQUIRE(got.dtype() == want.dtype());
  for (int64_t i = 0; i < want.num_elements(); ++i) {
    INFO("element " << i);
    CHECK(got.get_float(i) == want.get_float(i));
  }
}

void check_close(const NDArray& got, const NDArray& want, double tol = 1e-6) {
  REQUIRE(got.shape() == want.shape());
  for (int64_t i = 0; i < want.num_elements(); ++i) {
    INFO("element " << i);
    CHECK(std::fabs(got.get_float(i) - want.get_float(i)) <=
          tol * (1 + std::fabs(want.get_float(i))));
  }
}

// Row-major unravel/ravel.
std::vector<int64_t> unravel(int64_t flat, const Shape& shape) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  return idx;
}

int64_t ravel(const std::vector<int64_t>& idx, const Shape& shape) {
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + idx[d];
  return flat;
}

int64_t count(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

// An elementwise reference over numpy broadcasting.
NDArray ref_broadcast(const std::vector<const NDArray*>& ins, DataType out,
                      const std::function<double(const std::vector<double>&)>& f) {
  std::vector<Shape> shapes;
  for (auto* a : ins) shapes.push_back(a->shape());
  Shape s = broadcast_shapes(shapes);
  NDArray r(out, s);
  for (int64_t i = 0; i < r.num_elements(); ++i) {
    std::vector<int64_t> idx = unravel(i, s);
    std::vector<double> args;
    for (auto* a : ins) {
      std::vector<int64_t> ai;
      size_t lead = s.size() - a->shape().size();
      for (size_t d = 0; d < a->shape().size(); ++d)
        ai.push_back(a->shape()[d] == 1 ? 0 : idx[lead + d]);
      args.push_back(a->get_float(ravel(ai, a->shape())));
    }
    r.set_float(i, f(args));
  }
  return r;
}

// ---- references for the sliding-window operators ------------------------------

struct Geometry {
  std::vector<int64_t> kernel, strides, dilations, pad_begin, pad_end;
};

// Conv: out size floor((in + pads - span) / stride) + 1.
NDArray ref_conv(const NDArray& x, const NDArray& w, const NDArray* b, int64_t group,
                 const Geometry& g) {
  const Shape& xs = x.shape();
  const Shape& wsh = w.shape();
  size_t k = xs.size() - 2;
  int64_t M = wsh[0], Cg = wsh[1], Mg = M / group;
  Shape os{xs[0], M};
  for (size_t d = 0; d < k; ++d)
    os.push_back(
        (xs[d + 2] + g.pad_begin[d] + g.pad_end[d] - (wsh[d + 2] - 1) * g.dilations[d] - 1) /
            g.strides[d] +
        1);
  NDArray y(f32, os);
  Shape ks(wsh.begin() + 2, wsh.end());
  for (int64_t o = 0; o < y.num_elements(); ++o) {
    auto oi = unravel(o, os);
    int64_t m = oi[1], grp = m / Mg;
    double acc = b ? b->get_float(m) : 0;
    for (int64_t c = 0; c < Cg; ++c)
      for (int64_t r = 0; r < count(ks); ++r) {
        auto ri = unravel(r, ks);
        std::vector<int64_t> xi{oi[0], grp * Cg + c};
        bool inside = true;
        for (size_t d = 0; d < k; ++d) {
          int64_t p = oi[d + 2] * g.strides[d] + ri[d] * g.dilations[d] - g.pad_begin[d];
          inside &= p >= 0 && p < xs[d + 2];
          xi.push_back(p);
        }
        if (!inside) continue;
        std::vector<int64_t> wi{m, c};
        wi.insert(wi.end(), ri.begin(), ri.end());
        acc += x.get_float(ravel(xi, xs)) * w.get_float(ravel(wi, wsh));
      }
    y.set_float(o, acc);
  }
  return y;
}

// ConvTranspose in scatter form (each input element adds into the output).
NDArray ref_conv_transpose(const NDArray& x, const NDArray& w, const NDArray* b, int64_t group,
                           const Geometry& g, const Shape& out_spatial) {
  const Shape& xs = x.shape();
  const Shape& wsh = w.shape();
  size_t k = xs.size() - 2;
  int64_t C = xs[1], Cg = C / group, Mg = wsh[1], M = Mg * group;
  Shape os{xs[0], M};
  os.insert(os.end(), out_spatial.begin(), out_spatial.end());
  NDArray y(f32, os);
  for (int64_t o = 0; o < y.num_elements(); ++o)
    y.set_float(o, b ? b->get_float(unravel(o, os)[1]) : 0);
  Shape ks(wsh.begin() + 2, wsh.end());
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    auto xi = unravel(i, xs);
    int64_t c = xi[1], grp = c / Cg;
    for (int64_t mg = 0; mg < Mg; ++mg)
      for (int64_t r = 0; r < count(ks); ++r) {
        auto ri = unravel(r, ks);
        std::vector<int64_t> yi{xi[0], grp * Mg + mg};
        bool inside = true;
        for (size_t d = 0; d < k; ++d) {
          int64_t p = xi[d + 2] * g.strides[d] + ri[d] * g.dilations[d] - g.pad_begin[d];
          inside &= p >= 0 && p < os[d + 2];
          yi.push_back(p);
        }
        if (!inside) continue;
        std::vector<int64_t> wi{c, mg};
        wi.insert(wi.end(), ri.begin(), ri.end());
        int64_t at = ravel(yi, os);
        y.set_float(at, y.get_float(at) + x.get_float(i) * w.get_float(ravel(wi, wsh)));
      }
  }
  return y;
}

// Max or average pooling over explicit output sizes; count_include_pad counts
// window elements inside the padded input.
NDArray ref_pool(const NDArray& x, bool average, bool include_pad, const Geometry& g,
                 const Shape& out_spatial) {
  const Shape& xs = x.shape();
  size_t k = xs.size() - 2;
  Shape os{xs[0], xs[1]};
  os.insert(os.end(), out_spatial.begin(), out_spatial.end());
  NDArray y(f32, os);
  for (int64_t o = 0; o < y.num_elements(); ++o) {
    auto oi = unravel(o, os);
    double acc = average ? 0 : -INFINITY;
    int64_t n = 0;
    for (int64_t r = 0; r < count(g.kernel); ++r) {
      auto ri = unravel(r, g.kernel);
      std::vector<int64_t> xi{oi[0], oi[1]};
      bool inside = true, in_padded = true;
      for (size_t d = 0; d < k; ++d) {
        int64_t p = oi[d + 2] * g.strides[d] + ri[d] * g.dilations[d] - g.pad_begin[d];
        inside &= p >= 0 && p < xs[d + 2];
        in_padded &= p >= -g.pad_begin[d] && p < xs[d + 2] + g.pad_end[d];
        xi.push_back(p);
      }
      if (include_pad ? in_padded : inside) ++n;
      if (!inside) continue;
      double v = x.get_float(ravel(xi, xs));
      acc = average ? acc + v : std::max(acc, v);
    }
    y.set_float(o, average ? acc / static_cast<double>(n) : acc);
  }
  return y;
}

AttrValue ints_attr(std::vector<int64_t> v) {
  return AttrValue(std::move(v));
}

}  // namespace

// ---- elementwise ------------------------------------------------------------------

TEST_CASE("binary arithmetic broadcasts like numpy", "[onnx-ops-a]") {
  NDArray a = ints({2, 3, 4}, 1), b = ints({3, 1}, 2), c = ints({4}, 3);
  check_equal(run1("Add", {{a}, {b}}),
              ref_broadcast({&a, &b}, f32, [](auto v) { return v[0] + v[1]; }));
  check_equal(run1("Sub", {{a}, {c}}),
              ref_broadcast({&a, &c}, f32, [](auto v) { return v[0] - v[1]; }));
  check_equal(run1("Mul", {{b}, {c}}),
              ref_broadcast({&b, &c}, f32, [](auto v) { return v[0] * v[1]; }));
  NDArray nz = values({4}, {1, 2, 4, -8});
  check_equal(run1("Div", {{a}, {nz}}),
              ref_broadcast({&a, &nz}, f32, [](auto v) { return v[0] / v[1]; }));
  // Opset 6's broadcast=1 with axis aligns B from that axis of A.
  NDArray mid = ints({3}, 6);
  NDArray legacy = run1("Add", {{a}, {mid}}, {{"broadcast", int64_t{1}}, {"axis", int64_t{1}}}, 6);
  NDArray mid_col = values({3, 1}, as_vector(mid));
  check_equal(legacy, ref_broadcast({&a, &mid_col}, f32, [](auto v) { return v[0] + v[1]; }));
  CHECK_THROWS_WITH(run1("Add", {{a}, {mid}}, {{"broadcast", int64_t{1}}, {"axis", int64_t{3}}}, 6),
                    Catch::Contains("axis 3 does not place B's 1 dimensions"));
  // A constant operand is read as an immediate.
  check_equal(run1("Mul", {{a}, constant(scalar(3))}),
              ref_broadcast({&a}, f32, [](auto v) { return v[0] * 3; }));
}

TEST_CASE("integer arithmetic: Div truncates toward zero", "[onnx-ops-a]") {
  DataType i64 = DataType::int64();
  NDArray a = values({4}, {7, -7, 7, -7}, i64), b = values({4}, {2, 2, -2, -2}, i64);
  NDArray q = run1("Div", {{a}, {b}});
  CHECK(q.dtype() == i64);
  CHECK(as_vector(q) == std::vector<double>{3, -3, -3, 3});
  NDArray i32a = values({3}, {1, 2, 3}, DataType::int32());
  CHECK(as_vector(run1("Add", {{i32a}, constant(scalar(10, DataType::int32()))})) ==
        std::vector<double>{11, 12, 13});
  CHECK(as_vector(run1("Mul", {{a}, {b}})) == std::vector<double>{14, -14, -14, 14});
  CHECK_THROWS_WITH(run1("Add", {{a}, {i32a}}),
                    Catch::Contains("node 'n' (Add): inputs have different types"));
  CHECK_THROWS_WITH(run1("Add", {{ints({2, 3})}, {ints({4, 3})}}),
                    Catch::Contains("do not broadcast"));
}

TEST_CASE("Pow special-cases constant exponents", "[onnx-ops-a]") {
  NDArray x = values({4}, {0, 1, 4, 9});
  CHECK(as_vector(run1("Pow", {{x}, constant(scalar(2))})) == std::vector<double>{0, 1, 16, 81});
  CHECK(as_vector(run1("Pow", {{x}, constant(scalar(0.5))})) == std::vector<double>{0, 1, 2, 3});
  CHECK(as_vector(run1("Pow", {{x}, constant(scalar(1))})) == std::vector<double>{0, 1, 4, 9});
  CHECK(as_vector(run1("Pow", {{x}, constant(scalar(3))})) == std::vector<double>{0, 1, 64, 729});
  Built b = build_node("Pow", {{x}, constant(scalar(2))});
  CHECK(print_func(b.f, "k").find("T.pow") == std::string::npos);
  // A run-time exponent, broadcast, of an integer type.
  NDArray e = values({2, 1}, {2, 3}, DataType::int64());
  CHECK(as_vector(run1("Pow", {{x}, {e}})) == std::vector<double>{0, 1, 16, 81, 0, 1, 64, 729});
}

TEST_CASE("activations", "[onnx-ops-a]") {
  NDArray x = values({6}, {-3, -1, -0.5, 0, 0.5, 2});
  auto map = [&](std::function<double(double)> f) {
    return ref_broadcast({&x}, f32, [f](auto v) { return static_cast<float>(f(v[0])); });
  };
  check_equal(run1("Relu", {{x}}), map([](double v) { return std::max(v, 0.0); }));
  check_equal(run1("LeakyRelu", {{x}}, {{"alpha", 0.25}}),
              map([](double v) { return v < 0 ? v * 0.25 : v; }));
  check_equal(run1("Neg", {{x}}), map([](double v) { return -v; }));
  check_equal(run1("Abs", {{x}}), map([](double v) { return std::fabs(v); }));
  check_equal(run1("Floor", {{x}}), map([](double v) { return std::floor(v); }));
  check_equal(run1("Ceil", {{x}}), map([](double v) { return std::ceil(v); }));
  check_close(run1("Sigmoid", {{x}}), map([](double v) { return 1 / (1 + std::exp(-v)); }));
  check_close(run1("Tanh", {{x}}), map([](double v) { return std::tanh(v); }));
  check_close(run1("Erf", {{x}}), map([](double v) { return std::erf(v); }));
  check_close(run1("Exp", {{x}}), map([](double v) { return std::exp(v); }));
  NDArray p = values({3}, {0.5, 1, 4});
  check_close(run1("Log", {{p}}), ref_broadcast({&p}, f32, [](auto v) { return std::log(v[0]); }));
  check_close(run1("Sqrt", {{p}}),
              ref_broadcast({&p}, f32, [](auto v) { return std::sqrt(v[0]); }));
  check_close(run1("Reciprocal", {{p}}), ref_broadcast({&p}, f32, [](auto v) { return 1 / v[0]; }));
  check_close(run1("Gelu", {{x}}),
              map([](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); }));
  check_close(run1("Gelu", {{x}}, {{"approximate", std::string("tanh")}}), map([](double v) {
                return 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
              }));
  CHECK_THROWS_WITH(run1("Gelu", {{x}}, {{"approximate", std::string("fast")}}),
                    Catch::Contains("node 'n' (Gelu): attribute 'approximate'"));
  CHECK_THROWS_WITH(run1("Sigmoid", {{values({1}, {1}, DataType::int64())}}),
                    Catch::Contains("floating-point tensors only"));
  CHECK_THROWS_WITH(run1("LeakyRelu", {{x}}, {{"alpha", std::string("x")}}),
                    Catch::Contains("'alpha' must be a float"));
  // Relu and Neg on integers.
  NDArray i = values({3}, {-2, 0, 5}, DataType::int32());
  CHECK(as_vector(run1("Relu", {{i}})) == std::vector<double>{0, 0, 5});
  CHECK(as_vector(run1("Neg", {{i}})) == std::vector<double>{2, 0, -5});
}

TEST_CASE("more activations", "[onnx-ops-a]") {
  NDArray x = values({7}, {-3, -1, -0.5, 0, 0.5, 2.5, 4});
  auto map = [&](std::function<double(double)> f) {
    return ref_broadcast({&x}, f32, [f](auto v) { return static_cast<float>(f(v[0])); });
  };
  check_equal(run1("Round", {{x}}), map([](double v) { return std::nearbyint(v); }));
  check_equal(run1("Sign", {{x}}), map([](double v) { return v > 0 ? 1.0 : v < 0 ? -1.0 : 0.0; }));
  check_close(run1("Softplus", {{x}}), map([](double v) { return std::log(std::exp(v) + 1); }));
  check_close(run1("Softsign", {{x}}), map([](double v) { return v / (1 + std::fabs(v)); }));
  check_close(run1("HardSigmoid", {{x}}, {{"alpha", 0.25}}),
              map([](double v) { return std::clamp(0.25 * v + 0.5, 0.0, 1.0); }));
  check_close(run1("HardSwish", {{x}}),
              map([](double v) { return v * std::clamp(v / 6 + 0.5, 0.0, 1.0); }));
  check_close(run1("Elu", {{x}}, {{"alpha", 2.0}}),
              map([](double v) { return v < 0 ? 2 * (std::exp(v) - 1) : v; }));
  check_close(run1("Selu", {{x}}), map([](double v) {
                return 1.0507009873554805 * (v <= 0 ? 1.6732632423543772 * (std::exp(v) - 1) : v);
              }));
  check_equal(run1("ThresholdedRelu", {{x}}, {{"alpha", 0.5}}),
              map([](double v) { return v > 0.5 ? v : 0; }));
  check_close(run1("Celu", {{x}}, {{"alpha", 2.0}}), map([](double v) {
                return std::max(v, 0.0) + std::min(0.0, 2 * (std::exp(v / 2) - 1));
              }));
  NDArray px = ints({2, 3}, 7), slope = values({3}, {0.5, 2, -1});
  check_equal(run1("PRelu", {{px}, {slope}}), ref_broadcast({&px, &slope}, f32, [](auto v) {
                return v[0] < 0 ? v[0] * v[1] : v[0];
              }));
  CHECK_THROWS_WITH(run1("PRelu", {{slope}, {px}}),
                    Catch::Contains("slope does not broadcast to X"));
}

TEST_CASE("variadic Min, Max, Sum, Mean; Mod; CastLike", "[onnx-ops-a]") {
  NDArray a = ints({2, 3}, 8), b = ints({3}, 9), c = ints({2, 1}, 10);
  check_equal(run1("Max", {{a}, {b}, {c}}), ref_broadcast({&a, &b, &c}, f32, [](auto v) {
                return std::max({v[0], v[1], v[2]});
              }));
  check_equal(run1("Min", {{a}, {b}}),
              ref_broadcast({&a, &b}, f32, [](auto v) { return std::min(v[0], v[1]); }));
  check_equal(run1("Sum", {{a}, {b}, {c}}),
              ref_broadcast({&a, &b, &c}, f32, [](auto v) { return v[0] + v[1] + v[2]; }));
  check_close(run1("Mean", {{a}, {c}}),
              ref_broadcast({&a, &c}, f32, [](auto v) { return (v[0] + v[1]) / 2; }));
  check_equal(run1("Max", {{a}}), a);
  DataType i32 = DataType::int32();
  NDArray x = values({4}, {7, -7, 7, -7}, i32), y = values({4}, {3, 3, -3, -3}, i32);
  CHECK(as_vector(run1("Mod", {{x}, {y}})) == std::vector<double>{1, 2, -2, -1});
  CHECK(as_vector(run1("Mod", {{x}, {y}}, {{"fmod", int64_t{1}}})) ==
        std::vector<double>{1, -1, 1, -1});
  NDArray fx = values({2}, {7.5, -7.5}), fy = values({2}, {2, 2});
  CHECK(as_vector(run1("Mod", {{fx}, {fy}}, {{"fmod", int64_t{1}}})) ==
        std::vector<double>{1.5, -1.5});
  CHECK_THROWS_WITH(run1("Mod", {{fx}, {fy}}), Catch::Contains("fmod must be 1"));
  NDArray like = values({1}, {0}, DataType::int64());
  NDArray cast = run1("CastLike", {{values({2}, {2.9, -2.9})}, {like}});
  CHECK(cast.dtype() == DataType::int64());
  CHECK(as_vector(cast) == std::vector<double>{2, -2});
}

TEST_CASE("Clip: attributes before opset 11, optional inputs after", "[onnx-ops-a]") {
  NDArray x = values({5}, {-5, -1, 0, 1, 5});
  CHECK(as_vector(run1("Clip", {{x}}, {{"min", -2.0}, {"max", 2.0}}, 6)) ==
        std::vector<double>{-2, -1, 0, 1, 2});
  CHECK(as_vector(run1("Clip", {{x}}, {{"max", 0.5}}, 6)) ==
        std::vector<double>{-5, -1, 0, 0.5, 0.5});
  CHECK(as_vector(run1("Clip", {{x}, constant(scalar(-1)), constant(scalar(3))}, {}, 13)) ==
        std::vector<double>{-1, -1, 0, 1, 3});
  CHECK(as_vector(run1("Clip", {{x}, omitted(), constant(scalar(0))}, {}, 13)) ==
        std::vector<double>{-5, -1, 0, 0, 0});
  CHECK(as_vector(run1("Clip", {{x}}, {}, 13)) == std::vector<double>{-5, -1, 0, 1, 5});
  // A bound computed at run time is read from its scalar buffer.
  CHECK(as_vector(run1("Clip", {{x}, {scalar(-4)}}, {}, 13)) ==
        std::vector<double>{-4, -1, 0, 1, 5});
  CHECK_THROWS_WITH(run1("Clip", {{x}, {values({2}, {0, 1})}}, {}, 13),
                    Catch::Contains("input 'x1' (min) must be a scalar"));
}

TEST_CASE("Where, comparisons, logic and Cast", "[onnx-ops-a]") {
  DataType b8 = DataType::boolean();
  NDArray c = values({2, 1}, {1, 0}, b8), a = ints({3}, 4), b = ints({2, 3}, 5);
  check_equal(run1("Where", {{c}, {a}, {b}}),
              ref_broadcast({&c, &a, &b}, f32, [](auto v) { return v[0] != 0 ? v[1] : v[2]; }));
  CHECK_THROWS_WITH(run1("Where", {{a}, {a}, {b}}), Catch::Contains("condition must be bool"));
  NDArray lt = run1("Less", {{a}, {b}});
  CHECK(lt.dtype() == b8);
  check_equal(lt, ref_broadcast({&a, &b}, b8, [](auto v) { return v[0] < v[1]; }));
  check_equal(run1("Equal", {{a}, {b}}),
              ref_broadcast({&a, &b}, b8, [](auto v) { return v[0] == v[1]; }));
  check_equal(run1("Greater", {{a}, {b}}),
              ref_broadcast({&a, &b}, b8, [](auto v) { return v[0] > v[1]; }));
  NDArray p = values({4}, {1, 1, 0, 0}, b8), q = values({4}, {1, 0, 1, 0}, b8);
  CHECK(as_vector(run1("Not", {{p}})) == std::vector<double>{0, 0, 1, 1});
  CHECK(as_vector(run1("And", {{p}, {q}})) == std::vector<double>{1, 0, 0, 0});
  CHECK(as_vector(run1("Or", {{p}, {q}})) == std::vector<double>{1, 1, 1, 0});
  CHECK(as_vector(run1("Xor", {{p}, {q}})) == std::vector<double>{0, 1, 1, 0});

  NDArray f = values({5}, {-2.7, -0.5, 0, 1.5, 3.9});
  NDArray to_int = run1("Cast", {{f}}, {{"to", int64_t{7}}});
  CHECK(to_int.dtype() == DataType::int64());
  CHECK(as_vector(to_int) == std::vector<double>{-2, 0, 0, 1, 3});
  NDArray to_bool = run1("Cast", {{f}}, {{"to", int64_t{9}}});
  CHECK(to_bool.dtype() == b8);
  CHECK(as_vector(to_bool) == std::vector<double>{1, 1, 0, 1, 1});
  CHECK(as_vector(run1("Cast", {{p}}, {{"to", int64_t{1}}})) == std::vector<double>{1, 1, 0, 0});
  CHECK_THROWS_WITH(run1("Cast", {{f}}, {{"to", int64_t{8}}}),
                    Catch::Contains("node 'n' (Cast): Cast to STRING"));
  CHECK_THROWS_WITH(run1("Cast", {{f}}), Catch::Contains("missing required attribute 'to'"));
  // Cast-19 and -21: the same on tirc's types (saturate only concerns float8).
  CHECK(as_vector(run1("Cast", {{f}}, {{"to", int64_t{6}}, {"saturate", int64_t{1}}}, 19)) ==
        std::vector<double>{-2, 0, 0, 1, 3});
  CHECK(as_vector(run1("CastLike", {{f}, {values({1}, {0}, DataType::int32())}}, {}, 21)) ==
        std::vector<double>{-2, 0, 0, 1, 3});
  // The float8 and 4-bit types they add are refused by name.
  CHECK_THROWS_WITH(run1("Cast", {{f}}, {{"to", int64_t{17}}}, 19),
                    Catch::Contains("Cast to data type FLOAT8E4M3FN is not supported"));
  CHECK_THROWS_WITH(run1("Cast", {{f}}, {{"to", int64_t{22}}}, 21),
                    Catch::Contains("Cast to data type INT4 is not supported"));
  CHECK_THROWS_WITH(run1("Cast", {{f}}, {{"to", int64_t{1} << 33}}),
                    Catch::Contains("Cast to data type 8589934592 is not supported"));
}

// ---- Conv, ConvTranspose -------------------------------------------------------------

TEST_CASE("Conv 1-D/2-D/3-D with groups, dilations, strides and pads", "[onnx-ops-a]") {
  struct Case {
    Shape x, w;
    int64_t group;
    Geometry g;
    bool bias;
  };
  std::vector<Case> cases = {
      {{1, 2, 7}, {3, 2, 3}, 1, {{}, {2}, {1}, {1}, {2}}, true},
      {{2, 4, 6, 5}, {6, 2, 3, 2}, 2, {{}, {1, 2}, {2, 1}, {2, 0}, {1, 1}}, true},
      {{1, 3, 5, 5}, {3, 1, 3, 3}, 3, {{}, {1, 1}, {1, 1}, {1, 1}, {1, 1}}, false},  // depthwise
      {{1, 2, 4, 4, 3}, {2, 2, 2, 2, 2}, 1, {{}, {1, 2, 1}, {1, 1, 2}, {0, 1, 0}, {1, 0, 1}}, true},
  };
  for (size_t n = 0; n < cases.size(); ++n) {
    const Case& c = cases[n];
    INFO("case " << n);
    NDArray x = ints(c.x, 10 + n), w = ints(c.w, 20 + n), b = ints({c.w[0]}, 30 + n);
    std::vector<int64_t> pads = c.g.pad_begin;
    pads.insert(pads.end(), c.g.pad_end.begin(), c.g.pad_end.end());
    std::map<std::string, AttrValue> attrs{{"group", c.group},
                                           {"strides", ints_attr(c.g.strides)},
                                           {"dilations", ints_attr(c.g.dilations)},
                                           {"pads", ints_attr(pads)}};
    std::vector<In> ins{{x}, {w}};
    if (c.bias) ins.push_back({b});
    check_equal(run1("Conv", ins, attrs), ref_conv(x, w, c.bias ? &b : nullptr, c.group, c.g));
  }
}

TEST_CASE("Conv auto_pad and attribute checks", "[onnx-ops-a]") {
  NDArray x = ints({1, 1, 5, 6}, 3), w = ints({2, 1, 3, 3}, 4);
  // SAME_UPPER with stride 2: out ceil(5/2)=3, ceil(6/2)=3; total pad 2 and 1.
  NDArray upper = run1("Conv", {{x}, {w}},
                       {{"auto_pad", std::string("SAME_UPPER")}, {"strides", ints_attr({2, 2})}});
  check_equal(upper, ref_conv(x, w, nullptr, 1, {{}, {2, 2}, {1, 1}, {1, 0}, {1, 1}}));
  NDArray lower_ = run1("Conv", {{x}, {w}},
                        {{"auto_pad", std::string("SAME_LOWER")}, {"strides", ints_attr({2, 2})}});
  check_equal(lower_, ref_conv(x, w, nullptr, 1, {{}, {2, 2}, {1, 1}, {1, 1}, {1, 0}}));
  NDArray valid = run1("Conv", {{x}, {w}},
                       {{"auto_pad", std::string("VALID")}, {"pads", ints_attr({1, 1, 1, 1})}});
  check_equal(valid, ref_conv(x, w, nullptr, 1, {{}, {1, 1}, {1, 1}, {0, 0}, {0, 0}}));
  CHECK_THROWS_WITH(
      run1("Conv", {{x}, {w}}, {{"kernel_shape", ints_attr({2, 2})}}),
      Catch::Contains(
          "node 'n' (Conv): kernel_shape [2, 2] does not match W's spatial shape [3, 3]"));
  CHECK_THROWS_WITH(run1("Conv", {{x}, {w}}, {{"strides", ints_attr({1})}}),
                    Catch::Contains("attribute 'strides' has 1 values"));
  CHECK_THROWS_WITH(run1("Conv", {{x}, {w}}, {{"group", int64_t{2}}}),
                    Catch::Contains("group 2 must divide"));
  CHECK_THROWS_WITH(run1("Conv", {{x}, {w}}, {{"auto_pad", std::string("SAME")}}),
                    Catch::Contains("unknown auto_pad 'SAME'"));
  CHECK_THROWS_WITH(run1("Conv", {{x}, {ints({2, 1, 7, 3})}}),
                    Catch::Contains("larger than the padded input"));
}

TEST_CASE("ConvTranspose: strides, dilations, pads, groups, output_padding, output_shape",
          "[onnx-ops-a]") {
  struct Case {
    Shape x, w;
    int64_t group;
    Geometry g;
    std::vector<int64_t> output_padding;
    bool bias;
  };
  std::vector<Case> cases = {
      {{1, 2, 4}, {2, 3, 3}, 1, {{}, {2}, {1}, {1}, {0}}, {1}, true},
      {{1, 4, 3, 3}, {4, 1, 3, 2}, 2, {{}, {3, 2}, {1, 2}, {1, 0}, {2, 1}}, {0, 1}, true},
      {{2, 1, 2, 3, 2},
       {1, 2, 2, 2, 2},
       1,
       {{}, {1, 2, 2}, {2, 1, 1}, {0, 0, 1}, {0, 1, 0}},
       {0, 0, 1},
       false},
  };
  for (size_t n = 0; n < cases.size(); ++n) {
    const Case& c = cases[n];
    INFO("case " << n);
    NDArray x = ints(c.x, 40 + n), w = ints(c.w, 50 + n), b = ints({c.w[1] * c.group}, 60 + n);
    std::vector<int64_t> pads = c.g.pad_begin;
    pads.insert(pads.end(), c.g.pad_end.begin(), c.g.pad_end.end());
    Shape out;
    for (size_t d = 0; d + 2 < c.x.size(); ++d)
      out.push_back(c.g.strides[d] * (c.x[d + 2] - 1) + c.output_padding[d] +
                    (c.w[d + 2] - 1) * c.g.dilations[d] + 1 - c.g.pad_begin[d] - c.g.pad_end[d]);
    std::map<std::string, AttrValue> attrs{{"group", c.group},
                                           {"strides", ints_attr(c.g.strides)},
                                           {"dilations", ints_attr(c.g.dilations)},
                                           {"pads", ints_attr(pads)},
                                           {"output_padding", ints_attr(c.output_padding)}};
    std::vector<In> ins{{x}, {w}};
    if (c.bias) ins.push_back({b});
    check_equal(run1("ConvTranspose", ins, attrs),
                ref_conv_transpose(x, w, c.bias ? &b : nullptr, c.group, c.g, out));
  }
  // output_shape 10 x 8 from 3 x 3 with strides 3, 2: full size 9 x 7, the
  // extra row and column at the end (no padding at the start).
  NDArray x = ints({1, 1, 3, 3}, 70), w = ints({1, 2, 3, 3}, 71);
  NDArray y = run1("ConvTranspose", {{x}, {w}},
                   {{"strides", ints_attr({3, 2})}, {"output_shape", ints_attr({10, 8})}});
  check_equal(y,
              ref_conv_transpose(x, w, nullptr, 1, {{}, {3, 2}, {1, 1}, {0, 0}, {0, 0}}, {10, 8}));
  CHECK_THROWS_WITH(run1("ConvTranspose", {{x}, {ints({2, 2, 3, 3})}}),
                    Catch::Contains("W has 2 input channels"));
}

// ---- Gemm, MatMul ----------------------------------------------------------------------

TEST_CASE("Gemm with alpha, beta, transposes and broadcast C", "[onnx-ops-a]") {
  NDArray a = ints({4, 3}, 80), b = ints({5, 4}, 81);
  for (Shape cs : {Shape{}, Shape{5}, Shape{3, 1}, Shape{3, 5}}) {
    NDArray c = ints(cs, 82);
    NDArray y =
        run1("Gemm", {{a}, {b}, {c}},
             {{"transA", int64_t{1}}, {"transB", int64_t{1}}, {"alpha", 0.5}, {"beta", 2.0}});
    REQUIRE(y.shape() == Shape{3, 5});
    NDArray want(f32, {3, 5});
    for (int64_t m = 0; m < 3; ++m)
      for (int64_t n = 0; n < 5; ++n) {
        double s = 0;
        for (int64_t k = 0; k < 4; ++k) s += a.get_float(k * 3 + m) * b.get_float(n * 4 + k);
        int64_t ci = cs.empty() ? 0 : cs.size() == 1 ? n : cs[1] == 1 ? m : m * 5 + n;
        want.set_float(m * 5 + n, 0.5 * s + 2 * c.get_float(ci));
      }
    check_equal(y, want);
  }
  NDArray plain = run1("Gemm", {{ints({2, 3}, 1)}, {ints({3, 2}, 2)}});
  CHECK(plain.shape() == Shape{2, 2});
  CHECK_THROWS_WITH(run1("Gemm", {{a}, {b}}),
                    Catch::Contains("node 'n' (Gemm): inner dimensions differ"));
}

TEST_CASE("MatMul and Gemm of float16: products summed in float32, rounded once", "[onnx-ops-a]") {
  // 2048 + 1 + 1: in float16 each step rounds back to 2048 (spacing 2 there);
  // in float32 the sum is 2050, which float16 holds exactly.
  for (DataType t : {DataType::float16(), DataType::bfloat16()}) {
    INFO(t.str());
    const double big = t == DataType::float16() ? 2048 : 256;  // bfloat16: spacing 2 at 256
    NDArray a = values({1, 3}, {big, 1, 1}, t), b = values({3, 1}, {1, 1, 1}, t);
    NDArray y = run1("MatMul", {{a}, {b}});
    CHECK(y.dtype() == t);
    CHECK(as_vector(y) == std::vector<double>{big + 2});
    NDArray g = run1("Gemm", {{a}, {b}, {values({1}, {1}, t)}});
    // + C (1): big + 3 is halfway, and rounds to the even neighbour, big + 4.
    CHECK(as_vector(g) == std::vector<double>{big + 4});
  }
}

TEST_CASE("Conv and ConvTranspose of float16: products summed in float32, rounded once",
          "[onnx-ops-a]") {
  // As for MatMul: big + 1 + 1 summed over three input channels (or taps).
  for (DataType t : {DataType::float16(), DataType::bfloat16()}) {
    INFO(t.str());
    const double big = t == DataType::float16() ? 2048 : 256;
    const std::vector<double> three{big, 1, 1};
    // 1x1 over three channels (a pointwise convolution).
    NDArray y =
        run1("Conv", {{values({1, 3, 1, 1}, three, t)}, {values({1, 3, 1, 1}, {1, 1, 1}, t)}});
    CHECK(y.dtype() == t);
    CHECK(as_vector(y) == std::vector<double>{big + 2});
    // Three taps of a 1x3 window (im2col), with a bias of 1: big + 3 rounds to big + 4.
    NDArray taps = run1("Conv", {{values({1, 1, 1, 3}, three, t)},
                                 {values({1, 1, 1, 3}, {1, 1, 1}, t)},
                                 {values({1}, {1}, t)}});
    CHECK(as_vector(taps) == std::vector<double>{big + 4});
    // Depthwise (group 2): each channel's three taps.
    NDArray dw = run1("Conv",
                      {{values({1, 2, 1, 3}, {big, 1, 1, 1, 1, big}, t)},
                       {values({2, 1, 1, 3}, {1, 1, 1, 1, 1, 1}, t)}},
                      {{"group", int64_t{2}}});
    CHECK(as_vector(dw) == std::vector<double>{big + 2, big + 2});
    NDArray tr = run1("ConvTranspose",
                      {{values({1, 3, 1, 1}, three, t)}, {values({3, 1, 1, 1}, {1, 1, 1}, t)}});
    CHECK(as_vector(tr) == std::vector<double>{big + 2});
  }
}

TEST_CASE("MatMul: 1-D promotion and batch broadcasting", "[onnx-ops-a]") {
  auto ref = [](const NDArray& a, const NDArray& b) {
    Shape sa = a.shape(), sb = b.shape();
    bool av = sa.size() == 1, bv = sb.size() == 1;
    if (av) sa.insert(sa.begin(), 1);
    if (bv) sb.push_back(1);
    Shape ba(sa.begin(), sa.end() - 2), bb(sb.begin(), sb.end() - 2);
    Shape batch = broadcast_shapes({ba, bb});
    int64_t M = sa[sa.size() - 2], K = sa.back(), N = sb.back();
    Shape os = batch;
    if (!av) os.push_back(M);
    if (!bv) os.push_back(N);
    NDArray y(f32, os);
    for (int64_t bi = 0; bi < count(batch); ++bi) {
      auto idx = unravel(bi, batch);
      auto pick = [&](const Shape& s) {
        std::vector<int64_t> r;
        size_t lead = batch.size() - s.size();
        for (size_t d = 0; d < s.size(); ++d) r.push_back(s[d] == 1 ? 0 : idx[lead + d]);
        return ravel(r, s);
      };
      int64_t oa = pick(ba) * M * K, ob = pick(bb) * K * N;
      for (int64_t m = 0; m < M; ++m)
        for (int64_t n = 0; n < N; ++n) {
          double s = 0;
          for (int64_t k = 0; k < K; ++k)
            s += a.get_float(oa + m * K + k) * b.get_float(ob + k * N + n);
          y.set_float((bi * M + m) * N + n, s);
        }
    }
    return y;
  };
  std::vector<std::pair<Shape, Shape>> shapes = {
      {{3, 4}, {4, 5}},          {{4}, {4, 5}},      {{3, 4}, {4}}, {{4}, {4}},
      {{2, 1, 3, 4}, {5, 4, 2}}, {{3, 4}, {2, 4, 1}}};
  for (size_t n = 0; n < shapes.size(); ++n) {
    INFO("case " << n);
    NDArray a = ints(shapes[n].first, 90 + n), b = ints(shapes[n].second, 95 + n);
    check_equal(run1("MatMul", {{a}, {b}}), ref(a, b));
  }
  NDArray ia = values({2, 2}, {1, 2, 3, 4}, DataType::int64());
  CHECK(as_vector(run1("MatMul", {{ia}, {ia}})) == std::vector<double>{7, 10, 15, 22});
  CHECK_THROWS_WITH(run1("MatMul", {{ints({3, 4})}, {ints({5, 2})}}),
                    Catch::Contains("inner dimensions differ"));
  CHECK_THROWS_WITH(run1("MatMul", {{ints({2, 3, 4})}, {ints({3, 4, 2})}}),
                    Catch::Contains("batch dimensions"));
}

// ---- pooling, BatchNormalization --------------------------------------------------------

TEST_CASE("MaxPool and AveragePool with pads, strides, dilations and ceil_mode", "[onnx-ops-a]") {
  struct Case {
    Shape x;
    Geometry g;
    bool ceil;
    bool include_pad;
    Shape out;
  };
  std::vector<Case> cases = {
      {{1, 2, 7}, {{3}, {2}, {1}, {1}, {1}}, false, false, {4}},
      {{1, 1, 6, 5}, {{3, 2}, {2, 2}, {1, 1}, {1, 0}, {1, 0}}, true, false, {4, 3}},
      {{1, 1, 6, 5}, {{3, 2}, {2, 2}, {1, 1}, {1, 0}, {1, 0}}, true, true, {4, 3}},
      {{2, 2, 5, 5}, {{2, 2}, {1, 2}, {1, 1}, {0, 1}, {1, 1}}, false, true, {5, 3}},
      {{1, 1, 3, 4, 4},
       {{2, 2, 3}, {1, 2, 1}, {1, 1, 1}, {0, 1, 1}, {0, 1, 1}},
       false,
       false,
       {2, 3, 4}},
  };
  for (size_t n = 0; n < cases.size(); ++n) {
    const Case& c = cases[n];
    INFO("case " << n);
    NDArray x = ints(c.x, 100 + n);
    std::vector<int64_t> pads = c.g.pad_begin;
    pads.insert(pads.end(), c.g.pad_end.begin(), c.g.pad_end.end());
    std::map<std::string, AttrValue> attrs{{"kernel_shape", ints_attr(c.g.kernel)},
                                           {"strides", ints_attr(c.g.strides)},
                                           {"pads", ints_attr(pads)},
                                           {"ceil_mode", int64_t{c.ceil}}};
    check_equal(run1("MaxPool", {{x}}, attrs), ref_pool(x, false, false, c.g, c.out));
    attrs["count_include_pad"] = int64_t{c.include_pad};
    check_close(run1("AveragePool", {{x}}, attrs), ref_pool(x, true, c.include_pad, c.g, c.out));
  }
  // Dilated max pooling (opset 10+).
  NDArray x = ints({1, 1, 7, 7}, 110);
  Geometry g{{2, 2}, {1, 1}, {2, 3}, {0, 0}, {0, 0}};
  check_equal(run1("MaxPool", {{x}},
                   {{"kernel_shape", ints_attr({2, 2})}, {"dilations", ints_attr({2, 3})}}),
              ref_pool(x, false, false, g, {5, 4}));
  check_close(run1("AveragePool", {{x}},
                   {{"kernel_shape", ints_attr({2, 2})}, {"dilations", ints_attr({2, 3})}}),
              ref_pool(x, true, false, g, {5, 4}));
  // storage_order only affects the (refused) Indices output.
  check_equal(run1("MaxPool", {{x}},
                   {{"kernel_shape", ints_attr({2, 2})},
                    {"dilations", ints_attr({2, 3})},
                    {"storage_order", int64_t{1}}}),
              ref_pool(x, false, false, g, {5, 4}));
  // SAME_UPPER: out = ceil(7 / 2) = 4, total pad 1 at the end.
  check_close(run1("AveragePool", {{x}},
                   {{"kernel_shape", ints_attr({2, 2})},
                    {"strides", ints_attr({2, 2})},
                    {"auto_pad", std::string("SAME_UPPER")}}),
              ref_pool(x, true, false, {{2, 2}, {2, 2}, {1, 1}, {0, 0}, {1, 1}}, {4, 4}));
  CHECK_THROWS_WITH(
      run1("MaxPool", {{x}}),
      Catch::Contains("node 'n' (MaxPool): missing required attribute 'kernel_shape'"));
  CHECK_THROWS_WITH(run1("MaxPool", {{x}}, {{"kernel_shape", ints_attr({2})}}),
                    Catch::Contains("kernel_shape [2] must have one value per spatial dimension"));
  Graph gr;
  KernelBuilder k("k");
  Node node;
  node.name = "mp";
  node.op_type = "MaxPool";
  node.inputs = {"x"};
  node.outputs = {"y", "idx"};
  node.attrs["kernel_shape"] = ints_attr({2, 2});
  OpContext ctx(gr, node,
                {TensorValue::of_buffer(k.add_param("x", f32, {1, 1, 4, 4}), {1, 1, 4, 4})}, k);
  CHECK_THROWS_WITH(find_op("", "MaxPool")->build(ctx),
                    Catch::Contains("node 'mp' (MaxPool): the Indices output is not supported"));
}

TEST_CASE("global pooling", "[onnx-ops-a]") {
  NDArray x = ints({2, 3, 4, 2}, 120);
  NDArray avg = run1("GlobalAveragePool", {{x}}), mx = run1("GlobalMaxPool", {{x}});
  REQUIRE(avg.shape() == Shape{2, 3, 1, 1});
  for (int64_t nc = 0; nc < 6; ++nc) {
    double s = 0, m = -INFINITY;
    for (int64_t i = 0; i < 8; ++i) {
      s += x.get_float(nc * 8 + i);
      m = std::max(m, x.get_float(nc * 8 + i));
    }
    CHECK(avg.get_float(nc) == static_cast<float>(s / 8));
    CHECK(mx.get_float(nc) == m);
  }
}

TEST_CASE("BatchNormalization (inference)", "[onnx-ops-a]") {
  NDArray x = ints({2, 3, 2, 2}, 130);
  NDArray scale = values({3}, {1, 2, 0.5}), bias = values({3}, {0, 1, -1}),
          mean = values({3}, {0, 1, 2}), var = values({3}, {1, 3, 0.25});
  NDArray y = run1("BatchNormalization", {{x}, {scale}, {bias}, {mean}, {var}}, {{"epsilon", 0.0}});
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    int64_t c = (i / 4) % 3;
    float want =
        static_cast<float>((x.get_float(i) - mean.get_float(c)) / std::sqrt(var.get_float(c))) *
            static_cast<float>(scale.get_float(c)) +
        static_cast<float>(bias.get_float(c));
    CHECK(y.get_float(i) == Approx(want).epsilon(1e-6));
  }
  CHECK_THROWS_WITH(run1("BatchNormalization", {{x}, {scale}, {bias}, {mean}, {var}},
                         {{"training_mode", int64_t{1}}}),
                    Catch::Contains("training_mode 1 is not supported"));
  CHECK_THROWS_WITH(run1("BatchNormalization", {{x}, {values({2}, {1, 1})}, {bias}, {mean}, {var}}),
                    Catch::Contains("scale has shape [2], expected [3]"));
}

// ---- code generation ----------------------------------------------------------------------

TEST_CASE("operator kernels lower and compile for x86", "[onnx-ops-a][codegen]") {
  Target target{Isa::avx2};
  if (!host_supports(target)) TIRC_SKIP("this CPU lacks " << target.name());
  NDArray x4 = ints({1, 2, 6, 6}, 1), w4 = ints({4, 2, 3, 3}, 2), b4 = ints({4}, 3);
  std::vector<std::tuple<std::string, std::vector<In>, std::map<std::string, AttrValue>>> nodes = {
      {"Add", {{x4}, {ints({6}, 4)}}, {}},
      {"Relu", {{x4}}, {}},
      {"Sigmoid", {{x4}}, {}},
      {"Tanh", {{x4}}, {}},
      {"Erf", {{x4}}, {}},
      {"Exp", {{x4}}, {}},
      {"Gelu", {{x4}}, {}},
      {"Pow", {{x4}, constant(scalar(2))}, {}},
      {"Clip", {{x4}, constant(scalar(0)), constant(scalar(6))}, {}},
      {"Where", {{values({1}, {1}, DataType::boolean())}, {x4}, {ints({6}, 5)}}, {}},
      {"Cast", {{x4}}, {{"to", int64_t{7}}}},
      {"Conv",
       {{x4}, {w4}, {b4}},
       {{"pads", ints_attr({1, 1, 1, 1})}, {"strides", ints_attr({2, 1})}}},
      {"Conv",
       {{x4}, {ints({2, 1, 3, 3}, 6)}},
       {{"group", int64_t{2}}, {"dilations", ints_attr({2, 2})}}},
      {"ConvTranspose",
       {{x4}, {ints({2, 3, 3, 3}, 7)}},
       {{"strides", ints_attr({2, 2})}, {"pads", ints_attr({1, 1, 1, 1})}}},
      {"Gemm", {{ints({3, 4})}, {ints({5, 4})}, {ints({5})}}, {{"transB", int64_t{1}}}},
      {"MatMul", {{ints({2, 3, 4})}, {ints({4, 5})}}, {}},
      {"MaxPool",
       {{x4}},
       {{"kernel_shape", ints_attr({3, 3})},
        {"pads", ints_attr({1, 1, 1, 1})},
        {"strides", ints_attr({2, 2})}}},
      {"AveragePool",
       {{x4}},
       {{"kernel_shape", ints_attr({3, 3})},
        {"pads", ints_attr({1, 1, 1, 1})},
        {"ceil_mode", int64_t{1}}}},
      {"GlobalAveragePool", {{x4}}, {}},
      {"BatchNormalization",
       {{x4}, {ints({2})}, {ints({2})}, {ints({2})}, {values({2}, {1, 2})}},
       {}},
  };
  for (auto& [op, ins, attrs] : nodes) {
    INFO(op);
    Built b = build_node(op, ins, attrs);
    std::vector<NDArray> want = b.run_inputs, got = b.run_inputs;
    for (const TensorValue& r : b.results) {
      want.emplace_back(r.dtype, r.shape);
      got.emplace_back(r.dtype, r.shape);
    }
    std::vector<Argument> wa, ga;
    for (size_t i = 0; i < want.size(); ++i) {
      wa.push_back({&want[i]});
      ga.push_back({&got[i]});
    }
    run(b.f, wa);
    try {
      MachineCode code = generate_x86({{"kernel", lower(b.f), ""}}, GeneratorOptions{target});
      JitModule jit(code);
      REQUIRE(call_jit(jit, "kernel", b.f, ga) == 0);
    } catch (const Error& e) {
      FAIL(op << ": " << e.what());
    }
    for (size_t i = b.run_inputs.size(); i < want.size(); ++i) check_close(got[i], want[i], 1e-5);
  }
}
