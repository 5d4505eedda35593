// Tensor cores: the warp matrix operations of ir/intrinsic.h as the NVVM
// WMMA intrinsics (wmma.load / wmma.mma.sync / wmma.store, m16n16k16, row
// major, float16 or bfloat16 inputs, float32 accumulators), and accumulator
// tiles kept in registers.
//
// A warp runs each operation with its 32 threads together, so a kernel with
// one is launched with exactly 32 threads along threadIdx.x and each
// operation stands outside every threadIdx.x loop (plan_kernel): the 32
// threads of a warp are then all of threadIdx.x for one threadIdx.y/z, and
// all of them reach the operation with the same operands.
//
// An allocation in scope "wmma.accumulator" holds no memory: each 16x16 tile
// of it is a fragment, 8 float registers per thread whose layout only the
// WMMA instructions know. So its elements are touched only by the operations,
// in whole tiles on its 16x16 grid with one row stride (check_warp_matrix
// proves it), and tile (R, C) of a buffer with row stride ld (first element
// R * 16 * ld + C * 16) is fragment R * n + C, with n the number of tile
// columns its accesses reach (ld / 16 where the bounds do not tell): a
// warp's part of a block's accumulators in a wide matrix (row stride 1024,
// two tiles across) is then 2 x 2 fragments, not 2 x 64. Operands in memory
// (global or shared) need the alignment the instructions require: a tile's
// first element at a multiple of 32 bytes and its row stride a multiple of
// 16 bytes, proved for the element offsets (buffers themselves start
// 256-byte aligned from cuMemAlloc, 128 in shared memory).
#include <llvm/IR/IntrinsicsNVPTX.h>

#include <algorithm>

#include "codegen/llvm/cuda.h"
#include "codegen/llvm/cuda_emitter.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/linear_form.h"
#include "ir/functor.h"
#include "ir/intrinsic.h"
#include "ir/text/printer.h"
#include "ir/var_use.h"

namespace tirc::llvm_gen {

namespace {

constexpr int64_t kTile = kMmaTile;
constexpr unsigned kFragmentFloats = 8;  // an accumulator tile per thread

// Proves what the tiles of a kernel's warp matrix operations need, with the
// ranges of the loops around them.
class TileCheck : public StmtVisitor {
 public:
  void visit_for(const ForNode* n) override {
    az_.bind(n->loop_var, Range{n->min, n->extent});
    StmtVisitor::visit_for(n);
  }
  void visit_allocate(const AllocateNode* n) override {
    if (n->scope == "wmma.accumulator") {
      int64_t elems = 1;
      for (const Expr& e : n->extents) elems *= as_const_int(e).value_or(0);
      fragments_[n->buffer_var.get()] = Fragment{n->buffer_var->name, elems, 0};
    }
    StmtVisitor::visit_allocate(n);
  }
  void visit_load(const BufferLoadNode* n) override {
    element_access(n->buffer);
    StmtVisitor::visit_load(n);
  }
  void visit_store(const BufferStoreNode* n) override {
    element_access(n->buffer);
    StmtVisitor::visit_store(n);
  }
  void visit_evaluate(const EvaluateNode* n) override {
    const Intrinsic* in = find_warp_matrix(n->value);
    if (!in) return StmtVisitor::visit_evaluate(n);
    auto* call = n->value.as<CallNode>();
    loc_ = n->loc;
    const std::string op = "T." + std::string(in->name);
    for (size_t i = 0; i < warp_matrix_tiles(in->id); ++i) {
      const BufferLoadNode* at = address_of_element(call->args[2 * i]);
      if (!at || at->indices.size() != 1)
        refuse(op + ": a tile is not T.address_of an element of a flat buffer", loc_);
      tile(op, *at, call->args[2 * i + 1]);
      for (const Expr& e : at->indices) StmtVisitor::visit(e);
    }
  }

 private:
  struct Fragment {
    std::string name;
    int64_t elems;
    int64_t ld;  // 0 until the first operation on it
  };

