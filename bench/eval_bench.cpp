// Speed of the reference interpreter on typical kernels: it has to be fast
// enough to serve as the oracle in every test. Prints best-of-5 times.
#include <cstdio>
#include <functional>

#include "ir/eval/interpreter.h"
#include "ir/function.h"
#include "tuner/timing.h"

using namespace tirc;

namespace {

const DataType f32 = DataType::float32();

Block make_block(std::string name, std::vector<IterVar> iters, Stmt body, Stmt init = {}) {
  auto b = std::make_shared<BlockNode>();
  b->name = std::move(name);
  b->iter_vars = std::move(iters);
  b->body = std::move(body);
  b->init = std::move(init);
  return b;
}

IterVar iter(Var v, int extent, IterKind kind = IterKind::DataPar) {
  return {std::move(v), {0, extent}, kind, {}};
}

Stmt loop(Var v, int extent, Stmt body) {
  return make_for(std::move(v), 0, extent, ForKind::Serial, std::move(body));
}

PrimFunc func_of(const std::vector<Buffer>& buffers, Stmt body) {
  std::vector<Param> params;
  for (const Buffer& b : buffers) params.push_back(Param{b->data, b});
  return make_prim_func(
      std::move(params),
      make_block_realize({}, make_bool(true), make_block("root", {}, std::move(body))));
}

PrimFunc matmul(int n) {
  Buffer A = make_buffer("A", f32, {n, n}), B = make_buffer("B", f32, {n, n}),
         C = make_buffer("C", f32, {n, n});
  Var i = make_var("i"), j = make_var("j"), k = make_var("k");
  Var vi = make_var("vi"), vj = make_var("vj"), vk = make_var("vk");
  Stmt body = make_store(
      C, make_load(C, {vi, vj}) + make_load(A, {vi, vk}) * make_load(B, {vk, vj}), {vi, vj});
  Block blk = make_block("C", {iter(vi, n), iter(vj, n), iter(vk, n, IterKind::Reduce)}, body,
                         make_store(C, make_float(0.0), {vi, vj}));
  return func_of(
      {A, B, C},
      loop(i, n, loop(j, n, loop(k, n, make_block_realize({i, j, k}, make_bool(true), blk)))));
}

// B = relu(A * 2 + 1) over n elements, one block per element.
PrimFunc elementwise(int n) {
  Buffer A = make_buffer("A", f32, {n}), B = make_buffer("B", f32, {n});
  Var i = make_var("i"), vi = make_var("vi");
  Expr v = max(make_load(A, {vi}) * make_float(2.0) + make_float(1.0), make_float(0.0));
  Block blk = make_block("B", {iter(vi, n)}, make_store(B, v, {vi}));
  return func_of({A, B}, loop(i, n, make_block_realize({i}, make_bool(true), blk)));
}

// Row softmax of an m x n matrix: max, exp-sum, normalize (three blocks).
PrimFunc softmax(int m, int n) {
  Buffer A = make_buffer("A", f32, {m, n}), B = make_buffer("B", f32, {m, n});
  Buffer mx = make_buffer("mx", f32, {m}), sum = make_buffer("sum", f32, {m});
  Var i = make_var("i"), j = make_var("j");
  Var vi = make_var("vi"), vj = make_var("vj");
  Block bmax = make_block("max", {iter(vi, m), iter(vj, n, IterKind::Reduce)},
                          make_store(mx, max(make_load(mx, {vi}), make_load(A, {vi, vj})), {vi}),
                          make_store(mx, make_float(-3.0e38), {vi}));
  Expr e = make_call(f32, "exp", {make_load(A, {vi, vj}) - make_load(mx, {vi})});
  Block bsum = make_block("sum", {iter(vi, m), iter(vj, n, IterKind::Reduce)},
                          make_store(sum, make_load(sum, {vi}) + e, {vi}),
                          make_store(sum, make_float(0.0), {vi}));
  Block bnorm = make_block("norm", {iter(vi, m), iter(vj, n)},
                           make_store(B, e / make_load(sum, {vi}), {vi, vj}));
  auto nest = [&](Block b) {
    return loop(i, m, loop(j, n, make_block_realize({i, j}, make_bool(true), b)));
  };
  auto root = std::make_shared<BlockNode>();
  root->name = "root";
  root->alloc_buffers = {mx, sum};
  root->body = make_seq({nest(bmax), nest(bsum), nest(bnorm)});
  std::vector<Param> params = {Param{A->data, A}, Param{B->data, B}};
  return make_prim_func(std::move(params), make_block_realize({}, make_bool(true), root));
}

void time_it(const char* name, const PrimFunc& f, double ops) {
  CompiledFunc compiled(f);
  std::vector<NDArray> arrays = random_inputs(f, 1);
  std::vector<Argument> args;
  for (NDArray& a : arrays) args.push_back(Argument{&a});
  double best = best_seconds([&] { compiled.run(args); }, 5);
  std::printf("%-28s %9.2f ms  %7.1f M iterations/s\n", name, best * 1e3, ops / best / 1e6);
}

}  // namespace

int main() {
  time_it("matmul 128^3", matmul(128), 128.0 * 128 * 128);
  time_it("matmul 256^3", matmul(256), 256.0 * 256 * 256);
  time_it("elementwise 1M", elementwise(1 << 20), 1 << 20);
  time_it("softmax 1024x1024", softmax(1024, 1024), 3.0 * 1024 * 1024);
  return 0;
}
