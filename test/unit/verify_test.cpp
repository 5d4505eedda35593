#include <catch2/catch.hpp>

#include "ir/verify.h"

using namespace tirc;

namespace {

const DataType f32 = DataType::float32();

IterVar iter(Var v, int extent, IterKind kind = IterKind::DataPar) {
  return {std::move(v), {0, extent}, kind, {}};
}
std::shared_ptr<BlockNode> named_block(std::string name) {
  auto b = std::make_shared<BlockNode>();
  b->name = std::move(name);
  return b;
}
Range point(Expr e) {
  return {std::move(e), 1};
}
BufferRegion region(const Buffer& b, std::vector<Range> r) {
  return {b, std::move(r)};
}
Stmt realize(std::shared_ptr<BlockNode> b, std::vector<Expr> values = {}, Expr pred = {}) {
  return make_block_realize(std::move(values), std::move(pred), std::move(b));
}

// A root block holding `body`, as the parser builds functions with blocks.
Stmt in_root(Stmt body) {
  auto root = named_block("root");
  root->body = std::move(body);
  return realize(root);
}

// The matmul of the design document, in pieces a test can break one at a
// time before build() assembles the function.
struct Matmul {
  Buffer A = make_buffer("A", f32, {128, 128});
  Buffer B = make_buffer("B", f32, {128, 128});
  Buffer C = make_buffer("C", f32, {128, 128});
  Var i = make_var("i"), j = make_var("j"), k = make_var("k");
  Var vi = make_var("vi"), vj = make_var("vj"), vk = make_var("vk");
  int extent_i = 128;
  std::vector<Expr> values{i, j, k};
  Expr predicate;
  std::shared_ptr<BlockNode> block = named_block("C");
  std::vector<Stmt> after;  // statements after the loop nest, inside the root block

  Matmul() {
    block->iter_vars = {iter(vi, 128), iter(vj, 128), iter(vk, 128, IterKind::Reduce)};
    block->reads = {region(A, {point(vi), point(vk)}), region(B, {point(vk), point(vj)})};
    block->writes = {region(C, {point(vi), point(vj)})};
    block->init = make_store(C, make_float(0.0), {vi, vj});
    block->body = update();
  }
  Stmt update() const {
    return make_store(C, make_load(C, {vi, vj}) + make_load(A, {vi, vk}) * make_load(B, {vk, vj}),
                      {vi, vj});
  }
  Stmt nest() const {
    Stmt s = realize(block, values, predicate);
    s = make_for(k, 0, 128, ForKind::Serial, s);
    s = make_for(j, 0, 128, ForKind::Serial, s);
    return make_for(i, 0, extent_i, ForKind::Serial, s);
  }
  std::vector<Param> params() const {
    return {{make_var("a", DataType::handle()), A},
            {make_var("b", DataType::handle()), B},
            {make_var("c", DataType::handle()), C}};
  }
  PrimFunc build() const {
    std::vector<Stmt> body{nest()};
    body.insert(body.end(), after.begin(), after.end());
    return make_prim_func(params(), in_root(make_seq(body)));
  }
};

std::string all_messages(const std::vector<Diagnostic>& ds) {
  std::string s;
  for (const Diagnostic& d : ds) s += d.message + "\n";
  return s;
}

// The one diagnostic of f, which must contain `text`.
void require_single(const PrimFunc& f, const std::string& text) {
  auto ds = verify(f);
  INFO(all_messages(ds));
  REQUIRE(ds.size() == 1);
  CHECK_THAT(ds[0].message, Catch::Contains(text));
}

void require_clean(const PrimFunc& f) {
  auto ds = verify(f);
  INFO(all_messages(ds));
  CHECK(ds.empty());
}

}  // namespace

TEST_CASE("a well-formed matmul with root block and init verifies clean", "[verify]") {
  require_clean(Matmul().build());
}

TEST_CASE("variables used outside their scope are reported", "[verify]") {
  Matmul m;
  m.after = {make_store(m.A, make_float(0.0), {0, m.k})};
  require_single(m.build(), "main: variable k is used outside its definition");

  Matmul n;
  Var stray = make_var("n");
  n.after = {make_store(n.A, make_float(0.0), {0, stray})};
  require_single(n.build(), "main: variable n is not defined");

  // Block iteration variables exist only inside their block.
  Matmul b;
  b.after = {make_store(b.A, make_float(0.0), {0, b.vi})};
  require_single(b.build(), "variable vi is used outside its definition");
}

