// Parallel iterations must not write the same element: a block recomputed in
// every iteration of a parallel loop (after compute_at under it) races with
// itself. Found by the randomized code generation test (softmax's T_sum
// computed at T_softmax's column loop, which was parallel).
#include "schedule_loops_test_util.h"

using namespace tirc;
using namespace tirc::loops_test;

TEST_CASE("parallel refuses a loop whose iterations write the same elements", "[schedule][loops]") {
  const IRModule softmax = example("softmax.tir");
  {
    // T_sum computed for every column j, then j made parallel.
    Schedule sch(softmax);
    BlockRV sum = sch.get_block("T_sum");
    std::vector<LoopRV> loops = sch.get_loops(sch.get_block("T_softmax"));
    sch.compute_at(sum, loops[1]);
    expect_refused(
        sch, [&] { sch.parallel(loops[1]); },
        "parallel: block T_sum writes T_sum at the same place in every iteration of loop");
    // The row loop feeds T_sum's row: parallel rows are fine.
    sch.parallel(loops[0]);
    expect_sound(softmax, sch);
  }
  {
    // The other order: j parallel first, then compute_at under it.
    Schedule sch(softmax);
    std::vector<LoopRV> loops = sch.get_loops(sch.get_block("T_softmax"));
    sch.parallel(loops[1]);
    BlockRV sum = sch.get_block("T_sum");
    expect_refused(
        sch, [&] { sch.compute_at(sum, loops[1]); },
        "compute_at: parallel loop");
  }
  {
    // A fused row-column loop writes each element once: parallel is allowed.
    Schedule sch(softmax);
    std::vector<LoopRV> loops = sch.get_loops(sch.get_block("T_softmax"));
    LoopRV fused = sch.fuse(loops);
    sch.parallel(fused);
    expect_sound(softmax, sch);
  }
}

TEST_CASE("a loop that computes the same reduction element several times keeps its init",
          "[schedule][loops]") {
  // T_sum computed at T_softmax's column loop, then the row and column loops
  // fused: the fused loop feeds T_sum only through `fused // 32`, so it
  // recomputes each sum 32 times. Each repeat must start from the init.
  const IRModule softmax = example("softmax.tir");
  Schedule sch(softmax);
  BlockRV sum = sch.get_block("T_sum");
  std::vector<LoopRV> loops = sch.get_loops(sch.get_block("T_softmax"));
  sch.compute_at(sum, loops[1]);
  LoopRV fused = sch.fuse(sch.get_loops(sch.get_block("T_softmax")));
  expect_refused(
      sch, [&] { sch.decompose_reduction(sum, fused); }, "decompose_reduction: loop ");
  expect_refused(
      sch, [&] { sch.parallel(fused); }, "write distinct elements of T_sum");
  // At the reduction loop itself the init stays inside every repeat.
  sch.decompose_reduction(sum, sch.get_loops(sum).back());
  expect_sound(softmax, sch);
}
