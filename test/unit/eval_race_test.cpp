// The interpreter's checking mode: races between iterations of parallel,
// vectorized and thread-bound loops are reported by loop, element and
// iterations; per-iteration storage is private; parallel iterations run in a
// shuffled order. The racy programs here are written by hand (or built from
// nodes), bypassing the schedule's legality checks.
#include <catch2/catch.hpp>
#include <fstream>
#include <set>
#include <sstream>

#include "eval_test_util.h"
#include "ir/eval/interpreter.h"
#include "ir/text/parser.h"
#include "passes/pipeline.h"

using namespace tirc;
using namespace tirc::test;

namespace {

const std::string kHeader = "# from tvm.script import tir as T\n\n@T.prim_func\n";

PrimFunc example(const std::string& file) {
  std::ifstream in(std::string(TIRC_SOURCE_DIR) + "/examples/" + file);
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_module(ss.str(), file).functions().front().second;
}

PrimFunc parse(const std::string& body) {
  return parse_module(kHeader + body, "race.tir").functions().front().second;
}

// f's outputs from a run with `options`.
std::vector<NDArray> outputs(const PrimFunc& f, const RunOptions& options) {
  std::vector<NDArray> inputs = random_inputs(f, 2);
  std::vector<Argument> args;
  for (NDArray& a : inputs) args.push_back({&a});
  run(f, args, options);
  return inputs;
}

}  // namespace

