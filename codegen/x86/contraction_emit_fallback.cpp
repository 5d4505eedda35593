// TEMPORARY: stands in for the contraction emitter until it lands (the
// integrator deletes this file). Declines every nest.
#include "codegen/x86/contraction_emit.h"

namespace tirc {

bool try_emit_contraction(EmitContext&, const ForNode&) {
  return false;
}

}  // namespace tirc
