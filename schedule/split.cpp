// split: one loop into a nest of loops whose extents are the factors.
#include <algorithm>

#include "ir/text/printer.h"
#include "schedule/loop_rewrite.h"
#include "schedule/schedule.h"

namespace tirc {

std::vector<LoopRV> Schedule::split(LoopRV loop_rv, const std::vector<SplitFactor>& factors,
                                    bool preserve_unit_iters, bool disable_predication) {
  const std::string P = "split";
  const LoopEntry entry = resolve(loop_rv, P);
  const PrimFunc& f = mod_.at(entry.func);
  const StmtPath path = *find_loop(f->body, entry.var.get());
  const ForNode* loop = path.node().as<ForNode>();
  const std::string& name = loop->loop_var->name;

  std::optional<int64_t> extent = as_const_int(loop->extent);
  if (!extent)
    throw ScheduleError(P, "loop " + name + " has non-constant extent " + print_expr(loop->extent));
  std::optional<int64_t> min = as_const_int(loop->min);
  if (!min)
    throw ScheduleError(P, "loop " + name + " has non-constant min " + print_expr(loop->min));
  if (factors.empty()) throw ScheduleError(P, "no factors given for loop " + name);

  std::vector<int64_t> values(factors.size(), 0);
  int none_at = -1;
  int64_t known = 1;
  for (size_t k = 0; k < factors.size(); ++k) {
    const SplitFactor& sf = factors[k];
    if (sf.is_none()) {
      if (none_at >= 0)
        throw ScheduleError(P, "at most one factor of loop " + name + " may be None");
      none_at = static_cast<int>(k);
      continue;
    }
    int64_t v = 0;
    if (sf.value) {
      v = *sf.value;
    } else {
      try {
        v = get(*sf.rv);
      } catch (const ScheduleError&) {
        throw;
      } catch (const Error& e) {
        throw ScheduleError(P, e.what());
      }
    }
    if (v <= 0)
      throw ScheduleError(P,
                          "factor " + std::to_string(v) + " for loop " + name + " is not positive");
    values[k] = v;
    // The split loops' iteration space must stay within the loop variable's
    // type, or `i_0 * f + i_1` wraps around.
    const int bits = std::min(loop->loop_var->dtype.bits(), 63);
    const int64_t limit = (int64_t{1} << (bits - 1)) - 1;
    if (v > limit / known || known * v > limit - *min)
      throw ScheduleError(
          P, "the factors of loop " + name + " overflow its type " + loop->loop_var->dtype.str());
    known *= v;
  }
  if (none_at >= 0) {
    values[none_at] = (*extent + known - 1) / known;
  } else if (known < *extent) {
    throw ScheduleError(P, "the factors' product " + std::to_string(known) +
                               " is less than the extent " + std::to_string(*extent) + " of loop " +
                               name);
  }
  int64_t product = 1;
  for (int64_t v : values) product *= v;
  if (product > (int64_t{1} << (std::min(loop->loop_var->dtype.bits(), 63) - 1)) - 1 - *min)
    throw ScheduleError(
        P, "the factors of loop " + name + " overflow its type " + loop->loop_var->dtype.str());
  const bool over_cover = product > *extent;
  if (over_cover && disable_predication)
    throw ScheduleError(P, "disable_predication=True, but the factors' product " +
                               std::to_string(product) + " exceeds the extent " +
                               std::to_string(*extent) + " of loop " + name +
                               ": the split needs its predicate");
  if (over_cover && has_stmt_outside_blocks(loop->body))
    throw ScheduleError(
        P, "loop " + name + " holds statements outside blocks, which a predicate cannot guard");

  // The new loops, outermost first, and the value the old variable takes.
  const DataType dt = loop->loop_var->dtype;
  std::vector<Var> vars;
  Analyzer az = analyzer_for_path(path);
  Expr fused;
  for (size_t k = 0; k < values.size(); ++k) {
    vars.push_back(make_var(name + "_" + std::to_string(k), dt));
    az.bind(vars.back(), Range{make_int(0, dt), make_int(values[k], dt)});
    Expr term = (!preserve_unit_iters && values[k] == 1) ? make_int(0, dt) : Expr(vars.back());
    fused = fused ? fused * make_int(values[k], dt) + term : term;
  }
  fused = az.simplify(fused);
  Expr value = *min == 0 ? fused : az.simplify(loop->min + fused);

  Stmt body = substitute_bindings(loop->body, {{loop->loop_var.get(), value}}, az);
  if (over_cover) body = add_block_predicate(body, fused < make_int(*extent, dt));
  for (size_t k = vars.size(); k-- > 0;)
    body = make_for(vars[k], make_int(0, dt), make_int(values[k], dt), ForKind::Serial, body);

  update_func(entry.func, with_body(f, replace_stmt(f->body, loop, body)), "split");

  Instruction inst;
  inst.kind = P;
  inst.list_output = true;
  TraceList recorded;
  for (const SplitFactor& sf : factors) {
    if (sf.is_none())
      recorded.emplace_back(nullptr);
    else if (sf.value)
      recorded.emplace_back(*sf.value);
    else
      recorded.emplace_back(trace_rv(*sf.rv));
  }
  inst.keywords.emplace_back("loop", TraceValue(trace_rv(loop_rv)));
  inst.keywords.emplace_back("factors", TraceValue(std::move(recorded)));
  inst.keywords.emplace_back("preserve_unit_iters", TraceValue(preserve_unit_iters));
  if (disable_predication) inst.keywords.emplace_back("disable_predication", TraceValue(true));
  std::vector<LoopRV> out;
  for (const Var& v : vars) {
    out.push_back(new_loop_rv(entry.func, v));
    inst.outputs.push_back(trace_rv(out.back()));
  }
  record(std::move(inst));
  return out;
}

}  // namespace tirc
