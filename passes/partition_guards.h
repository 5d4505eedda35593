// The analysis behind partition-loops (internal to passes/): for one loop
// variable v and the loop's body, which values of v make guards hold at every
// iteration of the loops inside, and outside which values the body provably
// does nothing.
#pragma once

#include <vector>

#include "ir/arith/analyzer.h"
#include "ir/arith/bound.h"
#include "ir/stmt.h"

namespace tirc::passes {

struct GuardFacts {
  // One entry per guard conjunct `affine(v, inner vars) < / <= / > / >= ...`
  // (of an `if` around statements, or of a scalar if_then_else in a store)
  // (v with a constant coefficient, every other term bounded): the values of v
  // for which it holds whatever the inner loop variables are. A prefix or a
  // suffix of the integers, possibly empty.
  std::vector<arith::Interval> holds_on;
  // Outside this interval every guard around everything the body does is
  // false for every inner iteration, so those values of v may be skipped.
  arith::Interval live = arith::Interval::everything();
  // The body allocates storage; copies of it would need new storage variables.
  bool allocates = false;
  // The body holds thread-bound loops: it is a GPU block's sequence of phases.
  bool binds_threads = false;
};

// `outer` bounds v to the loop's range and the variables of enclosing loops
// to theirs (v's range is how a conjunct is shown not to wrap); `enclosing`
// lists those loops' variables, outermost first.
//
// A selection inside arithmetic (an operand guard: a pad inlined into a
// convolution, `C = C + if_then_else(0 <= h + kh - 1 .., X[..], 0) * W[..]`)
// counts only for a loop over which the store's index varies and that no
// such reduction loop encloses: splitting a reduction loop, or a loop inside
// one, would leave the register tile of the contraction emitter in pieces,
// and the emitter resolves those guards per product itself.
GuardFacts scan_guards(const Var& v, const Stmt& body, const Analyzer& outer,
                       const std::vector<Var>& enclosing = {});

// True when evaluating e could stop the function (integer division by a
// non-constant divisor returns from generated code), so skipping its
// evaluation would change behaviour.
bool may_trap(const Expr& e);

// A scalar-condition if_then_else(cond, then, else).
bool is_selection(const CallNode* n);

}  // namespace tirc::passes