TEST_CASE("let, allocate and parameter variables are scoped", "[verify]") {
  Var x = make_var("x"), n = make_var("n"), i = make_var("i");
  Buffer A = make_buffer("A", f32, {n});
  Stmt let = std::make_shared<LetStmtNode>(x, n - 1, make_store(A, make_float(1.0), {x}));
  Stmt body =
      make_seq({make_for(i, 0, n, ForKind::Serial, make_store(A, make_float(0.0), {i})), let});
  // n is defined by the shape of parameter A, so the function is clean ...
  require_clean(make_prim_func({{make_var("a", DataType::handle()), A}}, body));
  // ... and a use of x after its let is not.
  Stmt late = make_seq({let, make_store(A, make_float(2.0), {x})});
  require_single(make_prim_func({{make_var("a", DataType::handle()), A}}, late),
                 "main: variable x is used outside its definition");
}

TEST_CASE("a variable node defined twice is reported; equal names are fine", "[verify]") {
  Buffer A = make_buffer("A", f32, {16});
  Var i = make_var("i");
  auto loop = [&](const Var& v) {
    return make_for(v, 0, 16, ForKind::Serial, make_store(A, make_float(0.0), {v}));
  };
  std::vector<Param> params{{make_var("a", DataType::handle()), A}};
  require_single(make_prim_func(params, make_seq({loop(i), loop(i)})),
                 "main: variable i is defined more than once");
  require_clean(make_prim_func(params, make_seq({loop(i), loop(make_var("i"))})));
}

TEST_CASE("loads and stores with the wrong number of indices are reported", "[verify]") {
  Matmul m;
  m.block->body =
      make_store(m.C, make_load(m.C, {m.vi, m.vj}) + make_load(m.A, {m.vi}), {m.vi, m.vj});
  require_single(m.build(), "main: load A[vi] has 1 index but buffer A has 2 dimensions");
}

TEST_CASE("stores of the wrong type or lane count are reported", "[verify]") {
  Matmul m;
  m.block->init = make_store(m.C, make_int(0), {m.vi, m.vj});
  require_single(
      m.build(),
      "main: store C[vi, vj] stores a value of type int32 but buffer C has dtype float32");

  Buffer A = make_buffer("A", f32, {64});
  Var i = make_var("i");
  Stmt s = make_for(i, 0, 8, ForKind::Serial,
                    make_store(A, make_broadcast(make_float(1.0), 4), {make_ramp(i * 8, 1, 8)}));
  require_single(make_prim_func({{make_var("a", DataType::handle()), A}}, s),
                 "stores a float32x4 value through 8 index lanes");
}

TEST_CASE("buffers that are not declared are reported once", "[verify]") {
  Matmul m;
  Buffer D = make_buffer("D", f32, {128, 128});
  m.after = {make_store(D, make_float(0.0), {0, 0}), make_store(D, make_float(1.0), {1, 1})};
  require_single(m.build(), "main: buffer D is used but not declared (in store D[0, 0])");
}

TEST_CASE("alloc_buffers, decl_buffer and allocate declare buffers in their scope", "[verify]") {
  Matmul m;
  Buffer tmp = make_buffer("tmp", f32, {128, 128}, "local");
  auto root = named_block("root");
  root->alloc_buffers = {tmp};
  root->body = make_seq({m.nest(), make_store(tmp, make_float(0.0), {0, 0})});
  require_clean(make_prim_func(m.params(), realize(root)));

  // Lowered form: an allocation, a buffer declared over it, then a stray use.
  Var handle = make_var("buf", DataType::handle());
  auto view = std::make_shared<BufferNode>(*make_buffer("buf_view", f32, {16}));
  view->data = handle;
  Buffer V = view;
  Stmt decl = std::make_shared<DeclBufferNode>(V, make_store(V, make_float(0.0), {3}));
  Stmt alloc = std::make_shared<AllocateNode>(handle, f32, std::vector<Expr>{16}, "global", decl);
  require_clean(make_prim_func({}, alloc));
  require_single(make_prim_func({}, make_seq({alloc, make_store(V, make_float(0.0), {3})})),
                 "buffer buf_view is used but not declared");
}

TEST_CASE("lowered code may view a parameter's storage through a flat buffer", "[verify]") {
  // `A_1 = T.Buffer((16,), data=A.data)`, as `tirc compile --emit=tir` prints.
  Buffer A = make_buffer("A", f32, {4, 4});
  auto flat = std::make_shared<BufferNode>(*make_buffer("A_1", f32, {16}));
  flat->data = A->data;
  Buffer A1 = flat;
  require_clean(make_prim_func({{make_var("a", DataType::handle()), A}},
                               make_store(A1, make_float(0.0), {3})));
  // A view over a handle that is no storage (a scalar handle parameter) is
  // still undeclared.
  Var s = make_var("s", DataType::handle());
  auto stray = std::make_shared<BufferNode>(*make_buffer("S_1", f32, {16}));
  stray->data = s;
  require_single(make_prim_func({{make_var("a", DataType::handle()), A}, {s, Buffer()}},
                                make_store(Buffer(stray), make_float(0.0), {3})),
                 "buffer S_1 is used but not declared");
}