TEST_CASE("race: two iterations of a parallel loop write one element", "[eval][race]") {
  PrimFunc f = parse(R"(def main(A: T.Buffer((8,), "float32"), C: T.Buffer((4,), "float32")):
    for i in T.parallel(8):
        C[i // 2] = A[i]
)");
  int line = 0;
  CHECK(race_of(f, races_only(), &line) ==
        "race in parallel loop i: iterations i=0 and i=1 both write C[0]");
  CHECK(line == 5);  // the loop's line
  // Shuffled, some other pair may meet first; still the same loop and buffer.
  CHECK_THAT(race_of(f, RunOptions::checked(3)),
             Catch::Matches("race in parallel loop i: iterations i=[0-7] and i=[0-7] both write "
                            "C\\[[0-3]\\]"));
  // The plain interpreter does not look: the serial answer.
  CHECK(race_of(f, RunOptions{}) == "");
}

TEST_CASE("race: an iteration reads what another writes", "[eval][race]") {
  PrimFunc f = parse(R"(def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in T.parallel(7):
        B[i + 1] = B[i] + A[i]
)");
  CHECK(race_of(f) ==
        "race in parallel loop i: iteration i=0 writes B[1] that iteration i=1 reads");
  // The other order of the same conflict: the reader runs first.
  PrimFunc g = parse(R"(def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in T.parallel(7):
        B[i] = B[i + 1] + A[i]
)");
  CHECK(race_of(g) ==
        "race in parallel loop i: iteration i=1 writes B[1] that iteration i=0 reads");
}

TEST_CASE("race: reading and writing one element in one iteration is fine", "[eval][race]") {
  PrimFunc f = parse(R"(def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in T.parallel(8):
        B[i] = B[i] + A[i]
        B[i] = B[i] * A[0]
)");
  CHECK(race_of(f, RunOptions::checked()) == "");
}

TEST_CASE("race: vectorized and thread-bound loops are checked", "[eval][race]") {
  PrimFunc vec = parse(R"(def main(A: T.Buffer((4,), "float32"), C: T.Buffer((1,), "float32")):
    for j in T.vectorized(4):
        C[0] = C[0] + A[j]
)");
  CHECK(race_of(vec) ==
        "race in vectorized loop j: iteration j=0 writes C[0] that iteration j=1 reads");
  // Vectorized loops can be left out (they compute like the serial loop).
  RunOptions no_vectorized = races_only();
  no_vectorized.check_vectorized = false;
  CHECK(race_of(vec, no_vectorized) == "");
  PrimFunc thread = parse(R"(def main(A: T.Buffer((4,), "float32"), C: T.Buffer((1,), "float32")):
    for tx in T.thread_binding(4, thread="threadIdx.x"):
        C[0] = A[tx]
)");
  CHECK(race_of(thread) ==
        "race in thread-bound loop tx (threadIdx.x): iterations tx=0 and tx=1 both write C[0]");
}

TEST_CASE("race: a reduction loop made parallel inside a block", "[eval][race]") {
  // matmul with its reduction loop k parallel: every k writes C[vi, vj].
  PrimFunc f = parse(
      R"(def main(A: T.Buffer((4, 4), "float32"), B: T.Buffer((4, 4), "float32"), C: T.Buffer((4, 4), "float32")):
    for i, j in T.grid(4, 4):
        for k in T.parallel(4):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)");
  CHECK(race_of(f) ==
        "race in parallel loop k: iteration k=0 writes C[0, 0] that iteration k=1 reads in block "
        "\"C\"");
  // Lowered (flat buffers, no blocks), the same race on the flat buffer.
  CHECK(race_of(lower(f)) ==
        "race in parallel loop k: iteration k=0 writes C_1[0] that iteration "
        "k=1 reads");
}

TEST_CASE("race: a loop built from nodes", "[eval][race]") {
  Buffer A = make_buffer("A", f32, {8}), C = make_buffer("C", f32, {8});
  Var i = make_var("i");
  // C[7 - i // 4 * 4] = A[i]: iterations 0..3 all write C[7].
  Stmt body = make_store(C, make_load(A, {i}), {make_int(7) - floordiv(i, make_int(4)) * 4});
  PrimFunc f = func_of({A, C}, make_for(i, 0, 8, ForKind::Parallel, body));
  CHECK(race_of(f) == "race in parallel loop i: iterations i=0 and i=1 both write C[7]");
}

TEST_CASE("race: vector accesses of a lowered program count every lane", "[eval][race]") {
  // Iteration i writes C[2i .. 2i+3]: lanes 2 and 3 of i=0 are lanes 0 and 1 of i=1.
  PrimFunc f = parse(R"(def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    A_1 = T.Buffer((16,), data=A.data)
    C_1 = T.Buffer((16,), data=C.data)
    for i in T.parallel(6):
        C_1[T.Ramp(i * 2, 1, 4)] = A_1[T.Ramp(i * 2, 1, 4)]
)");
  CHECK(race_of(f) == "race in parallel loop i: iterations i=0 and i=1 both write C_1[2]");
  PrimFunc ok = parse(R"(def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    A_1 = T.Buffer((16,), data=A.data)
    C_1 = T.Buffer((16,), data=C.data)
    for i in T.parallel(4):
        C_1[T.Ramp(i * 4, 1, 4)] = A_1[T.Ramp(i * 4, 1, 4)] + A_1[T.Ramp(15 - i * 4, -1, 4)]
)");
  CHECK(race_of(ok, RunOptions::checked()) == "");
}

TEST_CASE("race: race-free schedules pass, plain and lowered", "[eval][race]") {
  // Parallel outer loop, vectorized inner loop, a shared cache indexed by the
  // parallel loop.
  PrimFunc scheduled = example("matmul_scheduled.tir");
  PrimFunc original = example("matmul.tir");
  CHECK(race_of(scheduled, RunOptions::checked(5)) == "");
  CHECK(race_of(lower(scheduled), RunOptions::checked(5)) == "");
  // Checking changes nothing in a race-free program's results.
  CHECK(outputs(scheduled, RunOptions::checked(9))[2].bitwise_equal(
      outputs(scheduled, RunOptions{})[2]));
  EquivResult eq = check_equivalent(original, scheduled);
  CHECK(eq.message == "");
  CHECK(eq.equal);
  CHECK(check_equivalent(original, lower(scheduled)).equal);
}

TEST_CASE("race: storage allocated inside an iteration is private", "[eval][race]") {
  PrimFunc f = parse(R"(def main(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    for i in T.parallel(8):
        tmp = T.allocate([2], "float32", "global")
        tmp_1 = T.Buffer((2,), data=tmp)
        tmp_1[0] = A[i]
        tmp_1[1] = tmp_1[0] * T.float32(2)
        C[i] = tmp_1[1]
)");
  CHECK(race_of(f, RunOptions::checked()) == "");
  // A block's alloc_buffer under the parallel loop, likewise.
  PrimFunc g = parse(R"(def main(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    for i in T.parallel(8):
        with T.block("b"):
            vi = T.axis.spatial(8, i)
            T.reads(A[vi])
            T.writes(C[vi])
            t = T.alloc_buffer((1,), "float32")
            t[0] = A[vi]
            C[vi] = t[0] + T.float32(1)
)");
  CHECK(race_of(g, RunOptions::checked()) == "");
  CHECK(race_of(lower(g), RunOptions::checked()) == "");
}

TEST_CASE("race: the record of a loop grows, and forgets what its last entry touched",
          "[eval][race]") {
  // 999 distinct elements written before iteration 999 meets iteration 0 on
  // C[0]: found after the record has grown many times.
  PrimFunc f = parse(R"(def main(A: T.Buffer((1000,), "float32"), C: T.Buffer((999,), "float32")):
    for i in T.parallel(1000):
        C[i % 999] = A[i]
)");
  CHECK(race_of(f, races_only()) ==
        "race in parallel loop i: iterations i=0 and i=999 both write C[0]");
  // Each entry of the j loop is race-free on its own; the same elements are
  // written by other j in the next entry, which is no race.
  PrimFunc g = parse(R"(def main(A: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32")):
    for i in range(3):
        for j in T.parallel(4):
            C[(j + i) % 4] = A[j]
)");
  CHECK(race_of(g) == "");
}