  void element_access(const Buffer& b) {
    auto it = fragments_.find(b->data.get());
    if (it != fragments_.end())
      refuse("buffer " + it->second.name +
                 " (scope \"wmma.accumulator\") is read or written element by element: its tiles "
                 "are registers that only T.mma_fill, T.mma_sync and T.mma_store use",
             loc_);
  }

  void prove(const Expr& cond, const std::string& what) {
    if (!az_.can_prove(cond)) refuse(what + " (not provable: " + print_expr(cond) + ")", loc_);
  }

  void tile(const std::string& op, const BufferLoadNode& at, const Expr& ld) {
    const Expr off = at.indices[0];
    const std::string where = op + ": tile " + at.buffer->data->name + "[" + print_expr(off) + "]";
    auto frag = fragments_.find(at.buffer->data.get());
    if (frag != fragments_.end()) {
      Fragment& f = frag->second;
      auto stride = as_const_int(ld);
      if (!stride || *stride < kTile || *stride % kTile != 0)
        refuse(where + " has row stride " + print_expr(ld) +
                   "; an accumulator's must be a constant multiple of 16",
               loc_);
      if (f.ld != 0 && f.ld != *stride)
        refuse(where + " has row stride " + std::to_string(*stride) + " but another tile of " +
                   f.name + " has " + std::to_string(f.ld),
               loc_);
      f.ld = *stride;
      if (f.elems % (kTile * f.ld) != 0)
        refuse("accumulator " + f.name + " of " + std::to_string(f.elems) +
                   " elements is not whole rows of 16x16 tiles of row stride " +
                   std::to_string(f.ld),
               loc_);
      const Expr c16 = make_int(kTile, off.dtype()), cld = make_int(f.ld, off.dtype());
      const std::string off_grid = where + " is not on the 16x16 grid of " + f.name;
      prove(floormod(off, c16) == make_int(0, off.dtype()), off_grid);
      prove(floormod(floordiv(off, cld), c16) == make_int(0, off.dtype()), off_grid);
      const std::string outside = where + " is not inside " + f.name;
      prove(off >= make_int(0, off.dtype()), outside);
      prove(
          off + make_int((kTile - 1) * f.ld + kTile, off.dtype()) <= make_int(f.elems, off.dtype()),
          outside);
      return;
    }
    // In memory: the alignment wmma.load/store need.
    const int64_t bytes = at.dtype.bytes();
    const Expr first = make_int(32 / bytes, off.dtype());
    prove(floormod(off, first) == make_int(0, off.dtype()),
          where + " does not start at a multiple of 32 bytes");
    const Expr row = make_int(16 / bytes, ld.dtype());
    prove(floormod(ld, row) == make_int(0, ld.dtype()),
          where + ": row stride " + print_expr(ld) + " is not a multiple of 16 bytes");
  }

  Analyzer az_;
  std::unordered_map<const VarNode*, Fragment> fragments_;
  SourceLoc loc_;
};

// Binds the range of every loop in `s` (each variable is bound once).
void bind_loops(Analyzer& az, const Stmt& s) {
  struct Bind : StmtVisitor {
    Analyzer& az;
    explicit Bind(Analyzer& a) : az(a) {}
    void visit_for(const ForNode* n) override {
      az.bind(n->loop_var, Range{n->min, n->extent});
      StmtVisitor::visit_for(n);
    }
  } bind(az);
  bind.visit(s);
}

// Every T.address_of(acc[off]) of an accumulator's storage, and whether
// the storage is used any other way.
class AccumulatorUses : public StmtVisitor {
 public:
  explicit AccumulatorUses(const VarNode* data) : data_(data) {}
  std::vector<Expr> offsets;
  std::vector<int64_t> strides;
  bool other = false;

