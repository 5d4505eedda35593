#include "ir/guarded_load.h"

#include <cmath>

namespace tirc {

GuardedLoad as_guarded_load(const Expr& e) {
  if (auto* load = e.as<BufferLoadNode>()) return {load, Expr()};
  auto* sel = e.as<CallNode>();
  if (!sel || sel->op != "if_then_else" || sel->args.size() != 3 ||
      sel->args[0].dtype() != DataType::boolean())
    return {};
  auto* load = sel->args[1].as<BufferLoadNode>();
  auto* zero = sel->args[2].as<FloatImmNode>();
  if (!load || !zero || zero->value != 0 || std::signbit(zero->value) ||
      zero->dtype != load->dtype)
    return {};
  return {load, sel->args[0]};
}

}  // namespace tirc