TEST_CASE("accesses provably outside a buffer are reported", "[verify]") {
  Matmul m;
  // a fresh loop variable named i: reusing m.i would be a second definition
  Var i2 = make_var("i");
  m.after = {
      make_for(i2, 0, 128, ForKind::Serial, make_store(m.C, make_load(m.A, {i2, 130}), {i2, 0}))};
  auto ds = verify(m.build());
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].message == "main: load A[i, 130] is outside buffer A of shape (128, 128)");
}

TEST_CASE("accesses whose bounds exceed the buffer are reported as possible", "[verify]") {
  Buffer A = make_buffer("A", f32, {128});
  Var i = make_var("i");
  std::vector<Param> params{{make_var("a", DataType::handle()), A}};
  Stmt s = make_for(i, 0, 128, ForKind::Serial, make_store(A, make_float(0.0), {i + 1}));
  require_single(make_prim_func(params, s),
                 "main: store A[i + 1] may access outside buffer A of shape (128,): index 0 "
                 "ranges over [1, 128]");
  // Negative indices too, through a loop with a nonzero min.
  Stmt neg = make_for(i, -2, 10, ForKind::Serial, make_store(A, make_float(0.0), {i}));
  require_single(make_prim_func(params, neg), "may access outside buffer A");
}

TEST_CASE("guarded accesses are checked under their condition", "[verify]") {
  Buffer A = make_buffer("A", f32, {128});
  Buffer B = make_buffer("B", f32, {128});
  Var i = make_var("i");
  std::vector<Param> params{{make_var("a", DataType::handle()), A},
                            {make_var("b", DataType::handle()), B}};
  // Padding: B[i] = if_then_else(1 <= i, A[i - 1], 0)
  Expr padded =
      make_call(f32, "if_then_else", {Expr(1) <= i, make_load(A, {i - 1}), make_float(0.0)});
  require_clean(
      make_prim_func(params, make_for(i, 0, 128, ForKind::Serial, make_store(B, padded, {i}))));
  // if i < 127: B[i] = A[i + 1]
  Stmt guarded = make_if(i < 127, make_store(B, make_load(A, {i + 1}), {i}));
  require_clean(make_prim_func(params, make_for(i, 0, 128, ForKind::Serial, guarded)));
  // Under a guard an access that is out of range on every iteration still counts.
  Stmt hopeless = make_if(i < 127, make_store(B, make_load(A, {i + 200}), {i}));
  require_single(make_prim_func(params, make_for(i, 0, 128, ForKind::Serial, hopeless)),
                 "load A[i + 200] is outside buffer A");
}

TEST_CASE("calls to unknown intrinsics or with the wrong arity are reported", "[verify]") {
  auto storing = [](Expr value) {
    Matmul m;
    m.after = {make_store(m.A, std::move(value), {0, 0})};
    return m.build();
  };
  const Expr one = make_float(1.0), two = make_float(2.0);
  require_single(storing(make_call(f32, "frobnicate", {one})),
                 "main: call to unknown intrinsic frobnicate");
  require_single(storing(make_call(f32, "exp", {one, two})), "main: T.exp takes 1 argument, got 2");
  require_single(storing(make_call(f32, "tir.pow", {one})), "T.pow takes 2 arguments, got 1");
  require_single(storing(make_call(f32, "if_then_else", {make_bool(true), one})),
                 "T.if_then_else takes 3 arguments, got 2");
  // The registry's names with their arity, with or without a namespace.
  require_clean(storing(make_call(f32, "T.exp", {one}) + make_call(f32, "nearbyint", {one}) +
                        make_call(f32, "pow", {one, two}) +
                        make_call(f32, "if_then_else", {make_bool(true), one, two})));
}

TEST_CASE("block iteration variables bound outside their domain are reported", "[verify]") {
  Matmul m;
  m.extent_i = 256;
  require_single(m.build(),
                 "main: block C: iteration variable vi is bound to i, which ranges over [0, 255], "
                 "outside its domain [0, 128)");

  // With T.where(i < 128) the excess iterations are cut off.
  Matmul w;
  w.extent_i = 256;
  w.predicate = w.i < 128;
  require_clean(w.build());

  // ... but a value outside the domain on every iteration is still wrong.
  Matmul x;
  x.extent_i = 16;
  x.values[0] = x.i + 200;
  x.predicate = x.i < 8;
  require_single(x.build(), "iteration variable vi is bound to i + 200");
}

