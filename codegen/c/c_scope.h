// The variables visible at a point of the emitted C code: which C name and
// which shape (scalar, per-lane array, pointer) each TIR variable has there.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ir/expr.h"

namespace tirc::c_emit {

struct CVar {
  enum class Kind { Scalar, Vector, Handle };
  std::string name;
  Kind kind = Kind::Scalar;
  DataType dtype;       // the variable's type (lanes > 1 for Vector)
  std::string pointee;  // Handle: C element type the pointer is declared with
};

class CScope {
 public:
  // A fresh C identifier derived from hint, unique in the translation unit.
  std::string fresh_name(const std::string& hint);

  // Makes v visible as `info` until the matching leave(v).
  void enter(const VarNode* v, CVar info);
  void leave(const VarNode* v);
  // nullptr when v is not visible.
  const CVar* find(const VarNode* v) const;
  // Every visible variable, innermost definition of each.
  std::vector<std::pair<const VarNode*, CVar>> visible() const;

 private:
  std::map<const VarNode*, std::vector<CVar>> vars_;
  int next_id_ = 0;
};

// The C expression for lane `lane` of e (lane 0 for scalars), of C type
// value_type(e.dtype()). Throws tirc::Error (at loc) for anything outside the
// lowered form.
std::string emit_expr(const CScope& scope, const Expr& e, int lane, const SourceLoc& loc);

// The C lvalue of element `index` (an already emitted C expression) of the
// flat buffer b, in b's storage type.
std::string buffer_element(const CScope& scope, const Buffer& b, const std::string& index,
                           const SourceLoc& loc);

// Conversions between a value of b's element type and its memory form.
std::string from_storage(DataType t, const std::string& element);
std::string to_storage(DataType t, const std::string& value);

}  // namespace tirc::c_emit