  void visit_evaluate(const EvaluateNode* n) override {
    const Intrinsic* in = find_warp_matrix(n->value);
    if (!in) return StmtVisitor::visit_evaluate(n);
    auto* call = n->value.as<CallNode>();
    const size_t tiles = warp_matrix_tiles(in->id);
    for (size_t i = 0; i < tiles; ++i) {
      const BufferLoadNode* at = address_of_element(call->args[2 * i]);
      if (at && at->buffer->data.get() == data_ && at->indices.size() == 1) {
        offsets.push_back(at->indices[0]);
        auto ld = as_const_int(call->args[2 * i + 1]);
        strides.push_back(ld.value_or(0));
        if (uses_var(at->indices[0], data_)) other = true;
      } else {
        visit(call->args[2 * i]);
      }
      visit(call->args[2 * i + 1]);
    }
    for (size_t i = 2 * tiles; i < call->args.size(); ++i) visit(call->args[i]);  // fill's value
  }
  void visit_var(const VarNode* v) override { other |= v == data_; }
  void visit_load(const BufferLoadNode* n) override {
    other |= n->buffer->data.get() == data_;
    StmtVisitor::visit_load(n);
  }
  void visit_store(const BufferStoreNode* n) override {
    other |= n->buffer->data.get() == data_;
    StmtVisitor::visit_store(n);
  }

 private:
  const VarNode* data_;
};

// Replaces the accumulator's tiles by the warp's own buffer at offset - base.
class Rebase : public StmtMutator {
 public:
  Rebase(const VarNode* data, Buffer local, const std::vector<Expr>& from,
         const std::vector<Expr>& to)
      : data_(data), local_(std::move(local)), from_(from), to_(to) {}

 protected:
  Expr mutate_load(const Expr& e, const BufferLoadNode* n) override {
    if (n->buffer->data.get() != data_) return StmtMutator::mutate_load(e, n);
    for (size_t i = 0; i < from_.size(); ++i)
      if (from_[i].same_as(n->indices[0])) return make_load(local_, {to_[i]});
    return e;
  }

 private:
  const VarNode* data_;
  Buffer local_;
  const std::vector<Expr>& from_;
  const std::vector<Expr>& to_;
};

}  // namespace

std::optional<Stmt> place_accumulator(const AllocateNode& a) {
  const VarNode* data = a.buffer_var.get();
  // In a sequence, the one statement that uses it (its kernel: a rounding
  // of its results after it, say, is another).
  if (auto* seq = a.body.as<SeqStmtNode>()) {
    std::optional<size_t> user;
    for (size_t i = 0; i < seq->seq.size(); ++i) {
      if (!vars_and_storage_of(seq->seq[i]).count(data)) continue;
      if (user) return std::nullopt;
      user = i;
    }
    if (!user) return std::nullopt;
    const AllocateNode one(a.buffer_var, a.dtype, a.extents, a.scope, seq->seq[*user]);
    std::optional<Stmt> placed = place_accumulator(one);
    if (!placed) return std::nullopt;
    std::vector<Stmt> parts = seq->seq;
    parts[*user] = *placed;
    return make_seq(parts);
  }
  // The thread-bound loops that enclose every use, outermost first, down to
  // the first statement that is not one (a warp's own iteration).
  std::vector<const ForNode*> chain;
  Stmt inner = a.body;
  while (auto* f = inner.as<ForNode>()) {
    if (f->for_kind != ForKind::ThreadBinding || f->thread_tag == "threadIdx.x") break;
    chain.push_back(f);
    inner = f->body;
  }
  if (chain.empty()) return std::nullopt;
  AccumulatorUses uses(data);
  uses.visit(inner);
  if (uses.other || uses.offsets.empty()) return std::nullopt;
  const int64_t ld = uses.strides.front();
  if (ld < kTile || ld % kTile != 0) return std::nullopt;
  for (int64_t s : uses.strides)
    if (s != ld) return std::nullopt;
  // offset = base (the chain's variables) + part (the rest, from 0 up).
  VarSet outer;
  for (const ForNode* f : chain) outer.insert(f->loop_var.get());
  // The parts' ranges come from the loops inside.
  Analyzer az;
  bind_loops(az, inner);
  std::vector<Expr> parts;
  Expr base;
  int64_t last = 0;
  for (const Expr& off : uses.offsets) {
    arith::LinearForm form = arith::decompose(az.simplify(off));
    arith::LinearForm b(form.dtype), p(form.dtype);
    p.add_constant(form.constant);
    for (const arith::LinearTerm& t : form.terms) {
      const bool of_chain = uses_any(t.term, outer);
      if (of_chain && uses_any(t.term, [&](const VarNode* v) { return !outer.count(v); }))
        return std::nullopt;
      (of_chain ? b : p).add_term(t.term, t.coef);
    }
    const Expr this_base = arith::emit(b);
    if (base && !az.can_prove_equal(base, this_base)) return std::nullopt;
    base = this_base;
    const Expr part = arith::emit(p);
    const ConstIntBound r = az.const_int_bound(part);
    if (!r.min || !r.max || *r.min < 0) return std::nullopt;
    last = std::max(last, *r.max);
    parts.push_back(part);
  }
  // Whole rows of tiles holding the last tile's last element.
  const int64_t row = kTile * ld;
  const int64_t elems = (last + (kTile - 1) * ld + kTile + row - 1) / row * row;
  Buffer local = make_buffer(a.buffer_var->name, a.dtype, {make_int(elems)}, a.scope);
  auto alloc = std::make_shared<AllocateNode>(
      local->data, a.dtype, std::vector<Expr>{make_int(elems)}, a.scope,
      Rebase(data, local, uses.offsets, parts).mutate(inner));
  alloc->loc = a.loc;
  Stmt placed(std::move(alloc));
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) placed = with_body(**it, placed);
  return placed;
}

