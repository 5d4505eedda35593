// PLACEHOLDERS so that trace replay links before the primitive families are
// merged: each refuses with "not implemented in this build". Delete a
// definition here when its family's file (loops.cpp, loop_kinds.cpp, ...)
// lands -- the linker reports a duplicate otherwise.
#include "schedule/schedule.h"

namespace tirc {

namespace {
[[noreturn]] void pending(const char* primitive) {
  throw ScheduleError(primitive, "not implemented in this build");
}
}  // namespace

std::vector<LoopRV> Schedule::split(LoopRV, const std::vector<SplitFactor>&, bool) {
  pending("split");
}
LoopRV Schedule::fuse(const std::vector<LoopRV>&, bool) {
  pending("fuse");
}
void Schedule::reorder(const std::vector<LoopRV>&) {
  pending("reorder");
}
LoopRV Schedule::add_unit_loop(BlockOrLoop) {
  pending("add_unit_loop");
}
void Schedule::parallel(LoopRV) {
  pending("parallel");
}
void Schedule::vectorize(LoopRV) {
  pending("vectorize");
}
void Schedule::unroll(LoopRV) {
  pending("unroll");
}
void Schedule::bind(LoopRV, const std::string&) {
  pending("bind");
}
void Schedule::annotate(BlockOrLoop, const std::string&, const Expr&) {
  pending("annotate");
}
void Schedule::unannotate(BlockOrLoop, const std::string&) {
  pending("unannotate");
}
void Schedule::compute_at(BlockRV, LoopRV, bool, int) {
  pending("compute_at");
}
void Schedule::reverse_compute_at(BlockRV, LoopRV, bool, int) {
  pending("reverse_compute_at");
}
void Schedule::compute_inline(BlockRV) {
  pending("compute_inline");
}
void Schedule::reverse_compute_inline(BlockRV) {
  pending("reverse_compute_inline");
}
BlockRV Schedule::cache_read(BlockRV, int, const std::string&, const std::vector<BlockRV>&) {
  pending("cache_read");
}
BlockRV Schedule::cache_write(BlockRV, int, const std::string&, const std::vector<BlockRV>&) {
  pending("cache_write");
}
void Schedule::set_scope(BlockRV, int, const std::string&) {
  pending("set_scope");
}
void Schedule::storage_align(BlockRV, int, int, int, int) {
  pending("storage_align");
}
void Schedule::transform_layout(BlockRV, BufferIndex, const IndexMap&) {
  pending("transform_layout");
}
BlockRV Schedule::reindex(BlockRV, BufferIndex) {
  pending("reindex");
}
BlockRV Schedule::decompose_reduction(BlockRV, LoopRV) {
  pending("decompose_reduction");
}
BlockRV Schedule::rfactor(LoopRV, int) {
  pending("rfactor");
}
BlockRV Schedule::blockize(LoopRV, bool) {
  pending("blockize");
}
BlockRV Schedule::blockize(const std::vector<BlockRV>&, bool) {
  pending("blockize");
}
void Schedule::tensorize(BlockOrLoop, const std::string&, bool) {
  pending("tensorize");
}

}  // namespace tirc
