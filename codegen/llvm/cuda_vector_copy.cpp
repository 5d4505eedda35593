// A Vectorized loop of a kernel that copies contiguous elements,
//
//   for v in T.vectorized(min, min + n): D[d + v] = S[s + v]
//
// (a shared-memory tile's copy, gpu_tensor_core.cpp), where the n elements
// make 4, 8 or 16 bytes and d and s at v = min are multiples of n: one
// vector load and one vector store (ld.global.v4.u32 and st.shared.v4.u32
// for 16 bytes) instead of n of each. A multiple of n is proved from the
// index's form alone: its constant and every coefficient are multiples of n,
// whatever the variables hold. Buffers start aligned (global memory at
// multiples of 256 bytes from cuMemAlloc, shared memory at 128: cuda.h);
// local buffers are not taken. Any other Vectorized loop runs serially.
#include "codegen/llvm/cuda_emitter.h"
#include "ir/arith/linear_form.h"
#include "ir/substitute.h"
#include "ir/var_use.h"

namespace tirc::llvm_gen {

namespace {

// The index at v = min when it is that plus v (coefficient 1, v nowhere
// else) and a multiple of `lanes`; an empty Expr otherwise.
Expr aligned_base(const Expr& index, const ForNode& f, int64_t lanes) {
  const VarNode* v = f.loop_var.get();
  arith::AffineRules rules;
  rules.of_interest = [v](const VarNode* x) { return x == v; };
  std::optional<arith::LinearForm> form = arith::decompose(index, rules);
  if (!form || form->coefficient(v) != 1) return Expr();
  for (const arith::LinearTerm& t : form->terms)
    if (t.kind != arith::TermKind::Var && uses_var(t.term, v)) return Expr();
  const Expr base = substitute(index, VarMap{{v, f.min}});
  const arith::LinearForm at = arith::decompose(base);
  if (at.constant % lanes != 0) return Expr();
  for (const arith::LinearTerm& t : at.terms)
    if (t.coef % lanes != 0) return Expr();
  return base;
}

bool aligned_scope(const Buffer& b) {
  return b->scope == "global" || b->scope.empty() || b->scope == "shared";
}

}  // namespace

bool FunctionEmitter::vector_copy(const ForNode& f) {
  const std::optional<int64_t> n = as_const_int(f.extent);
  auto* st = f.body.as<BufferStoreNode>();
  auto* ld = st ? st->value.as<BufferLoadNode>() : nullptr;
  if (!n || !ld || st->indices.size() != 1 || ld->indices.size() != 1) return false;
  const DataType t = st->buffer->dtype;
  if (ld->buffer->dtype != t || !t.is_scalar() || !aligned_scope(st->buffer) ||
      !aligned_scope(ld->buffer))
    return false;
  const int64_t bytes = *n * t.bytes();
  if (bytes != 4 && bytes != 8 && bytes != 16) return false;
  // Each thread its own copy: outside some thread loops, kernel_store has
  // one thread store for all.
  if (among_threads()) return false;
  const Expr to = aligned_base(st->indices[0], f, *n), from = aligned_base(ld->indices[0], f, *n);
  if (!to || !from) return false;
  // Whole 32-bit words: the bytes move unchanged whatever their type.
  llvm::Type* words = bytes == 4 ? static_cast<llvm::Type*>(b_.getInt32Ty())
                                 : llvm::FixedVectorType::get(b_.getInt32Ty(), bytes / 4);
  const llvm::Align align(static_cast<uint64_t>(bytes));
  llvm::Value* value = b_.CreateAlignedLoad(words, element_address(ld->buffer, index_expr(from)),
                                            align, ld->buffer->name + ".vec");
  b_.CreateAlignedStore(value, element_address(st->buffer, index_expr(to)), align);
  return true;
}

}  // namespace tirc::llvm_gen
