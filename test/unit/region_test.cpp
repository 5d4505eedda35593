#include <catch2/catch.hpp>

#include "arith_test_util.h"
#include "ir/arith/region.h"

using namespace tirc;
using tirc::test::str;

namespace {

// "A[vi, 0:128]": a point shows its index, a range min:min+extent.
using tirc::test::str;
std::string str(const BufferRegion& r) {
  std::string s = r.buffer->name + "[";
  for (size_t d = 0; d < r.region.size(); ++d) {
    const Range& x = r.region[d];
    if (d) s += ", ";
    if (is_const_int(x.extent, 1)) {
      s += str(x.min);
    } else {
      auto lo = as_const_int(x.min), ext = as_const_int(x.extent);
      s += str(x.min) + ":" +
           (lo && ext ? std::to_string(*lo + *ext) : str(x.min) + " + " + str(x.extent));
    }
  }
  return s + "]";
}

std::string str(const std::vector<BufferRegion>& rs) {
  std::string s;
  for (const BufferRegion& r : rs) s += (s.empty() ? "" : ", ") + str(r);
  return s;
}

IterVar iter(const char* name, int extent, IterKind kind = IterKind::DataPar) {
  return IterVar{make_var(name), Range::from_min_extent(0, extent), kind, {}};
}

const DataType f32 = DataType::float32();

}  // namespace

TEST_CASE("matmul block reads C, A, B and writes C", "[arith][region]") {
  Buffer A = make_buffer("A", f32, {128, 128}), B = make_buffer("B", f32, {128, 128}),
         C = make_buffer("C", f32, {128, 128});
  auto blk = std::make_shared<BlockNode>();
  blk->name = "C";
  blk->iter_vars = {iter("vi", 128), iter("vj", 128), iter("vk", 128, IterKind::Reduce)};
  Expr vi = blk->iter_vars[0].var, vj = blk->iter_vars[1].var, vk = blk->iter_vars[2].var;
  blk->init = make_store(C, make_float(0.0), {vi, vj});
  blk->body = make_store(
      C, make_load(C, {vi, vj}) + make_load(A, {vi, vk}) * make_load(B, {vk, vj}), {vi, vj});
  AccessRegions r = infer_access_regions(*blk);
  CHECK(str(r.reads) == "C[vi, vj], A[vi, vk], B[vk, vj]");
  CHECK(str(r.writes) == "C[vi, vj]");
}

TEST_CASE("loops inside a block are relaxed over their ranges", "[arith][region]") {
  Buffer A = make_buffer("A", f32, {128, 128}), B = make_buffer("B", f32, {128});
  auto blk = std::make_shared<BlockNode>();
  blk->name = "rowsum";
  blk->iter_vars = {iter("vi", 128)};
  Expr vi = blk->iter_vars[0].var;
  Var k = make_var("k");
  blk->body = make_for(k, 0, 128, ForKind::Serial,
                       make_store(B, make_load(B, {vi}) + make_load(A, {vi, k}), {vi}));
  AccessRegions r = infer_access_regions(*blk);
  CHECK(str(r.reads) == "B[vi], A[vi, 0:128]");
  CHECK(str(r.writes) == "B[vi]");

  // a loop with a nonzero start and an offset index
  Var t = make_var("t");
  auto blk2 = std::make_shared<BlockNode>();
  blk2->name = "window";
  blk2->iter_vars = {iter("vi", 120)};
  Expr vi2 = blk2->iter_vars[0].var;
  blk2->body =
      make_for(t, 2, 8, ForKind::Serial, make_store(B, make_load(A, {vi2, vi2 + t}), {vi2}));
  r = infer_access_regions(*blk2);
  CHECK(str(r.reads) == "A[vi, vi + 2:vi + 2 + 8]");
}

TEST_CASE("strided and unioned accesses", "[arith][region]") {
  Buffer A = make_buffer("A", f32, {256}), B = make_buffer("B", f32, {128});
  auto blk = std::make_shared<BlockNode>();
  blk->name = "pairs";
  blk->iter_vars = {iter("vi", 128)};
  Expr vi = blk->iter_vars[0].var;
  blk->body = make_store(B, make_load(A, {vi * 2}) + make_load(A, {vi * 2 + 1}), {vi});
  AccessRegions r = infer_access_regions(*blk);
  CHECK(str(r.reads) == "A[vi * 2:vi * 2 + 2]");

  // constants union exactly; a loop with a negative coefficient flips ends
  Var k = make_var("k");
  auto blk2 = std::make_shared<BlockNode>();
  blk2->name = "rev";
  blk2->body = make_seq(
      {make_for(k, 0, 16, ForKind::Serial, make_store(B, make_load(A, {Expr(100) - k}), {k})),
       make_store(B, make_load(A, {Expr(3)}), {Expr(40)})});
  r = infer_access_regions(*blk2);
  CHECK(str(r.reads) == "A[3:101]");
  CHECK(str(r.writes) == "B[0:41]");
}

TEST_CASE("nested blocks are seen through their bindings", "[arith][region]") {
  Buffer A = make_buffer("A", f32, {64, 64}), B = make_buffer("B", f32, {64, 64});
  Buffer tmp = make_buffer("tmp", f32, {8});
  auto inner = std::make_shared<BlockNode>();
  inner->name = "inner";
  inner->iter_vars = {iter("ii", 64), iter("jj", 64)};
  Expr ii = inner->iter_vars[0].var, jj = inner->iter_vars[1].var;
  inner->body = make_store(B, make_load(A, {ii, jj}) + make_load(tmp, {Expr(0)}), {ii, jj});

  auto outer = std::make_shared<BlockNode>();
  outer->name = "outer";
  outer->iter_vars = {iter("vo", 8)};
  Expr vo = outer->iter_vars[0].var;
  outer->alloc_buffers = {tmp};
  Var i = make_var("i"), j = make_var("j");
  outer->body =
      make_seq({make_store(tmp, make_float(1.0), {Expr(0)}),
                make_for(i, 0, 8, ForKind::Serial,
                         make_for(j, 0, 64, ForKind::Serial,
                                  make_block_realize({vo * 8 + i, j}, make_bool(true), inner)))});
  AccessRegions r = infer_access_regions(*outer);
  CHECK(str(r.reads) == "A[vo * 8:vo * 8 + 8, 0:64]");
  CHECK(str(r.writes) == "B[vo * 8:vo * 8 + 8, 0:64]");
}

TEST_CASE("relax_access over a domain", "[arith][region]") {
  Buffer A = make_buffer("A", f32, {64, 64});
  Var i = make_var("i"), j = make_var("j"), n = make_var("n");
  std::unordered_map<const VarNode*, Range> dom{{i.get(), Range::from_min_extent(0, 4)},
                                                {j.get(), Range::from_min_extent(0, 16)}};
  CHECK(str(relax_access(A, {i * 16 + j, Expr(n)}, dom)) == "A[0:64, n]");
  CHECK(str(relax_access(A, {floordiv(Expr(j), 4), floormod(Expr(j), 8)}, dom)) == "A[0:4, 0:8]");
  // what the relaxation does not understand covers the whole dimension
  CHECK(str(relax_access(A, {Expr(i) * j, Expr(0)}, dom)) == "A[0:64, 0]");
}