TEST_CASE("race: nested parallel loops are each checked in their own scope", "[eval][race]") {
  // tmp is private to each i but shared by the j iterations, which all write tmp[0].
  PrimFunc f = parse(R"(def main(A: T.Buffer((4,), "float32"), C: T.Buffer((2,), "float32")):
    for i in T.parallel(2):
        tmp = T.allocate([1], "float32", "global")
        tmp_1 = T.Buffer((1,), data=tmp)
        for j in T.parallel(4):
            tmp_1[0] = A[j]
        C[i] = tmp_1[0]
)");
  CHECK(race_of(f) == "race in parallel loop j: iterations j=0 and j=1 both write tmp_1[0]");
  // An inner loop free of races inside an outer one that has them: the outer is named.
  PrimFunc g = parse(R"(def main(A: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32")):
    for i in T.parallel(2):
        for j in T.parallel(4):
            C[j] = A[j] + T.float32(1)
)");
  CHECK(race_of(g) == "race in parallel loop i: iterations i=0 and i=1 both write C[0]");
}

TEST_CASE("race: kernels called from a parallel loop count in it", "[eval][race]") {
  const std::string text = R"(# from tvm.script import tir as T
# from tvm.script import ir as I

@I.ir_module
class Module:
    @T.prim_func
    def copy(X: T.Buffer((2,), "float32"), Y: T.Buffer((2,), "float32")):
        for k in range(2):
            Y[k] = X[k]

    @T.prim_func
    def main(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
        A_1 = T.Buffer((8,), data=A.data)
        C_1 = T.Buffer((8,), data=C.data)
        for i in T.parallel(4):
            T.call_kernel("copy", T.address_of(A_1[i * 2]), T.address_of(C_1[i * STEP]))
)";
  auto module_with_step = [&](const std::string& step) {
    std::string t = text;
    t.replace(t.find("STEP"), 4, step);
    return parse_module(t, "call.tir");
  };
  std::vector<NDArray> inputs(2, NDArray(f32, {8}));
  std::vector<Argument> args = {{&inputs[0]}, {&inputs[1]}};
  IRModule good = module_with_step("2"), bad = module_with_step("1");
  CHECK_NOTHROW(run_module(good, "main", args, RunOptions::checked()));
  std::string race;
  RunOptions o = races_only();
  o.race = &race;
  CHECK_THROWS_WITH(
      run_module(bad, "main", args, o),
      Catch::Contains("race in parallel loop i: iterations i=0 and i=1 both write Y[0]"));
  CHECK(race != "");
  EquivResult eq = check_equivalent(good, "main", bad, "main");
  CHECK_FALSE(eq.equal);
  CHECK_THAT(eq.message, Catch::Contains("race in parallel loop i"));
}

