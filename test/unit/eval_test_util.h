// Builders shared by the interpreter tests: small PrimFuncs made with the IR
// construction helpers.
#pragma once

#include <string>
#include <vector>

#include "ir/eval/interpreter.h"
#include "ir/function.h"

namespace tirc::test {

inline const DataType f32 = DataType::float32();
inline const DataType i32 = DataType::int32();

inline Block make_block(std::string name, std::vector<IterVar> iters, Stmt body, Stmt init = {}) {
  auto b = std::make_shared<BlockNode>();
  b->name = std::move(name);
  b->iter_vars = std::move(iters);
  b->body = std::move(body);
  b->init = std::move(init);
  return b;
}

inline IterVar spatial(Var v, Expr min, Expr extent) {
  return {std::move(v), {std::move(min), std::move(extent)}, IterKind::DataPar, {}};
}
inline IterVar reduce(Var v, Expr min, Expr extent) {
  return {std::move(v), {std::move(min), std::move(extent)}, IterKind::Reduce, {}};
}

inline Stmt root_block(Stmt body) {
  return make_block_realize({}, make_bool(true), make_block("root", {}, std::move(body)));
}

inline PrimFunc func_of(const std::vector<Buffer>& buffers, Stmt body) {
  std::vector<Param> params;
  for (const Buffer& b : buffers) params.push_back(Param{b->data, b});
  return make_prim_func(std::move(params), std::move(body));
}

inline Stmt serial(Var v, Expr extent, Stmt body) {
  return make_for(std::move(v), 0, std::move(extent), ForKind::Serial, std::move(body));
}

// C[i, j] = sum_k A[i, k] * B[k, j] with an init block; `order` is a
// permutation of "ijk" naming the loop nest from outermost.
inline PrimFunc matmul(int n, const std::string& order = "ijk", bool add_one = false) {
  Buffer A = make_buffer("A", f32, {n, n}), B = make_buffer("B", f32, {n, n}),
         C = make_buffer("C", f32, {n, n});
  Var i = make_var("i"), j = make_var("j"), k = make_var("k");
  Var vi = make_var("vi"), vj = make_var("vj"), vk = make_var("vk");
  Expr prod = make_load(A, {vi, vk}) * make_load(B, {vk, vj});
  if (add_one) prod = prod + make_float(1.0f);
  Stmt body = make_store(C, make_load(C, {vi, vj}) + prod, {vi, vj});
  Stmt init = make_store(C, make_float(0.0), {vi, vj});
  Block blk = make_block("C", {spatial(vi, 0, n), spatial(vj, 0, n), reduce(vk, 0, n)}, body, init);
  Stmt s = make_block_realize({i, j, k}, make_bool(true), blk);
  for (auto it = order.rbegin(); it != order.rend(); ++it)
    s = serial(*it == 'i' ? i : *it == 'j' ? j : k, n, s);
  return func_of({A, B, C}, root_block(s));
}

// A function computing `value` into Out[0] (shape (1,), value's dtype).
inline PrimFunc scalar_func(const Expr& value) {
  Buffer out = make_buffer("Out", value.dtype(), {1});
  return func_of({out}, make_store(out, value, {0}));
}

inline NDArray eval_expr(const Expr& value) {
  NDArray out(value.dtype(), {1});
  run(scalar_func(value), {Argument{&out}});
  return out;
}
inline double eval_float(const Expr& value) {
  return eval_expr(value).get_float(0);
}
inline int64_t eval_int(const Expr& value) {
  return eval_expr(value).get_int(0);
}

inline std::vector<Argument> args_of(std::vector<NDArray>& arrays) {
  std::vector<Argument> args;
  for (NDArray& a : arrays) args.push_back(Argument{&a});
  return args;
}

inline RunOptions races_only() {
  RunOptions o;
  o.check_races = true;
  return o;
}

// Runs f in checking mode (`options`, whose race report this sets) on a
// copy of `inputs`; the race message, or "" when the run finds none. Any
// other error propagates.
inline std::string race_on(const PrimFunc& f, std::vector<NDArray> inputs, RunOptions options,
                           int* line = nullptr) {
  std::vector<Argument> args;
  for (NDArray& a : inputs) args.push_back({&a});
  std::string race;
  options.race = &race;
  try {
    run(f, args, options);
  } catch (const Error& e) {
    if (race.empty()) throw;
    if (line) *line = e.loc().line;
    return e.message();
  }
  return "";
}

// The same on random inputs.
inline std::string race_of(const PrimFunc& f, RunOptions options = races_only(),
                           int* line = nullptr) {
  return race_on(f, random_inputs(f, 1), options, line);
}

}  // namespace tirc::test