TEST_CASE("reduce variables in the indices of outputs are reported", "[verify]") {
  Matmul m;
  m.block->writes = {region(m.C, {point(m.vi), {0, 128}})};
  m.block->body = make_store(m.C, make_load(m.A, {m.vi, m.vk}), {m.vi, m.vk});
  m.block->init = make_store(m.C, make_float(0.0), {m.vi, m.vk});
  require_single(m.build(), "main: block C: reduce variable vk is used in the index of output C");
}

TEST_CASE("a reduction updating its output in place needs an init", "[verify]") {
  Matmul m;
  m.block->init = Stmt();
  m.block->reads.push_back(region(m.C, {point(m.vi), point(m.vj)}));
  require_single(m.build(), "main: block C has reduce axes and updates C in place but has no init");

  // Decomposed form: a preceding block C_init initializes C.
  Matmul d;
  d.block->init = Stmt();
  d.block->reads.push_back(region(d.C, {point(d.vi), point(d.vj)}));
  Var ii = make_var("i"), jj = make_var("j"), vi = make_var("vi"), vj = make_var("vj");
  auto init = named_block("C_init");
  init->iter_vars = {iter(vi, 128), iter(vj, 128)};
  init->writes = {region(d.C, {point(vi), point(vj)})};
  init->body = make_store(d.C, make_float(0.0), {vi, vj});
  Stmt init_nest = make_for(ii, 0, 128, ForKind::Serial,
                            make_for(jj, 0, 128, ForKind::Serial, realize(init, {ii, jj})));
  require_clean(make_prim_func(d.params(), in_root(make_seq({init_nest, d.nest()}))));
}

TEST_CASE("an init that writes a buffer the body does not write is reported", "[verify]") {
  Matmul m;
  Buffer D = make_buffer("D", f32, {128, 128});
  m.block->init = make_seq({make_store(m.C, make_float(0.0), {m.vi, m.vj}),
                            make_store(D, make_float(0.0), {m.vi, m.vj})});
  m.block->writes.push_back(region(D, {point(m.vi), point(m.vj)}));
  auto params = m.params();
  params.push_back({make_var("d", DataType::handle()), D});
  require_single(make_prim_func(params, in_root(m.nest())),
                 "main: block C: init writes D, which the block body does not write");
}

TEST_CASE("T.reads and T.writes must cover the block's accesses", "[verify]") {
  Matmul r;
  r.block->reads = {region(r.A, {point(r.vi), point(r.vk)})};
  require_single(r.build(), "main: block C reads B[vk, vj] but T.reads does not cover it");

  Matmul w;
  w.block->writes = {region(w.C, {point(w.vi), point(0)})};
  require_single(w.build(), "main: block C writes C[vi, vj] but T.writes does not cover it");

  // Wider declared regions cover.
  Matmul wide;
  wide.block->reads = {region(wide.A, {point(wide.vi), {0, 128}}),
                       region(wide.B, {{0, 128}, point(wide.vj)})};
  require_clean(wide.build());
}

TEST_CASE("loop and block realize shapes are checked", "[verify]") {
  Buffer A = make_buffer("A", f32, {16});
  std::vector<Param> params{{make_var("a", DataType::handle()), A}};
  Var i = make_var("i");
  Stmt store = make_store(A, make_float(0.0), {i});

  Stmt float_extent =
      std::make_shared<ForNode>(i, Expr(0), make_float(16.0), ForKind::Serial, store);
  require_single(make_prim_func(params, float_extent),
                 "main: loop i: extent has type float32, not an integer scalar");

  Var l = make_var("l", DataType::int64());
  Stmt wide = make_for(l, make_int(0, DataType::int64()), 16, ForKind::Serial,
                       make_store(A, make_float(0.0), {l}));
  require_single(make_prim_func(params, wide),
                 "loop l: variable of type int64 has extent of type int32");

  Var n = make_var("n");
  Stmt vec = make_for(i, 0, n, ForKind::Vectorized, store);
  params.push_back({n, nullptr});
  require_single(make_prim_func(params, vec),
                 "main: loop i: vectorized loop has non-constant extent n");

  Matmul m;
  // make_block_realize refuses the mismatch, so build the node directly
  Stmt short_realize =
      std::make_shared<BlockRealizeNode>(std::vector<Expr>{m.i, m.j}, make_bool(true), m.block);
  Stmt nest =
      make_for(m.i, 0, 128, ForKind::Serial, make_for(m.j, 0, 128, ForKind::Serial, short_realize));
  require_single(make_prim_func(m.params(), in_root(nest)),
                 "main: block C has 3 iteration variables but 2 bound values");

  Matmul p;
  p.predicate = p.i;  // an int32 where a bool belongs
  require_single(p.build(), "main: block C: predicate has type int32, not bool");
}