TEST_CASE("race: check_equivalent reports a race as not equivalent", "[eval][race]") {
  PrimFunc serial = parse(R"(def main(A: T.Buffer((8,), "float32"), C: T.Buffer((1,), "float32")):
    for i in range(8):
        C[0] = C[0] + A[i]
)");
  PrimFunc parallel = parse(R"(def main(A: T.Buffer((8,), "float32"), C: T.Buffer((1,), "float32")):
    for i in T.parallel(8):
        C[0] = C[0] + A[i]
)");
  EquivResult eq = check_equivalent(serial, parallel);
  CHECK_FALSE(eq.equal);
  CHECK_THAT(eq.message, Catch::StartsWith("race in parallel loop i: iteration i="));
  CHECK_THAT(eq.message, Catch::EndsWith(" at race.tir:5:5 (trial 0, seed 0)"));
  // A race in the first program is named as such.
  CHECK_THAT(check_equivalent(parallel, serial).message, Catch::StartsWith("first program: race"));
  // Without checking mode the serial interpreter computes the serial sum: the
  // unsound comparison every test made before.
  EquivOptions plain;
  plain.run_a = plain.run_b = RunOptions{};
  CHECK(check_equivalent(serial, parallel, plain).equal);
}

TEST_CASE("race: shuffled order permutes parallel iterations, deterministically", "[eval][race]") {
  // The last iteration to run leaves its value in C[0].
  PrimFunc f = parse(R"(def main(C: T.Buffer((1,), "int32")):
    for i in T.parallel(16):
        C[0] = i
)");
  auto last = [&](const RunOptions& o) { return outputs(f, o)[0].get_int(0); };
  CHECK(last(RunOptions{}) == 15);
  std::set<int64_t> seen;
  for (uint64_t seed = 0; seed < 8; ++seed) {
    RunOptions o;
    o.shuffle_parallel = true;
    o.shuffle_seed = seed;
    const int64_t v = last(o);
    CHECK(last(o) == v);  // the same seed, the same order
    seen.insert(v);
  }
  CHECK(seen.size() > 1);
  // Vectorized loops compute like the serial loop: not shuffled.
  PrimFunc vec = parse(R"(def main(C: T.Buffer((1,), "int32")):
    for i in T.vectorized(16):
        C[0] = i
)");
  RunOptions o;
  o.shuffle_parallel = true;
  o.shuffle_seed = 4;
  CHECK(outputs(vec, o)[0].get_int(0) == 15);
}

TEST_CASE("race: a shared-scope buffer is each GPU block's own, and its threads'", "[eval][race]") {
  // Every block writes the same element of S: in scope "shared" each block
  // has its own; in global memory the blocks race.
  const std::string body = R"(def main(A: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32")):
    S = T.alloc_buffer((1,), scope="SCOPE")
    for bx in T.thread_binding(4, thread="blockIdx.x"):
        with T.block("S"):
            S[0] = A[0]
        with T.block("C"):
            C[bx] = S[0] + A[bx]
)";
  auto with_scope = [&](const std::string& scope) {
    std::string text = body;
    text.replace(text.find("SCOPE"), 5, scope);
    return parse(text);
  };
  CHECK(race_of(with_scope("shared")) == "");
  CHECK(race_of(with_scope("global")) ==
        "race in thread-bound loop bx (blockIdx.x): iterations bx=0 and bx=1 both write S[0] in "
        "block \"S\"");
  // Threads of one block share it.
  PrimFunc threads = parse(R"(def main(A: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32")):
    S = T.alloc_buffer((1,), scope="shared")
    for tx in T.thread_binding(4, thread="threadIdx.x"):
        with T.block("S"):
            S[0] = A[tx]
)");
  CHECK(race_of(threads) ==
        "race in thread-bound loop tx (threadIdx.x): iterations tx=0 and tx=1 both write S[0] in "
        "block \"S\"");
}