bool is_warp_matrix(const Stmt& s) {
  auto* e = s.as<EvaluateNode>();
  return e && find_warp_matrix(e->value);
}

void check_warp_matrix(const Stmt& kernel) {
  TileCheck().visit(kernel);
}

void FunctionEmitter::fragment_allocate(const AllocateNode& a) {
  if (std::find(thread_tags_.begin(), thread_tags_.end(), "threadIdx.x") != thread_tags_.end())
    refuse("accumulator " + a.buffer_var->name +
               " (scope \"wmma.accumulator\") is inside a threadIdx.x loop: it belongs to a warp, "
               "all 32 threads along threadIdx.x",
           loc_);
  if (a.dtype != DataType::float32())
    refuse("accumulator " + a.buffer_var->name + " has type " + a.dtype.str() + ", not float32",
           loc_);
  // Each warp has its own registers: outside a launched threadIdx.y/z loop
  // (a shared-memory matmul's, alive across the k loop's sibling nests) the
  // warp's part of the block's buffer.
  int64_t elems = constant_elements(a.extents, "allocation " + a.buffer_var->name, loc_);
  Stmt body = a.body;
  for (const std::string& tag : plan_->thread_tags())
    if (tag != "threadIdx.x" &&
        std::find(thread_tags_.begin(), thread_tags_.end(), tag) == thread_tags_.end()) {
      ThreadSlice slice = slice_by_thread(a, *plan_, thread_tags_, true);
      elems = slice.elements;
      body = std::move(slice.body);
      break;
    }
  if (elems % (kTile * kTile) != 0 || elems == 0)
    refuse("accumulator " + a.buffer_var->name + " of " + std::to_string(elems) +
               " elements is not whole 16x16 tiles",
           loc_);
  // The tile rows and columns its accesses reach (check_warp_matrix proved
  // them on the grid, inside the buffer, with one row stride).
  AccumulatorUses uses(a.buffer_var.get());
  uses.visit(body);
  const int64_t ld = uses.strides.empty() ? kTile : uses.strides.front();
  int64_t rows = elems / (kTile * ld), columns = ld / kTile;
  if (!uses.offsets.empty()) {
    Analyzer az;
    bind_loops(az, body);
    int64_t last_row = 0, last_column = 0;
    for (const Expr& off : uses.offsets) {
      const DataType t = off.dtype();
      const ConstIntBound r =
          az.const_int_bound(az.simplify(floordiv(off, make_int(kTile * ld, t))));
      const ConstIntBound c = az.const_int_bound(
          az.simplify(floordiv(floormod(off, make_int(ld, t)), make_int(kTile, t))));
      last_row = r.max ? std::max(last_row, *r.max) : rows - 1;
      last_column = c.max ? std::max(last_column, *c.max) : columns - 1;
    }
    rows = std::min(rows, last_row + 1);
    columns = std::min(columns, last_column + 1);
  }
  const int64_t tiles = rows * columns;
  if (tiles * kFragmentFloats * 4 > CudaLimits::max_local_bytes)
    refuse("accumulator " + a.buffer_var->name + " has " + std::to_string(tiles) +
               " tiles, over the registers a thread can hold",
           loc_);
  llvm::AllocaInst* regs =
      entry_alloca(b_.getFloatTy(), b_.getInt64(static_cast<uint64_t>(tiles) * kFragmentFloats), 16,
                   a.buffer_var->name + ".fragments");
  fragments_[a.buffer_var.get()] = Fragments{regs, columns};
  private_buffers_.insert(a.buffer_var.get());
  kernel_allocations_.insert(a.buffer_var.get());
  stmt(body);
  fragments_.erase(a.buffer_var.get());
  private_buffers_.erase(a.buffer_var.get());
  kernel_allocations_.erase(a.buffer_var.get());
}

