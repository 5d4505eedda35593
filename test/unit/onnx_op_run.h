// Running one ONNX operator as the only node of a kernel, for the operator
// tests (onnx_ops_b_test.cpp, onnx_ops_reduce_index_test.cpp,
// onnx_ops_movement_test.cpp): host tensors and plain reference helpers, the
// one-node kernel run in the interpreter, the error it raises, and the same
// kernels compiled for both x86 targets.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "codegen/x86/generator.h"
#include "codegen/x86/jit.h"
#include "codegen/x86/target.h"
#include "ir/eval/interpreter.h"
#include "ir/onnx/op.h"
#include "passes/pipeline.h"

namespace tirc::onnx::op_test {

// ---- host tensors ---------------------------------------------------------------

inline int64_t count(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

inline std::vector<int64_t> unflat(int64_t k, const Shape& s) {
  std::vector<int64_t> idx(s.size());
  for (size_t d = s.size(); d-- > 0;) {
    idx[d] = k % s[d];
    k /= s[d];
  }
  return idx;
}

inline int64_t flat(const std::vector<int64_t>& idx, const Shape& s) {
  int64_t k = 0;
  for (size_t d = 0; d < s.size(); ++d) k = k * s[d] + idx[d];
  return k;
}

inline NDArray array(DataType t, Shape s, const std::vector<double>& v) {
  NDArray a(t, s);
  REQUIRE(static_cast<int64_t>(v.size()) == a.num_elements());
  for (size_t k = 0; k < v.size(); ++k) a.set_float(static_cast<int64_t>(k), v[k]);
  return a;
}

inline NDArray ints(const std::vector<int64_t>& v, DataType t = DataType::int64()) {
  NDArray a(t, {static_cast<int64_t>(v.size())});
  for (size_t k = 0; k < v.size(); ++k) a.set_int(static_cast<int64_t>(k), v[k]);
  return a;
}

// Deterministic data: floats in [-3, 3), integers in [-20, 20).
inline NDArray random_array(DataType t, Shape s, uint64_t seed) {
  NDArray a(t, s);
  uint64_t x = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  for (int64_t k = 0; k < a.num_elements(); ++k) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    double u = static_cast<double>(x >> 11) / static_cast<double>(1ULL << 53);
    if (t.is_float())
      a.set_float(k, u * 6 - 3);
    else if (t.is_bool())
      a.set_int(k, u < 0.5);
    else
      a.set_int(k, static_cast<int64_t>(u * 40) - 20);
  }
  return a;
}

// out[i] = in[source(i)] for every output index.
inline NDArray gather_ref(
    const NDArray& in, const Shape& out_shape,
    const std::function<std::vector<int64_t>(const std::vector<int64_t>&)>& source) {
  NDArray out(in.dtype(), out_shape);
  for (int64_t k = 0; k < out.num_elements(); ++k) {
    int64_t from = flat(source(unflat(k, out_shape)), in.shape());
    if (in.dtype().is_float())
      out.set_float(k, in.get_float(from));
    else
      out.set_int(k, in.get_int(from));
  }
  return out;
}

inline void expect_close(const NDArray& got, const NDArray& want, double rtol = 1e-5,
                         double atol = 1e-6) {
  REQUIRE(got.dtype() == want.dtype());
  REQUIRE(got.shape() == want.shape());
  for (int64_t k = 0; k < got.num_elements(); ++k) {
    INFO("element " << k);
    if (want.dtype().is_float()) {
      double g = got.get_float(k), w = want.get_float(k);
      if (std::isnan(w))
        CHECK(std::isnan(g));
      else if (std::isinf(w))
        CHECK(g == w);
      else
        CHECK(std::abs(g - w) <= atol + rtol * std::abs(w));
    } else {
      CHECK(got.get_int(k) == want.get_int(k));
    }
  }
}

// ---- one-node kernels ------------------------------------------------------------

struct Input {
  NDArray array;
  bool param = true;  // a kernel parameter the data is passed in
  bool known = true;  // the value is known at compile time (shape-like inputs)
  static Input data(NDArray a) { return {std::move(a), true, false}; }
  static Input constant(NDArray a) { return {std::move(a), false, true}; }
  static Input both(NDArray a) { return {std::move(a), true, true}; }
  static Input absent() { return {NDArray(), false, false}; }
};

using Attrs = std::map<std::string, AttrValue>;

struct NodeRun {
  std::vector<TensorValue> values;  // what the operator returned
  std::vector<NDArray> outputs;     // their contents after running the kernel
  PrimFunc func;
  std::vector<NDArray> args;  // the arrays of func's parameters, in order
};

inline Graph graph_of(int64_t opset) {
  Graph g;
  g.name = "test";
  g.opset = opset;
  return g;
}

inline Node node_of(const std::string& op, size_t n_inputs, size_t n_outputs, Attrs attrs,
                    const std::vector<bool>& present = {}) {
  Node n;
  n.name = "n";
  n.op_type = op;
  for (size_t i = 0; i < n_inputs; ++i)
    n.inputs.push_back(i < present.size() && !present[i] ? "" : "in" + std::to_string(i));
  for (size_t i = 0; i < n_outputs; ++i) n.outputs.push_back("out" + std::to_string(i));
  n.attrs = std::move(attrs);
  return n;
}

// Builds op as the only node of a kernel, runs it in the interpreter, returns the outputs.
// outputs_leave: the outputs are kernel outputs (reductions then write the parameters).
inline NodeRun run_node(const std::string& op, const std::vector<Input>& ins, Attrs attrs,
                        int64_t opset, size_t n_outputs = 1, bool outputs_leave = false) {
  const OpDef* def = find_op("", op);
  REQUIRE(def != nullptr);
  Graph g = graph_of(opset);
  std::vector<bool> present;
  for (const Input& in : ins) present.push_back(in.param || in.known);
  Node node = node_of(op, ins.size(), n_outputs, std::move(attrs), present);
  KernelBuilder kb("k_" + op);
  std::vector<TensorValue> values;
  std::map<const BufferNode*, NDArray> arrays;
  for (size_t i = 0; i < ins.size(); ++i) {
    const Input& in = ins[i];
    TensorValue v;
    if (in.param) {
      Buffer b = kb.add_param("in" + std::to_string(i), in.array.dtype(), in.array.shape());
      v = TensorValue::of_buffer(b, in.array.shape());
      arrays[b.get()] = in.array;
    }
    if (in.known) {
      auto value = std::make_shared<const NDArray>(in.array);
      if (in.param)
        v.value = value;
      else
        v = TensorValue::of_constant(value);
    }
    values.push_back(v);
  }
  OpContext ctx(g, node, values, kb, std::vector<bool>(n_outputs, outputs_leave));
  NodeRun r;
  r.values = def->build(ctx);
  REQUIRE(r.values.size() == n_outputs);
  std::vector<Buffer> outs;
  for (size_t i = 0; i < n_outputs; ++i) {
    const TensorValue& v = r.values[i];
    if (v.value && !v.buffer && !v.element) {  // known at compile time: nothing to run
      outs.push_back(nullptr);
      continue;
    }
    bool is_input = v.buffer && arrays.count(v.buffer.get()) != 0;
    if (outputs_leave && v.buffer && !is_input) {
      outs.push_back(v.buffer);
    } else {
      Buffer b = kb.add_param("out" + std::to_string(i), v.dtype, v.shape);
      kb.write_to(v, b, "write_out" + std::to_string(i));
      outs.push_back(b);
    }
    arrays[outs.back().get()] = NDArray(v.dtype, v.shape);
  }
  r.func = kb.finish();
  std::vector<Argument> args;
  for (const Param& p : r.func->params) {
    REQUIRE(p.buffer);
    auto it = arrays.find(p.buffer.get());
    REQUIRE(it != arrays.end());
    r.args.push_back(it->second);
  }
  for (NDArray& a : r.args) args.push_back({&a, 0, 0});
  run(r.func, args);
  for (size_t i = 0; i < n_outputs; ++i) {
    if (!outs[i]) {
      r.outputs.push_back(*r.values[i].value);
      continue;
    }
    for (size_t p = 0; p < r.func->params.size(); ++p)
      if (r.func->params[p].buffer.get() == outs[i].get()) r.outputs.push_back(r.args[p]);
  }
  REQUIRE(r.outputs.size() == n_outputs);
  return r;
}

// The Error message of building op, or "" when it builds.
inline std::string build_error(const std::string& op, const std::vector<Input>& ins, Attrs attrs,
                               int64_t opset, size_t n_outputs = 1) {
  try {
    run_node(op, ins, std::move(attrs), opset, n_outputs);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

inline const DataType f32 = DataType::float32();
inline const DataType i64 = DataType::int64();
inline const DataType i32 = DataType::int32();
inline constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
inline constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

// ---- the x86 code generator -----------------------------------------------------------

// One node's kernel for compile_for_x86.
struct Kernel {
  std::string op;
  std::vector<Input> ins;
  Attrs attrs;
  int64_t opset;
  size_t outputs = 1;
};

// Builds each kernel (outputs leaving it), lowers it, compiles it for AVX2 and
// AVX-512 where the host has them and checks that every parameter ends as in
// the interpreter. Returns how many (kernel, target) pairs ran.
inline int compile_for_x86(const std::vector<Kernel>& kernels) {
  int compiled = 0;
  for (const Kernel& k : kernels) {
    INFO(k.op);
    NodeRun r = run_node(k.op, k.ins, k.attrs, k.opset, k.outputs, true);
    PrimFunc lowered = lower(r.func);
    for (Isa isa : {Isa::avx2, Isa::avx512}) {
      Target t{isa};
      if (!host_supports(t)) continue;
      GeneratorOptions go;
      go.target = t;
      MachineCode mc = generate_x86({{"kernel", lowered, ""}}, go);
      JitModule jit(mc);
      std::vector<NDArray> got;
      size_t n_in = static_cast<size_t>(
          std::count_if(k.ins.begin(), k.ins.end(), [](const Input& i) { return i.param; }));
      for (size_t p = 0; p < r.func->params.size(); ++p) {
        bool input = p < n_in;
        got.push_back(input ? r.args[p] : NDArray(r.args[p].dtype(), r.args[p].shape()));
      }
      std::vector<Argument> args;
      for (NDArray& a : got) args.push_back({&a, 0, 0});
      REQUIRE(call_jit(jit, "kernel", lowered, args) == 0);
      ++compiled;
      for (size_t p = 0; p < got.size(); ++p) expect_close(got[p], r.args[p], 1e-5, 1e-6);
    }
  }
  return compiled;
}

}  // namespace tirc::onnx::op_test
