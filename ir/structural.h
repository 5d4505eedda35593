// Structural equality and hashing: two programs are equal when they have the
// same shape, types, constants and names of blocks and buffers in the same
// places, with variables matched by where they are defined (so renaming a
// loop variable keeps a program equal; using a different variable does not).
// Source locations are ignored.
#pragma once

#include <cstddef>
#include <string>

#include "ir/function.h"

namespace tirc {

bool structural_equal(const Expr& a, const Expr& b);
bool structural_equal(const Stmt& a, const Stmt& b);
bool structural_equal(const PrimFunc& a, const PrimFunc& b);
bool structural_equal(const IRModule& a, const IRModule& b);

// Equal programs hash equal; the hash ignores variable names.
size_t structural_hash(const Expr& e);
size_t structural_hash(const Stmt& s);
size_t structural_hash(const PrimFunc& f);

// Where two programs first differ, for test failures and `tirc equiv`;
// empty when they are equal.
std::string structural_diff(const PrimFunc& a, const PrimFunc& b);

}  // namespace tirc
