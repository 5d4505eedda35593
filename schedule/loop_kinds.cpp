// parallel, vectorize, unroll, bind: the kind of a loop; annotate and
// unannotate: key/value attributes of loops and blocks.
#include <algorithm>
#include <array>

#include "ir/text/printer.h"
#include "schedule/analysis.h"
#include "schedule/iteration_conflict.h"
#include "schedule/loop_rewrite.h"
#include "schedule/schedule.h"

namespace tirc {

namespace {

struct LoopAt {
  std::string func;
  StmtPath path;
  const ForNode* loop;
};

LoopAt locate(const Schedule& sch, LoopRV rv, const std::string& primitive) {
  const Schedule::LoopEntry e = sch.resolve(rv, primitive);
  StmtPath path = *find_loop(sch.func(e.func)->body, e.var.get());
  const ForNode* loop = path.node().as<ForNode>();
  return {e.func, std::move(path), loop};
}

// Running iterations of the loop in any order (or at once) is safe only when
// its variable feeds data-parallel iteration variables through affine bindings.
void check_data_parallel(const Schedule& sch, const LoopAt& at, const std::string& primitive) {
  const Stmt& body = sch.func(at.func)->body;
  const std::string& name = at.loop->loop_var->name;
  std::vector<std::string> bad = non_affine_blocks_using(body, at.path.node());
  if (!bad.empty())
    throw ScheduleError(
        primitive, "block " + bad.front() + " under loop " + name + " has a non-affine binding");
  for (const BoundIterVar& b :
       iter_vars_bound_by(at.loop->loop_var.get(), child_blocks(at.path.node())))
    if (b.iter_var->kind != IterKind::DataPar)
      throw ScheduleError(primitive, "loop " + name + " binds " + iter_kind_name(b.iter_var->kind) +
                                         " variable " + b.iter_var->var->name + " of block " +
                                         b.block->block->name);
}

}  // namespace

static void set_loop_kind(Schedule& sch, LoopRV rv, const std::string& primitive, ForKind kind,
                          std::string tag) {
  LoopAt at = locate(sch, rv, primitive);
  const PrimFunc& f = sch.func(at.func);
  Stmt replaced = replace_stmt(f->body, at.loop, with_kind(*at.loop, kind, std::move(tag)));
  sch.update_func(at.func, with_body(f, replaced), primitive);
}

// Concurrent iterations (threads, vector lanes) must not write an element
// another iteration writes or reads.
static void check_no_write_conflict(const LoopAt& at, const std::string& primitive,
                                    const std::string& thread_tag = {}) {
  if (auto why = iteration_conflict(at.path, thread_tag)) throw ScheduleError(primitive, *why);
}

void Schedule::parallel(LoopRV loop) {
  LoopAt at = locate(*this, loop, "parallel");
  check_data_parallel(*this, at, "parallel");
  check_no_write_conflict(at, "parallel");
  set_loop_kind(*this, loop, "parallel", ForKind::Parallel, "");
  record(Instruction{"parallel", {}, {{"loop", trace_rv(loop)}}, {}, false});
}

void Schedule::vectorize(LoopRV loop) {
  LoopAt at = locate(*this, loop, "vectorize");
  if (!as_const_int(at.loop->extent))
    throw ScheduleError("vectorize", "loop " + at.loop->loop_var->name +
                                         " has non-constant extent " + print_expr(at.loop->extent));
  check_data_parallel(*this, at, "vectorize");
  check_no_write_conflict(at, "vectorize");
  set_loop_kind(*this, loop, "vectorize", ForKind::Vectorized, "");
  record(Instruction{"vectorize", {}, {{"loop", trace_rv(loop)}}, {}, false});
}

void Schedule::unroll(LoopRV loop) {
  locate(*this, loop, "unroll");
  set_loop_kind(*this, loop, "unroll", ForKind::Unrolled, "");
  record(Instruction{"unroll", {}, {{"loop", trace_rv(loop)}}, {}, false});
}

void Schedule::bind(LoopRV loop, const std::string& thread_axis) {
  static const std::array<const char*, 9> kAxes = {"blockIdx.x",  "blockIdx.y",  "blockIdx.z",
                                                   "threadIdx.x", "threadIdx.y", "threadIdx.z",
                                                   "vthread.x",   "vthread.y",   "vthread.z"};
  LoopAt at = locate(*this, loop, "bind");
  if (std::find(kAxes.begin(), kAxes.end(), thread_axis) == kAxes.end())
    throw ScheduleError(
        "bind", "unknown thread axis \"" + thread_axis + "\" for loop " + at.loop->loop_var->name);
  check_data_parallel(*this, at, "bind");
  check_no_write_conflict(at, "bind", thread_axis);
  set_loop_kind(*this, loop, "bind", ForKind::ThreadBinding, thread_axis);
  record(
      Instruction{"bind", {}, {{"loop", trace_rv(loop)}, {"thread_axis", thread_axis}}, {}, false});
}

namespace {

TraceValue annotation_trace_value(const Expr& v) {
  if (auto* s = v.as<StringImmNode>()) return s->value;
  if (auto* d = v.as<FloatImmNode>()) return d->value;
  auto* i = v.as<IntImmNode>();
  if (v.dtype().is_bool()) return i->value != 0;
  return i->value;
}

// The target's annotations after `edit`, written back into the function.
template <class Edit>
void edit_annotations(Schedule& sch, BlockOrLoop target, const std::string& primitive, Edit edit) {
  if (auto* b = std::get_if<BlockRV>(&target)) {
    const Schedule::BlockEntry e = sch.resolve(*b, primitive);
    const PrimFunc& f = sch.func(e.func);
    StmtPath path = *find_block(f->body, e.name);
    auto* realize = path.node().as<BlockRealizeNode>();
    Block block =
        with_annotations(*realize->block, edit(realize->block->annotations, "block " + e.name));
    sch.update_func(e.func,
                    with_body(f, replace_stmt(f->body, realize, with_block(*realize, block))),
                    primitive);
    return;
  }
  LoopAt at = locate(sch, std::get<LoopRV>(target), primitive);
  const PrimFunc& f = sch.func(at.func);
  Annotations ann = edit(at.loop->annotations, "loop " + at.loop->loop_var->name);
  sch.update_func(
      at.func,
      with_body(f, replace_stmt(f->body, at.loop, with_annotations(*at.loop, std::move(ann)))),
      primitive);
}

}  // namespace

void Schedule::annotate(BlockOrLoop target, const std::string& key, const Expr& value) {
  const std::string P = "annotate";
  bool immediate =
      value && (value.as<StringImmNode>() || value.as<FloatImmNode>() || value.as<IntImmNode>());
  edit_annotations(*this, target, P, [&](const Annotations& old, const std::string& what) {
    if (!immediate)
      throw ScheduleError(P, "the value for key \"" + key + "\" on " + what +
                                 " must be an int, float, bool or string immediate");
    Annotations ann = old;
    ann[key] = value;
    return ann;
  });
  record(Instruction{P,
                     {},
                     {{"block_or_loop", trace_value(target)},
                      {"ann_key", key},
                      {"ann_val", annotation_trace_value(value)}},
                     {},
                     false});
}

void Schedule::unannotate(BlockOrLoop target, const std::string& key) {
  const std::string P = "unannotate";
  edit_annotations(*this, target, P, [&](const Annotations& old, const std::string& what) {
    if (!old.count(key)) throw ScheduleError(P, what + " has no annotation \"" + key + "\"");
    Annotations ann = old;
    ann.erase(key);
    return ann;
  });
  record(Instruction{P, {}, {{"block_or_loop", trace_value(target)}, {"ann_key", key}}, {}, false});
}

}  // namespace tirc
