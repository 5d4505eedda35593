// The hand-written programs in examples/ are in canonical printed form: building
// the same IR in C++ and printing it gives each file back byte for byte.
#include <catch2/catch.hpp>

#include <fstream>
#include <functional>
#include <sstream>

#include "ir/text/printer.h"

using namespace tirc;

namespace {

const DataType f32 = DataType::float32();

std::string example(const std::string& name) {
  std::ifstream in(std::string(TIRC_SOURCE_DIR) + "/examples/" + name);
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

BufferRegion at(const Buffer& b, std::vector<Expr> indices) {
  BufferRegion r{b, {}};
  for (Expr& i : indices) r.region.push_back({i, make_int(1, i.dtype())});
  return r;
}

IterVar axis(const Var& v, Expr extent, IterKind kind = IterKind::DataPar) {
  return IterVar{v, Range::from_min_extent(0, std::move(extent)), kind, {}};
}

std::shared_ptr<BlockNode> new_block(std::string name) {
  auto b = std::make_shared<BlockNode>();
  b->name = std::move(name);
  return b;
}

Stmt realize(std::vector<Expr> values, Block block, Expr predicate = make_bool(true)) {
  return make_block_realize(std::move(values), std::move(predicate), std::move(block));
}

Stmt root(Stmt body, std::vector<Buffer> allocs = {}) {
  auto b = new_block("root");
  b->alloc_buffers = std::move(allocs);
  b->body = std::move(body);
  return realize({}, b);
}

Stmt serial(const Var& v, Expr extent, Stmt body) {
  return make_for(v, 0, std::move(extent), ForKind::Serial, std::move(body));
}

std::vector<Param> params(std::vector<Buffer> buffers) {
  std::vector<Param> out;
  for (Buffer& b : buffers) out.push_back(Param{make_var(b->name, DataType::handle()), b});
  return out;
}

Annotations attrs(const std::string& name) {
  return {{"global_symbol", make_string(name)}, {"tir.noalias", make_bool(true)}};
}

std::string printed(std::vector<Buffer> buffers, Stmt body) {
  return print_func(make_prim_func(params(std::move(buffers)), std::move(body), attrs("main")));
}

}  // namespace

TEST_CASE("examples/matmul_scheduled.tir is canonical", "[printer]") {
  Buffer A = make_buffer("A", f32, {64, 64}), B = make_buffer("B", f32, {64, 64});
  Buffer C = make_buffer("C", f32, {64, 64});
  Buffer C_local = make_buffer("C_local", f32, {64, 64}, "local");
  Var i_0 = make_var("i_0"), j_0 = make_var("j_0"), i_1 = make_var("i_1"), k = make_var("k");
  Var j_1 = make_var("j_1"), ax0 = make_var("ax0"), ax1 = make_var("ax1");
  Var vi = make_var("vi"), vj = make_var("vj"), vk = make_var("vk"), v0 = make_var("v0"),
      v1 = make_var("v1");

  auto compute = new_block("C");
  compute->iter_vars = {axis(vi, 64), axis(vj, 64), axis(vk, 64, IterKind::Reduce)};
  compute->reads = {at(C_local, {vi, vj}), at(A, {vi, vk}), at(B, {vk, vj})};
  compute->writes = {at(C_local, {vi, vj})};
  compute->init = make_store(C_local, make_float(0), {vi, vj});
  compute->body = make_store(
      C_local, make_load(C_local, {vi, vj}) + make_load(A, {vi, vk}) * make_load(B, {vk, vj}),
      {vi, vj});
  Stmt nest =
      serial(j_0, 8,
             serial(i_1, 16,
                    serial(k, 64,
                           make_for(j_1, 0, 8, ForKind::Vectorized,
                                    realize({i_0 * 16 + i_1, j_0 * 8 + j_1, k}, compute)))));

  auto write_back = new_block("C_local");
  write_back->iter_vars = {axis(v0, 64), axis(v1, 64)};
  write_back->reads = {at(C_local, {v0, v1})};
  write_back->writes = {at(C, {v0, v1})};
  write_back->body = make_store(C, make_load(C_local, {v0, v1}), {v0, v1});
  Stmt copy = serial(ax0, 16, serial(ax1, 64, realize({i_0 * 16 + ax0, ax1}, write_back)));

  Stmt body = make_for(i_0, 0, 4, ForKind::Parallel, make_seq({nest, copy}));
  CHECK(printed({A, B, C}, root(body, {C_local})) == example("matmul_scheduled.tir"));
}

TEST_CASE("examples/conv2d_nchw.tir is canonical", "[printer]") {
  Buffer data = make_buffer("data", f32, {1, 4, 8, 8}),
         weight = make_buffer("weight", f32, {8, 4, 3, 3});
  Buffer conv = make_buffer("conv", f32, {1, 8, 8, 8}),
         pad = make_buffer("data_pad", f32, {1, 4, 10, 10});
  std::vector<Var> i, v;
  for (int d = 0; d < 4; ++d) {
    std::string digit(1, static_cast<char>('0' + d));
    i.push_back(make_var("i" + digit));
    v.push_back(make_var("v_i" + digit));
  }
  auto pad_block = new_block("data_pad");
  for (int d = 0; d < 4; ++d)
    pad_block->iter_vars.push_back(axis(v[d], std::vector<int>{1, 4, 10, 10}[d]));
  std::vector<Expr> src = {v[0], v[1], v[2] - 1, v[3] - 1};
  pad_block->reads = {at(data, src)};
  pad_block->writes = {at(pad, {v[0], v[1], v[2], v[3]})};
  Expr inside = logical_and(
      logical_and(logical_and(Expr(1) <= Expr(v[2]), Expr(v[2]) < 9), Expr(1) <= Expr(v[3])),
      Expr(v[3]) < 9);
  pad_block->body =
      make_store(pad, make_call(f32, "if_then_else", {inside, make_load(data, src), make_float(0)}),
                 {v[0], v[1], v[2], v[3]});
  Stmt pad_nest = serial(
      i[0], 1,
      serial(i[1], 4,
             serial(i[2], 10, serial(i[3], 10, realize({i[0], i[1], i[2], i[3]}, pad_block)))));

  std::vector<std::string> names = {"nn", "ff", "yy", "xx", "rc", "ry", "rx"};
  std::vector<int> extents = {1, 8, 8, 8, 4, 3, 3};
  std::vector<Var> l, w;
  std::vector<Expr> values;
  auto conv_block = new_block("conv");
  for (size_t d = 0; d < names.size(); ++d) {
    l.push_back(make_var(names[d]));
    w.push_back(make_var("v_" + names[d]));
    values.push_back(l.back());
    conv_block->iter_vars.push_back(
        axis(w[d], extents[d], d < 4 ? IterKind::DataPar : IterKind::Reduce));
  }
  std::vector<Expr> out = {w[0], w[1], w[2], w[3]};
  std::vector<Expr> in = {w[0], w[4], w[2] + w[5], w[3] + w[6]};
  std::vector<Expr> ker = {w[1], w[4], w[5], w[6]};
  conv_block->reads = {at(conv, out), at(pad, in), at(weight, ker)};
  conv_block->writes = {at(conv, out)};
  conv_block->init = make_store(conv, make_float(0), out);
  conv_block->body =
      make_store(conv, make_load(conv, out) + make_load(pad, in) * make_load(weight, ker), out);
  Stmt conv_nest = realize(values, conv_block);
  for (size_t d = names.size(); d-- > 0;) conv_nest = serial(l[d], extents[d], conv_nest);

  CHECK(printed({data, weight, conv}, root(make_seq({pad_nest, conv_nest}), {pad})) ==
        example("conv2d_nchw.tir"));
}

TEST_CASE("examples/reduce_where.tir is canonical", "[printer]") {
  Buffer A = make_buffer("A", f32, {100}), B = make_buffer("B", f32, {});
  Var k_0 = make_var("k_0"), k_1 = make_var("k_1"), vk = make_var("vk");
  auto blk = new_block("B");
  blk->iter_vars = {axis(vk, 100, IterKind::Reduce)};
  blk->reads = {BufferRegion{B, {}}, at(A, {vk})};
  blk->writes = {BufferRegion{B, {}}};
  blk->init = make_store(B, make_float(0), {});
  blk->body = make_store(B, make_load(B, {}) + make_load(A, {vk}), {});
  Expr fused = k_0 * 32 + k_1;
  Stmt body = serial(k_0, 4, serial(k_1, 32, realize({fused}, blk, fused < 100)));
  CHECK(printed({A, B}, root(body)) == example("reduce_where.tir"));
}

TEST_CASE("examples of lowered code are canonical", "[printer]") {
  Buffer A = make_buffer("A", f32, {64}), B = make_buffer("B", f32, {64});
  Var i = make_var("i"), j = make_var("j");

  SECTION("vector_add_ramp.tir") {
    Buffer C = make_buffer("C", f32, {64});
    Expr lanes = make_ramp(i * 4, 1, 4);
    Stmt store = make_store(
        C, make_load(A, {lanes}) + make_load(B, {lanes}) * make_broadcast(make_float(2), 4),
        {lanes});
    CHECK(printed({A, B, C}, serial(i, 16, store)) == example("vector_add_ramp.tir"));
  }
  SECTION("let_if.tir") {
    Var x = make_var("x", f32);
    Stmt branch = make_if(floormod(i, 2) == 0, make_store(B, x + make_float(1), {i}),
                          make_store(B, x - make_float(1), {i}));
    Stmt let = std::make_shared<const LetStmtNode>(x, make_load(A, {i}) * make_float(2), branch);
    CHECK(printed({A, B}, serial(i, 64, let)) == example("let_if.tir"));
  }
  SECTION("allocate.tir") {
    Var storage = make_var("tmp_data", DataType::handle());
    auto tmp = std::make_shared<BufferNode>(*make_buffer("tmp", f32, {64}));
    tmp->data = storage;
    Stmt loops = make_seq(
        {serial(i, 64, make_store(tmp, make_load(A, {i}) * make_float(2), {i})),
         serial(j, 64, make_store(B, make_load(tmp, {63 - Expr(j)}) + make_float(1), {j}))});
    Stmt body =
        std::make_shared<const AllocateNode>(storage, f32, std::vector<Expr>{64}, "global",
                                             std::make_shared<const DeclBufferNode>(tmp, loops));
    CHECK(printed({A, B}, body) == example("allocate.tir"));
  }
}

TEST_CASE("examples/module_two_funcs.tir is canonical", "[printer]") {
  auto elementwise = [](const std::string& block_name, std::vector<Buffer> inputs,
                        const Buffer& out, const std::function<Expr(std::vector<Expr>)>& compute) {
    std::vector<Var> loops, vars;
    std::vector<Expr> values, idx;
    auto blk = new_block(block_name);
    const char* loop_names[] = {"i", "j"};
    for (size_t d = 0; d < out->ndim(); ++d) {
      loops.push_back(make_var(loop_names[d]));
      vars.push_back(make_var(std::string("v") + loop_names[d]));
      values.push_back(loops.back());
      idx.push_back(vars.back());
      blk->iter_vars.push_back(axis(vars.back(), out->shape[d]));
    }
    std::vector<Expr> loads;
    for (const Buffer& b : inputs) {
      blk->reads.push_back(at(b, idx));
      loads.push_back(make_load(b, idx));
    }
    blk->writes = {at(out, idx)};
    blk->body = make_store(out, compute(loads), idx);
    Stmt s = realize(values, blk);
    for (size_t d = out->ndim(); d-- > 0;) s = serial(loops[d], out->shape[d], s);
    return root(s);
  };
  Buffer A = make_buffer("A", f32, {32}), B = make_buffer("B", f32, {32}),
         C = make_buffer("C", f32, {32});
  Buffer X = make_buffer("A", f32, {16, 16}), Y = make_buffer("B", f32, {16, 16});
  IRModule m;
  m.add("add", make_prim_func(params({A, B, C}),
                              elementwise("C", {A, B}, C, [](auto l) { return l[0] + l[1]; }),
                              attrs("add")));
  m.add("main",
        make_prim_func(params({X, Y}),
                       elementwise("B", {X}, Y, [](auto l) { return l[0] * make_float(3); }),
                       attrs("main")));
  CHECK(print(m) == example("module_two_funcs.tir"));
}