void FunctionEmitter::warp_matrix(const CallNode& c) {
  using namespace llvm;
  const Intrinsic* in = find_intrinsic(c, Backend::Cuda);
  // WMMA came with sm_70, its bfloat16 form with sm_80.
  const bool bf16 = std::any_of(c.args.begin(), c.args.end(), [](const Expr& e) {
    const BufferLoadNode* at = address_of_element(e);
    return at && at->dtype == DataType::bfloat16();
  });
  const int need = bf16 ? 80 : 70, sm = m_.options.target.compute_capability();
  if (sm < need)
    refuse("T." + std::string(in->name) + (bf16 ? " on bfloat16 tiles" : "") + " needs sm_" +
               std::to_string(need) + " or later; the target is " + m_.options.target.cpu,
           loc_);
  Type* f32 = b_.getFloatTy();
  // A tile operand: its accumulator registers (first float) or its address.
  struct Operand {
    Value* registers = nullptr;
    Value* address = nullptr;
    Value* ld = nullptr;
    DataType elem;
  };
  auto operand = [&](size_t i) {
    Operand o;
    const BufferLoadNode* at = address_of_element(c.args[i]);
    o.elem = at->dtype;
    o.ld = b_.CreateSExtOrTrunc(expr(c.args[i + 1]), b_.getInt32Ty());
    auto frag = fragments_.find(at->buffer->data.get());
    if (frag == fragments_.end()) {
      o.address = element_address(at->buffer, index_expr(at->indices[0]));
      return o;
    }
    // Tile (R, C) of row stride ld: fragment R * columns + C (check_warp_matrix
    // proved the grid and the constant stride, fragment_allocate C < columns).
    const Expr off = at->indices[0];
    const int64_t ld = *as_const_int(c.args[i + 1]);
    const Expr t = make_int(kTile, off.dtype());
    const Expr id = floordiv(off, make_int(kTile * ld, off.dtype())) *
                        make_int(frag->second.columns, off.dtype()) +
                    floordiv(floormod(off, make_int(ld, off.dtype())), t);
    Value* first =
        b_.CreateMul(b_.CreateSExtOrTrunc(expr(id), b_.getInt64Ty()), b_.getInt64(kFragmentFloats));
    o.registers = b_.CreateGEP(f32, frag->second.registers, first);
    return o;
  };
  auto read_accumulator = [&](const Operand& o) {
    std::vector<Value*> v;
    if (o.registers) {
      for (unsigned k = 0; k < kFragmentFloats; ++k)
        v.push_back(b_.CreateLoad(f32, b_.CreateConstGEP1_32(f32, o.registers, k)));
      return v;
    }
    Value* r = b_.CreateIntrinsic(llvm::Intrinsic::nvvm_wmma_m16n16k16_load_c_f32_row_stride,
                                  {o.address->getType()}, {o.address, o.ld});
    for (unsigned k = 0; k < kFragmentFloats; ++k) v.push_back(b_.CreateExtractValue(r, k));
    return v;
  };
  auto write_accumulator = [&](const Operand& o, const std::vector<Value*>& v) {
    if (o.registers) {
      for (unsigned k = 0; k < kFragmentFloats; ++k)
        b_.CreateStore(v[k], b_.CreateConstGEP1_32(f32, o.registers, k));
      return;
    }
    std::vector<Value*> args{o.address};
    args.insert(args.end(), v.begin(), v.end());
    args.push_back(o.ld);
    b_.CreateIntrinsic(llvm::Intrinsic::nvvm_wmma_m16n16k16_store_d_f32_row_stride,
                       {o.address->getType()}, args);
  };
  auto fragment_of = [&](const Operand& o, bool is_a) {
    const bool bf16 = o.elem == DataType::bfloat16();
    const llvm::Intrinsic::ID id =
        is_a ? (bf16 ? llvm::Intrinsic::nvvm_wmma_m16n16k16_load_a_bf16_row_stride
                     : llvm::Intrinsic::nvvm_wmma_m16n16k16_load_a_f16_row_stride)
             : (bf16 ? llvm::Intrinsic::nvvm_wmma_m16n16k16_load_b_bf16_row_stride
                     : llvm::Intrinsic::nvvm_wmma_m16n16k16_load_b_f16_row_stride);
    Value* r = b_.CreateIntrinsic(id, {o.address->getType()}, {o.address, o.ld});
    std::vector<Value*> v;
    for (unsigned k = 0; k < llvm::cast<StructType>(r->getType())->getNumElements(); ++k)
      v.push_back(b_.CreateExtractValue(r, k));
    return v;
  };

  switch (in->id) {
    case IntrinsicId::MmaFill: {
      const Operand acc = operand(0);
      Value* value = expr(c.args[2]);
      write_accumulator(acc, std::vector<Value*>(kFragmentFloats, value));
      return;
    }
    case IntrinsicId::MmaSync: {
      const Operand acc = operand(0), a = operand(2), b = operand(4);
      if (a.registers || b.registers)
        refuse("T.mma_sync: its a and b tiles are in an accumulator; they must be in memory", loc_);
      std::vector<Value*> args = fragment_of(a, true);
      const std::vector<Value*> fb = fragment_of(b, false);
      args.insert(args.end(), fb.begin(), fb.end());
      const std::vector<Value*> fc = read_accumulator(acc);
      args.insert(args.end(), fc.begin(), fc.end());
      const llvm::Intrinsic::ID id = a.elem == DataType::bfloat16()
                                         ? llvm::Intrinsic::nvvm_wmma_m16n16k16_mma_row_row_bf16
                                         : llvm::Intrinsic::nvvm_wmma_m16n16k16_mma_row_row_f32_f32;
      Value* d = b_.CreateIntrinsic(id, {}, args);
      std::vector<Value*> out;
      for (unsigned k = 0; k < kFragmentFloats; ++k) out.push_back(b_.CreateExtractValue(d, k));
      write_accumulator(acc, out);
      return;
    }
    default: {
      const Operand dst = operand(0), acc = operand(2);
      write_accumulator(dst, read_accumulator(acc));
      return;
    }
  }
}

}  // namespace tirc::llvm_gen
