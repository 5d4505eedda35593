// What the general x86 emitter offers to specialised emitters (the contraction
// kernel emitter, codegen/x86/contraction_emit.h) that take over one loop nest.
#pragma once

#include <vector>

#include <xbyak/xbyak.h>

#include "codegen/x86/constant_pool.h"
#include "codegen/x86/target.h"
#include "ir/expr.h"
#include "ir/substitute.h"

namespace tirc {

class EmitContext {
 public:
  virtual ~EmitContext() = default;

  virtual Xbyak::CodeGenerator& code() = 0;
  virtual const Target& target() const = 0;
  virtual ConstantPool& constants() = 0;

  // General-purpose registers the specialised emitter may use freely while it
  // emits its nest (at least 8 on entry). The general emitter has saved
  // whatever they held; none of them is rsp.
  virtual std::vector<Xbyak::Reg64> scratch_gprs() = 0;
  // Vector register indices (0..31 on AVX-512, 0..15 on AVX2) free for the
  // nest; with AVX-512 also opmask registers k1..k7.
  virtual std::vector<int> scratch_vector_registers() = 0;

  // Emits code that computes integer expression e as a 64-bit value into dst.
  // e may use only variables bound outside the nest being emitted (loop
  // variables, lets, parameters). Clobbers dst and no register in
  // scratch_gprs() / scratch_vector_registers().
  virtual void eval_int(const Expr& e, const Xbyak::Reg64& dst) = 0;
  // Loads the address of element 0 of the storage named by `data` (a buffer
  // parameter or an Allocate) into dst. Same clobber rule as eval_int.
  virtual void load_address(const Var& data, const Xbyak::Reg64& dst) = 0;
  // Variables bound outside the nest whose value is known where it is being
  // emitted (a border part of a partitioned loop: its one iteration).
  virtual VarMap known_constants() const { return {}; }
};

}  // namespace tirc
