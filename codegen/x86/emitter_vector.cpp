#include "codegen/x86/emitter.h"

namespace tirc {

bool can_vectorize(const ForNode&, Isa, std::string* why) {
  if (why) *why = "not yet";
  return false;
}
int FunctionEmitter::eval_vec(const Expr&, const VecCtx&) {
  fail("vector expressions not yet supported");
}
int FunctionEmitter::eval_vec_load(const Expr&, const Buffer&, const VecCtx&) {
  fail("vector");
}
void FunctionEmitter::emit_vec_store(const BufferStoreNode&, const VecCtx&) {
  fail("vector stores not yet supported");
}
void FunctionEmitter::emit_vectorized(const ForNode&) {
  fail("vector");
}
void FunctionEmitter::emit_tail_mask(const Xbyak::Reg64&, int) {}
bool FunctionEmitter::depends_on(const Expr&, const VarNode*) const {
  return true;
}
bool FunctionEmitter::vector_stride(const Expr&, const VecCtx&, int64_t*, Expr*) const {
  return false;
}

}  // namespace tirc