TEST_CASE("every problem of a program is reported, at its statement", "[verify]") {
  Matmul m;
  m.extent_i = 256;                                            // binding out of domain
  m.block->reads = {region(m.A, {point(m.vi), point(m.vk)})};  // B not covered
  Buffer D = make_buffer("D", f32, {4});
  auto bad_store =
      std::make_shared<BufferStoreNode>(m.A, make_load(m.A, {0, 200}), std::vector<Expr>{m.k, 0});
  bad_store->loc.line = 7;
  bad_store->loc.col = 5;
  m.after = {bad_store,                             // k out of scope, A[0, 200]
             make_store(D, make_float(0.0), {1})};  // D not declared
  auto ds = verify(m.build(), "mm");
  std::string all = all_messages(ds);
  INFO(all);
  CHECK(ds.size() == 5);
  CHECK_THAT(all, Catch::Contains("mm: block C: iteration variable vi is bound to i"));
  CHECK_THAT(all, Catch::Contains("mm: block C reads B[vk, vj] but T.reads does not cover it"));
  CHECK_THAT(all, Catch::Contains("mm: variable k is used outside its definition"));
  CHECK_THAT(all, Catch::Contains("mm: load A[0, 200] is outside buffer A of shape (128, 128)"));
  CHECK_THAT(all, Catch::Contains("mm: buffer D is used but not declared"));
  for (const Diagnostic& d : ds)
    if (d.message.find("variable k") != std::string::npos) {
      CHECK(d.loc.line == 7);
      CHECK(d.loc.col == 5);
    }
}

TEST_CASE("modules are verified function by function", "[verify]") {
  IRModule mod;
  mod.add("good", Matmul().build());
  Matmul bad;
  bad.block->init = Stmt();
  bad.block->reads.push_back(region(bad.C, {point(bad.vi), point(bad.vj)}));
  mod.add("bad", bad.build());
  auto ds = verify(mod);
  INFO(all_messages(ds));
  REQUIRE(ds.size() == 1);
  CHECK_THAT(ds[0].message, Catch::StartsWith("bad: block C has reduce axes"));
}

TEST_CASE("vector accesses are bounded over all their lanes", "[verify]") {
  Var i = make_var("i");
  auto func = [&](int size) {
    Buffer A = make_buffer("A", f32, {size});
    Stmt s = make_for(i, 0, 8, ForKind::Serial,
                      make_store(A, make_broadcast(make_float(1.0), 8), {make_ramp(i * 8, 1, 8)}));
    return make_prim_func({{make_var("a", DataType::handle()), A}}, s);
  };
  require_clean(func(64));
  require_single(func(60), "index 0 ranges over [0, 63]");
}

TEST_CASE("a split loop with T.where binds a padded axis cleanly", "[verify]") {
  // for i0, i1 in T.grid(4, 32): vi = T.axis.spatial(100, i0 * 32 + i1); T.where(i0 * 32 + i1 <
  // 100)
  Buffer A = make_buffer("A", f32, {100});
  Var i0 = make_var("i0"), i1 = make_var("i1"), vi = make_var("vi");
  auto block = named_block("A");
  block->iter_vars = {iter(vi, 100)};
  block->writes = {region(A, {point(vi)})};
  block->body = make_store(A, make_float(0.0), {vi});
  Expr value = i0 * 32 + i1;
  Stmt s = make_for(i0, 0, 4, ForKind::Serial,
                    make_for(i1, 0, 32, ForKind::Serial, realize(block, {value}, value < 100)));
  std::vector<Param> params{{make_var("a", DataType::handle()), A}};
  require_clean(make_prim_func(params, in_root(s)));
  // Without the predicate the binding exceeds the domain.
  Stmt unguarded = make_for(i0, 0, 4, ForKind::Serial,
                            make_for(i1, 0, 32, ForKind::Serial, realize(block, {value})));
  require_single(make_prim_func(params, in_root(unguarded)),
                 "iteration variable vi is bound to i0 * 32 + i1, which ranges over [0, 127]");
}
