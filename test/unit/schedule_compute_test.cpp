// compute_at, reverse_compute_at, compute_inline, reverse_compute_inline.
#include <catch2/catch.hpp>

#include <fstream>
#include <functional>
#include <sstream>

#include "ir/eval/interpreter.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "ir/verify.h"
#include "schedule/schedule.h"

using namespace tirc;

namespace {

std::string example(const std::string& name) {
  std::ifstream in(std::string(TIRC_SOURCE_DIR) + "/examples/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Softmax whose normalization recomputes the exponential, so that T_exp is
// consumed only by T_sum and can be computed at the sum's loops.
const char* kSoftmaxRecompute = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 32), "float32"), T_softmax: T.Buffer((16, 32), "float32")):
    T_max = T.alloc_buffer((16,), "float32")
    T_exp = T.alloc_buffer((16, 32), "float32")
    T_sum = T.alloc_buffer((16,), "float32")
    for i0, k0 in T.grid(16, 32):
        with T.block("T_max"):
            v_i0, v_k0 = T.axis.remap("SR", [i0, k0])
            with T.init():
                T_max[v_i0] = T.float32("-inf")
            T_max[v_i0] = T.max(T_max[v_i0], A[v_i0, v_k0])
    for i1, j1 in T.grid(16, 32):
        with T.block("T_exp"):
            v_i1, v_j1 = T.axis.remap("SS", [i1, j1])
            T_exp[v_i1, v_j1] = T.exp(A[v_i1, v_j1] - T_max[v_i1])
    for i2, k2 in T.grid(16, 32):
        with T.block("T_sum"):
            v_i2, v_k2 = T.axis.remap("SR", [i2, k2])
            with T.init():
                T_sum[v_i2] = T.float32(0)
            T_sum[v_i2] = T_sum[v_i2] + T_exp[v_i2, v_k2]
    for i3, j3 in T.grid(16, 32):
        with T.block("T_softmax"):
            v_i3, v_j3 = T.axis.remap("SS", [i3, j3])
            T_softmax[v_i3, v_j3] = T.exp(A[v_i3, v_j3] - T_max[v_i3]) / T_sum[v_i3]
)";

// The consumer's loop was split by a factor that does not divide 32.
const char* kSplitConsumer = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32,), "float32"), C: T.Buffer((32,), "float32")):
    B = T.alloc_buffer((32,), "float32")
    for i in range(32):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi] * T.float32(2)
    for i_0, i_1 in T.grid(4, 10):
        with T.block("C"):
            vi = T.axis.spatial(32, i_0 * 10 + i_1)
            T.where(i_0 * 10 + i_1 < 32)
            C[vi] = B[vi] + T.float32(1)
)";

const char* kMatmulRelu = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), D: T.Buffer((16, 16), "float32")):
    C = T.alloc_buffer((16, 16), "float32")
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
    for i2, j2 in T.grid(16, 16):
        with T.block("relu"):
            vi, vj = T.axis.remap("SS", [i2, j2])
            D[vi, vj] = T.max(C[vi, vj], T.float32(0))
)";

const char* kScaleRelu = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), D: T.Buffer((16, 16), "float32")):
    B = T.alloc_buffer((16, 16), "float32")
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(3)
    for i2, j2 in T.grid(16, 16):
        with T.block("relu"):
            vi, vj = T.axis.remap("SS", [i2, j2])
            D[vi, vj] = T.max(B[vi, vj], T.float32(0))
)";

// relu reads B transposed: still distinct iteration variables.
const char* kScaleReluTransposed = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8, 16), "float32"), D: T.Buffer((16, 8), "float32")):
    B = T.alloc_buffer((8, 16), "float32")
    for i, j in T.grid(8, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(3)
    for i2, j2 in T.grid(16, 8):
        with T.block("relu"):
            vi, vj = T.axis.remap("SS", [i2, j2])
            D[vi, vj] = T.max(B[vj, vi], T.float32(0))
)";

// relu reads B mirrored: not plain iteration variables.
const char* kScaleReluFlipped = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), D: T.Buffer((16, 16), "float32")):
    B = T.alloc_buffer((16, 16), "float32")
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(3)
    for i2, j2 in T.grid(16, 16):
        with T.block("relu"):
            vi, vj = T.axis.remap("SS", [i2, j2])
            D[vi, vj] = T.max(B[vi, 15 - vj], T.float32(0))
)";

// B is written twice: the second writer reads what it writes without an
// init, so it is neither complete nor a reduction.
const char* kTwoWriters = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((16,), "float32")
    for i in range(16):
        with T.block("B1"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi]
    for i in range(16):
        with T.block("B2"):
            vi = T.axis.remap("S", [i])
            B[vi] = B[vi] + T.float32(1)
    for i in range(16):
        with T.block("C"):
            vi = T.axis.remap("S", [i])
            C[vi] = B[vi] * T.float32(2)
)";

// The producer stores at a reversed index; the consumer reads B twice.
const char* kReversedStore = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), D: T.Buffer((16,), "float32"), E: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((16,), "float32")
    for i in range(16):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            B[15 - vi] = A[vi] * T.float32(3)
    for i2 in range(16):
        with T.block("D"):
            vi = T.axis.remap("S", [i2])
            D[vi] = B[15 - vi] + T.float32(1)
    for i3 in range(16):
        with T.block("E"):
            vi = T.axis.remap("S", [i3])
            E[vi] = B[vi] * T.float32(2)
)";

using Steps = std::function<void(Schedule&)>;

// Applies steps and checks the exact printed result, equivalence with the
// input (bit-exact on small integers) and that the verifier is silent.
void expect_result(const std::string& src, const Steps& steps, const std::string& expected) {
  IRModule mod = parse_module(src);
  Schedule sch(mod);
  steps(sch);
  const PrimFunc& after = sch.func("main");
  CHECK(print_func(after) == expected);
  EquivResult eq = check_equivalent(mod.at("main"), after);
  INFO(eq.message);
  CHECK(eq.equal);
  CHECK(verify(after).empty());
}

// Instructions in the trace other than lookups (get_block, get_loops...),
// which a refused step may make before the primitive itself.
size_t applied_primitives(const Schedule& sch) {
  size_t n = 0;
  for (const Instruction& inst : sch.trace().instructions()) n += inst.kind.rfind("get_", 0) != 0;
  return n;
}

// Runs setup, then expects `refused` to throw a ScheduleError mentioning
// every fragment, with the schedule left exactly as it was.
void expect_refusal(const std::string& src, const Steps& setup, const Steps& refused,
                    const std::vector<std::string>& fragments) {
  Schedule sch(parse_module(src));
  setup(sch);
  std::string before = print_module(sch.mod());
  size_t applied = applied_primitives(sch);
  try {
    refused(sch);
    FAIL("the primitive applied");
  } catch (const ScheduleError& e) {
    std::string msg = e.what();
    for (const std::string& f : fragments) {
      INFO(msg);
      CHECK(msg.find(f) != std::string::npos);
    }
  }
  CHECK(print_module(sch.mod()) == before);
  CHECK(applied_primitives(sch) == applied);
}

const Steps kNothing = [](Schedule&) {};

}  // namespace

// ---- compute_at ---------------------------------------------------------------

TEST_CASE("compute_at: elementwise producer under both consumer loops", "[schedule][compute]") {
  expect_result(
      example("elementwise_chain.tir"),
      [](Schedule& s) { s.compute_at(s.get_block("B"), s.get_loops(s.get_block("C"))[1]); },
      R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32, 32), "float32"), D: T.Buffer((32, 32), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    B = T.alloc_buffer((32, 32), "float32")
    C = T.alloc_buffer((32, 32), "float32")
    for i1, j1 in T.grid(32, 32):
        with T.block("B"):
            v_i0, v_j0 = T.axis.remap("SS", [i1, j1])
            T.reads(A[v_i0, v_j0])
            T.writes(B[v_i0, v_j0])
            B[v_i0, v_j0] = A[v_i0, v_j0] * T.float32(2)
        with T.block("C"):
            v_i1, v_j1 = T.axis.remap("SS", [i1, j1])
            T.reads(B[v_i1, v_j1])
            T.writes(C[v_i1, v_j1])
            C[v_i1, v_j1] = B[v_i1, v_j1] + T.float32(1)
    for i2, j2 in T.grid(32, 32):
        with T.block("D"):
            v_i2, v_j2 = T.axis.remap("SS", [i2, j2])
            T.reads(C[v_i2, v_j2])
            T.writes(D[v_i2, v_j2])
            D[v_i2, v_j2] = T.max(C[v_i2, v_j2], T.float32(0))
)");
}

TEST_CASE("compute_at: elementwise producer under the outer loop", "[schedule][compute]") {
  expect_result(
      example("elementwise_chain.tir"),
      [](Schedule& s) { s.compute_at(s.get_block("B"), s.get_loops(s.get_block("C"))[0]); },
      R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32, 32), "float32"), D: T.Buffer((32, 32), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    B = T.alloc_buffer((32, 32), "float32")
    C = T.alloc_buffer((32, 32), "float32")
    for i1 in range(32):
        for ax0 in range(32):
            with T.block("B"):
                v_i0, v_j0 = T.axis.remap("SS", [i1, ax0])
                T.reads(A[v_i0, v_j0])
                T.writes(B[v_i0, v_j0])
                B[v_i0, v_j0] = A[v_i0, v_j0] * T.float32(2)
        for j1 in range(32):
            with T.block("C"):
                v_i1, v_j1 = T.axis.remap("SS", [i1, j1])
                T.reads(B[v_i1, v_j1])
                T.writes(C[v_i1, v_j1])
                C[v_i1, v_j1] = B[v_i1, v_j1] + T.float32(1)
    for i2, j2 in T.grid(32, 32):
        with T.block("D"):
            v_i2, v_j2 = T.axis.remap("SS", [i2, j2])
            T.reads(C[v_i2, v_j2])
            T.writes(D[v_i2, v_j2])
            D[v_i2, v_j2] = T.max(C[v_i2, v_j2], T.float32(0))
)");
}

TEST_CASE("compute_at: conv2d padding with a 3x3 halo", "[schedule][compute]") {
  expect_result(
      example("conv2d_nchw.tir"),
      [](Schedule& s) {
        s.compute_at(s.get_block("data_pad"), s.get_loops(s.get_block("conv"))[3]);
      },
      R"(# from tvm.script import tir as T

@T.prim_func
def main(data: T.Buffer((1, 4, 8, 8), "float32"), weight: T.Buffer((8, 4, 3, 3), "float32"), conv: T.Buffer((1, 8, 8, 8), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    data_pad = T.alloc_buffer((1, 4, 10, 10), "float32")
    for nn, ff, yy, xx in T.grid(1, 8, 8, 8):
        for ax0, ax1, ax2 in T.grid(4, 3, 3):
            with T.block("data_pad"):
                v_i0, v_i1 = T.axis.remap("SS", [nn, ax0])
                v_i2 = T.axis.spatial(10, yy + ax1)
                v_i3 = T.axis.spatial(10, xx + ax2)
                T.reads(data[v_i0, v_i1, v_i2 - 1, v_i3 - 1])
                T.writes(data_pad[v_i0, v_i1, v_i2, v_i3])
                data_pad[v_i0, v_i1, v_i2, v_i3] = T.if_then_else(1 <= v_i2 and v_i2 < 9 and 1 <= v_i3 and v_i3 < 9, data[v_i0, v_i1, v_i2 - 1, v_i3 - 1], T.float32(0))
        for rc, ry, rx in T.grid(4, 3, 3):
            with T.block("conv"):
                v_nn, v_ff, v_yy, v_xx, v_rc, v_ry, v_rx = T.axis.remap("SSSSRRR", [nn, ff, yy, xx, rc, ry, rx])
                T.reads(conv[v_nn, v_ff, v_yy, v_xx], data_pad[v_nn, v_rc, v_yy + v_ry, v_xx + v_rx], weight[v_ff, v_rc, v_ry, v_rx])
                T.writes(conv[v_nn, v_ff, v_yy, v_xx])
                with T.init():
                    conv[v_nn, v_ff, v_yy, v_xx] = T.float32(0)
                conv[v_nn, v_ff, v_yy, v_xx] = conv[v_nn, v_ff, v_yy, v_xx] + data_pad[v_nn, v_rc, v_yy + v_ry, v_xx + v_rx] * weight[v_ff, v_rc, v_ry, v_rx]
)");
}

TEST_CASE("compute_at: softmax exp into the sum's loops", "[schedule][compute]") {
  expect_result(
      kSoftmaxRecompute,
      [](Schedule& s) { s.compute_at(s.get_block("T_exp"), s.get_loops(s.get_block("T_sum"))[1]); },
      R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 32), "float32"), T_softmax: T.Buffer((16, 32), "float32")):
    # with T.block("root"):
    T_max = T.alloc_buffer((16,), "float32")
    T_exp = T.alloc_buffer((16, 32), "float32")
    T_sum = T.alloc_buffer((16,), "float32")
    for i0, k0 in T.grid(16, 32):
        with T.block("T_max"):
            v_i0, v_k0 = T.axis.remap("SR", [i0, k0])
            T.reads(T_max[v_i0], A[v_i0, v_k0])
            T.writes(T_max[v_i0])
            with T.init():
                T_max[v_i0] = T.float32("-inf")
            T_max[v_i0] = T.max(T_max[v_i0], A[v_i0, v_k0])
    for i2, k2 in T.grid(16, 32):
        with T.block("T_exp"):
            v_i1, v_j1 = T.axis.remap("SS", [i2, k2])
            T.reads(A[v_i1, v_j1], T_max[v_i1])
            T.writes(T_exp[v_i1, v_j1])
            T_exp[v_i1, v_j1] = T.exp(A[v_i1, v_j1] - T_max[v_i1])
        with T.block("T_sum"):
            v_i2, v_k2 = T.axis.remap("SR", [i2, k2])
            T.reads(T_sum[v_i2], T_exp[v_i2, v_k2])
            T.writes(T_sum[v_i2])
            with T.init():
                T_sum[v_i2] = T.float32(0)
            T_sum[v_i2] = T_sum[v_i2] + T_exp[v_i2, v_k2]
    for i3, j3 in T.grid(16, 32):
        with T.block("T_softmax"):
            v_i3, v_j3 = T.axis.remap("SS", [i3, j3])
            T.reads(A[v_i3, v_j3], T_max[v_i3], T_sum[v_i3])
            T.writes(T_softmax[v_i3, v_j3])
            T_softmax[v_i3, v_j3] = T.exp(A[v_i3, v_j3] - T_max[v_i3]) / T_sum[v_i3]
)");
  expect_result(
      kSoftmaxRecompute,
      [](Schedule& s) { s.compute_at(s.get_block("T_exp"), s.get_loops(s.get_block("T_sum"))[0]); },
      R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 32), "float32"), T_softmax: T.Buffer((16, 32), "float32")):
    # with T.block("root"):
    T_max = T.alloc_buffer((16,), "float32")
    T_exp = T.alloc_buffer((16, 32), "float32")
    T_sum = T.alloc_buffer((16,), "float32")
    for i0, k0 in T.grid(16, 32):
        with T.block("T_max"):
            v_i0, v_k0 = T.axis.remap("SR", [i0, k0])
            T.reads(T_max[v_i0], A[v_i0, v_k0])
            T.writes(T_max[v_i0])
            with T.init():
                T_max[v_i0] = T.float32("-inf")
            T_max[v_i0] = T.max(T_max[v_i0], A[v_i0, v_k0])
    for i2 in range(16):
        for ax0 in range(32):
            with T.block("T_exp"):
                v_i1, v_j1 = T.axis.remap("SS", [i2, ax0])
                T.reads(A[v_i1, v_j1], T_max[v_i1])
                T.writes(T_exp[v_i1, v_j1])
                T_exp[v_i1, v_j1] = T.exp(A[v_i1, v_j1] - T_max[v_i1])
        for k2 in range(32):
            with T.block("T_sum"):
                v_i2, v_k2 = T.axis.remap("SR", [i2, k2])
                T.reads(T_sum[v_i2], T_exp[v_i2, v_k2])
                T.writes(T_sum[v_i2])
                with T.init():
                    T_sum[v_i2] = T.float32(0)
                T_sum[v_i2] = T_sum[v_i2] + T_exp[v_i2, v_k2]
    for i3, j3 in T.grid(16, 32):
        with T.block("T_softmax"):
            v_i3, v_j3 = T.axis.remap("SS", [i3, j3])
            T.reads(A[v_i3, v_j3], T_max[v_i3], T_sum[v_i3])
            T.writes(T_softmax[v_i3, v_j3])
            T_softmax[v_i3, v_j3] = T.exp(A[v_i3, v_j3] - T_max[v_i3]) / T_sum[v_i3]
)");
}

TEST_CASE("compute_at: preserve_unit_loops keeps unit loops", "[schedule][compute]") {
  expect_result(
      kSoftmaxRecompute,
      [](Schedule& s) {
        s.compute_at(s.get_block("T_exp"), s.get_loops(s.get_block("T_sum"))[1], true);
      },
      R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 32), "float32"), T_softmax: T.Buffer((16, 32), "float32")):
    # with T.block("root"):
    T_max = T.alloc_buffer((16,), "float32")
    T_exp = T.alloc_buffer((16, 32), "float32")
    T_sum = T.alloc_buffer((16,), "float32")
    for i0, k0 in T.grid(16, 32):
        with T.block("T_max"):
            v_i0, v_k0 = T.axis.remap("SR", [i0, k0])
            T.reads(T_max[v_i0], A[v_i0, v_k0])
            T.writes(T_max[v_i0])
            with T.init():
                T_max[v_i0] = T.float32("-inf")
            T_max[v_i0] = T.max(T_max[v_i0], A[v_i0, v_k0])
    for i2, k2 in T.grid(16, 32):
        for ax0, ax1 in T.grid(1, 1):
            with T.block("T_exp"):
                v_i1 = T.axis.spatial(16, i2 + ax0)
                v_j1 = T.axis.spatial(32, k2 + ax1)
                T.reads(A[v_i1, v_j1], T_max[v_i1])
                T.writes(T_exp[v_i1, v_j1])
                T_exp[v_i1, v_j1] = T.exp(A[v_i1, v_j1] - T_max[v_i1])
        with T.block("T_sum"):
            v_i2, v_k2 = T.axis.remap("SR", [i2, k2])
            T.reads(T_sum[v_i2], T_exp[v_i2, v_k2])
            T.writes(T_sum[v_i2])
            with T.init():
                T_sum[v_i2] = T.float32(0)
            T_sum[v_i2] = T_sum[v_i2] + T_exp[v_i2, v_k2]
    for i3, j3 in T.grid(16, 32):
        with T.block("T_softmax"):
            v_i3, v_j3 = T.axis.remap("SS", [i3, j3])
            T.reads(A[v_i3, v_j3], T_max[v_i3], T_sum[v_i3])
            T.writes(T_softmax[v_i3, v_j3])
            T_softmax[v_i3, v_j3] = T.exp(A[v_i3, v_j3] - T_max[v_i3]) / T_sum[v_i3]
)");
}

TEST_CASE("compute_at: a region past the domain gets a T.where", "[schedule][compute]") {
  expect_result(
      kSplitConsumer,
      [](Schedule& s) { s.compute_at(s.get_block("B"), s.get_loops(s.get_block("C"))[0]); },
      R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32,), "float32"), C: T.Buffer((32,), "float32")):
    # with T.block("root"):
    B = T.alloc_buffer((32,), "float32")
    for i_0 in range(4):
        for ax0 in range(10):
            with T.block("B"):
                vi = T.axis.spatial(32, i_0 * 10 + ax0)
                T.where(i_0 * 10 + ax0 < 32)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] * T.float32(2)
        for i_1 in range(10):
            with T.block("C"):
                vi_1 = T.axis.spatial(32, i_0 * 10 + i_1)
                T.where(i_0 * 10 + i_1 < 32)
                T.reads(B[vi_1])
                T.writes(C[vi_1])
                C[vi_1] = B[vi_1] + T.float32(1)
)");
}

TEST_CASE("compute_at: insertion index", "[schedule][compute]") {
  // Under the conv's ff loop the body is one loop: -2 (after the last
  // producer, none here) and 0 both insert first, like the default.
  IRModule mod = parse_module(example("conv2d_nchw.tir"));
  std::string printed[3];
  int indices[3] = {-1, -2, 0};
  for (int n = 0; n < 3; ++n) {
    Schedule sch(mod);
    sch.compute_at(sch.get_block("data_pad"), sch.get_loops(sch.get_block("conv"))[1], false,
                   indices[n]);
    printed[n] = print_func(sch.func("main"));
    CHECK(check_equivalent(mod.at("main"), sch.func("main")).equal);
  }
  CHECK(printed[0] == printed[1]);
  CHECK(printed[0] == printed[2]);
  expect_refusal(example("conv2d_nchw.tir"), kNothing,
                 [](Schedule& s) {
                   s.compute_at(s.get_block("data_pad"), s.get_loops(s.get_block("conv"))[1], false,
                                1);
                 },
                 {"compute_at: index 1 is not a valid insertion point under loop ff"});
}

TEST_CASE("compute_at: records its instruction", "[schedule][compute]") {
  Schedule sch(parse_module(example("elementwise_chain.tir")));
  BlockRV b = sch.get_block("B");
  auto loops = sch.get_loops(sch.get_block("C"));
  sch.compute_at(b, loops[1], true, -2);
  const Instruction& inst = sch.trace().instructions().back();
  CHECK(inst.kind == "compute_at");
  REQUIRE(inst.keywords.size() == 4);
  CHECK(inst.keywords[0].first == "block");
  CHECK(std::get<TraceRV>(inst.keywords[0].second.v) == sch.trace_rv(b));
  CHECK(inst.keywords[1].first == "loop");
  CHECK(std::get<TraceRV>(inst.keywords[1].second.v) == sch.trace_rv(loops[1]));
  CHECK(inst.keywords[2].first == "preserve_unit_loops");
  CHECK(std::get<bool>(inst.keywords[2].second.v) == true);
  CHECK(inst.keywords[3].first == "index");
  CHECK(std::get<int64_t>(inst.keywords[3].second.v) == -2);
  CHECK(inst.outputs.empty());
}

TEST_CASE("compute_at: refusals", "[schedule][compute]") {
  SECTION("consumers outside the loop") {
    expect_refusal(example("softmax.tir"), kNothing,
                   [](Schedule& s) {
                     s.compute_at(s.get_block("T_exp"), s.get_loops(s.get_block("T_sum"))[1]);
                   },
                   {"compute_at: block T_exp has consumers outside loop k2"});
  }
  SECTION("output block") {
    expect_refusal(
        example("elementwise_chain.tir"), kNothing,
        [](Schedule& s) { s.compute_at(s.get_block("D"), s.get_loops(s.get_block("C"))[0]); },
        {"compute_at: block D is an output block", "parameter D"});
  }
  SECTION("loop is an ancestor of the block") {
    expect_refusal(
        example("elementwise_chain.tir"), kNothing,
        [](Schedule& s) { s.compute_at(s.get_block("B"), s.get_loops(s.get_block("B"))[1]); },
        {"compute_at: loop j0 is an ancestor of block B"});
  }
  SECTION("neither complete nor a reduction") {
    expect_refusal(
        kTwoWriters, kNothing,
        [](Schedule& s) { s.compute_at(s.get_block("B2"), s.get_loops(s.get_block("C"))[0]); },
        {"compute_at: block B2 is neither a complete block nor a reduction block"});
  }
  SECTION("predicated block") {
    // Its T.where refers to the loops it would leave and cuts its domain
    // short (a predicate that only bounds the domain, as kSplitConsumer's,
    // is dropped: parser_tirx_test.cpp).
    std::string cut = kSplitConsumer;
    cut.replace(cut.find("< 32)"), 5, "< 20)");
    expect_refusal(cut, kNothing,
                   [](Schedule& s) {
                     s.reverse_compute_at(s.get_block("C"), s.get_loops(s.get_block("B"))[0]);
                   },
                   {"reverse_compute_at: block C has a predicate"});
  }
}

// ---- reverse_compute_at -------------------------------------------------------

TEST_CASE("reverse_compute_at: elementwise consumer under the producer", "[schedule][compute]") {
  expect_result(
      example("elementwise_chain.tir"),
      [](Schedule& s) { s.reverse_compute_at(s.get_block("C"), s.get_loops(s.get_block("B"))[0]); },
      R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32, 32), "float32"), D: T.Buffer((32, 32), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    B = T.alloc_buffer((32, 32), "float32")
    C = T.alloc_buffer((32, 32), "float32")
    for i0 in range(32):
        for j0 in range(32):
            with T.block("B"):
                v_i0, v_j0 = T.axis.remap("SS", [i0, j0])
                T.reads(A[v_i0, v_j0])
                T.writes(B[v_i0, v_j0])
                B[v_i0, v_j0] = A[v_i0, v_j0] * T.float32(2)
        for ax0 in range(32):
            with T.block("C"):
                v_i1, v_j1 = T.axis.remap("SS", [i0, ax0])
                T.reads(B[v_i1, v_j1])
                T.writes(C[v_i1, v_j1])
                C[v_i1, v_j1] = B[v_i1, v_j1] + T.float32(1)
    for i2, j2 in T.grid(32, 32):
        with T.block("D"):
            v_i2, v_j2 = T.axis.remap("SS", [i2, j2])
            T.reads(C[v_i2, v_j2])
            T.writes(D[v_i2, v_j2])
            D[v_i2, v_j2] = T.max(C[v_i2, v_j2], T.float32(0))
)");
  expect_result(
      example("elementwise_chain.tir"),
      [](Schedule& s) { s.reverse_compute_at(s.get_block("C"), s.get_loops(s.get_block("B"))[1]); },
      R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32, 32), "float32"), D: T.Buffer((32, 32), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    B = T.alloc_buffer((32, 32), "float32")
    C = T.alloc_buffer((32, 32), "float32")
    for i0, j0 in T.grid(32, 32):
        with T.block("B"):
            v_i0, v_j0 = T.axis.remap("SS", [i0, j0])
            T.reads(A[v_i0, v_j0])
            T.writes(B[v_i0, v_j0])
            B[v_i0, v_j0] = A[v_i0, v_j0] * T.float32(2)
        with T.block("C"):
            v_i1, v_j1 = T.axis.remap("SS", [i0, j0])
            T.reads(B[v_i1, v_j1])
            T.writes(C[v_i1, v_j1])
            C[v_i1, v_j1] = B[v_i1, v_j1] + T.float32(1)
    for i2, j2 in T.grid(32, 32):
        with T.block("D"):
            v_i2, v_j2 = T.axis.remap("SS", [i2, j2])
            T.reads(C[v_i2, v_j2])
            T.writes(D[v_i2, v_j2])
            D[v_i2, v_j2] = T.max(C[v_i2, v_j2], T.float32(0))
)");
}

TEST_CASE("reverse_compute_at: compute_at then reverse_compute_at", "[schedule][compute]") {
  expect_result(
      example("elementwise_chain.tir"),
      [](Schedule& s) {
        s.compute_at(s.get_block("B"), s.get_loops(s.get_block("C"))[0]);
        s.reverse_compute_at(s.get_block("D"), s.get_loops(s.get_block("C"))[0]);
      },
      R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32, 32), "float32"), D: T.Buffer((32, 32), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    B = T.alloc_buffer((32, 32), "float32")
    C = T.alloc_buffer((32, 32), "float32")
    for i1 in range(32):
        for ax0 in range(32):
            with T.block("B"):
                v_i0, v_j0 = T.axis.remap("SS", [i1, ax0])
                T.reads(A[v_i0, v_j0])
                T.writes(B[v_i0, v_j0])
                B[v_i0, v_j0] = A[v_i0, v_j0] * T.float32(2)
        for j1 in range(32):
            with T.block("C"):
                v_i1, v_j1 = T.axis.remap("SS", [i1, j1])
                T.reads(B[v_i1, v_j1])
                T.writes(C[v_i1, v_j1])
                C[v_i1, v_j1] = B[v_i1, v_j1] + T.float32(1)
        for ax0_1 in range(32):
            with T.block("D"):
                v_i2, v_j2 = T.axis.remap("SS", [i1, ax0_1])
                T.reads(C[v_i2, v_j2])
                T.writes(D[v_i2, v_j2])
                D[v_i2, v_j2] = T.max(C[v_i2, v_j2], T.float32(0))
)");
}

TEST_CASE("reverse_compute_at: relu after the matmul's reduction", "[schedule][compute]") {
  expect_result(
      kMatmulRelu,
      [](Schedule& s) {
        s.reverse_compute_at(s.get_block("relu"), s.get_loops(s.get_block("C"))[1]);
      },
      R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), D: T.Buffer((16, 16), "float32")):
    # with T.block("root"):
    C = T.alloc_buffer((16, 16), "float32")
    for i, j in T.grid(16, 16):
        for k in range(16):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(C[vi, vj], A[vi, vk], B[vk, vj])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
        with T.block("relu"):
            vi_1, vj_1 = T.axis.remap("SS", [i, j])
            T.reads(C[vi_1, vj_1])
            T.writes(D[vi_1, vj_1])
            D[vi_1, vj_1] = T.max(C[vi_1, vj_1], T.float32(0))
)");
  expect_result(
      example("softmax.tir"),
      [](Schedule& s) {
        s.reverse_compute_at(s.get_block("T_exp"), s.get_loops(s.get_block("T_max"))[0]);
      },
      R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 32), "float32"), T_softmax: T.Buffer((16, 32), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    T_max = T.alloc_buffer((16,), "float32")
    T_exp = T.alloc_buffer((16, 32), "float32")
    T_sum = T.alloc_buffer((16,), "float32")
    for i0 in range(16):
        for k0 in range(32):
            with T.block("T_max"):
                v_i0, v_k0 = T.axis.remap("SR", [i0, k0])
                T.reads(T_max[v_i0], A[v_i0, v_k0])
                T.writes(T_max[v_i0])
                with T.init():
                    T_max[v_i0] = T.float32("-inf")
                T_max[v_i0] = T.max(T_max[v_i0], A[v_i0, v_k0])
        for ax0 in range(32):
            with T.block("T_exp"):
                v_i1, v_j1 = T.axis.remap("SS", [i0, ax0])
                T.reads(A[v_i1, v_j1], T_max[v_i1])
                T.writes(T_exp[v_i1, v_j1])
                T_exp[v_i1, v_j1] = T.exp(A[v_i1, v_j1] - T_max[v_i1])
    for i2, k2 in T.grid(16, 32):
        with T.block("T_sum"):
            v_i2, v_k2 = T.axis.remap("SR", [i2, k2])
            T.reads(T_sum[v_i2], T_exp[v_i2, v_k2])
            T.writes(T_sum[v_i2])
            with T.init():
                T_sum[v_i2] = T.float32(0)
            T_sum[v_i2] = T_sum[v_i2] + T_exp[v_i2, v_k2]
    for i3, j3 in T.grid(16, 32):
        with T.block("T_softmax"):
            v_i3, v_j3 = T.axis.remap("SS", [i3, j3])
            T.reads(T_exp[v_i3, v_j3], T_sum[v_i3])
            T.writes(T_softmax[v_i3, v_j3])
            T_softmax[v_i3, v_j3] = T_exp[v_i3, v_j3] / T_sum[v_i3]
)");
}

TEST_CASE("reverse_compute_at: records its instruction", "[schedule][compute]") {
  Schedule sch(parse_module(kMatmulRelu));
  BlockRV b = sch.get_block("relu");
  auto loops = sch.get_loops(sch.get_block("C"));
  sch.reverse_compute_at(b, loops[0]);
  const Instruction& inst = sch.trace().instructions().back();
  CHECK(inst.kind == "reverse_compute_at");
  REQUIRE(inst.keywords.size() == 4);
  CHECK(inst.keywords[2].first == "preserve_unit_loops");
  CHECK(std::get<bool>(inst.keywords[2].second.v) == false);
  CHECK(std::get<int64_t>(inst.keywords[3].second.v) == -1);
}

TEST_CASE("reverse_compute_at: refusals", "[schedule][compute]") {
  SECTION("loop carries the producer's reduction") {
    expect_refusal(kMatmulRelu, kNothing,
                   [](Schedule& s) {
                     s.reverse_compute_at(s.get_block("relu"), s.get_loops(s.get_block("C"))[2]);
                   },
                   {"reverse_compute_at: loop k carries the reduction of producer C"});
  }
  SECTION("producers outside the loop") {
    expect_refusal(example("elementwise_chain.tir"), kNothing,
                   [](Schedule& s) {
                     s.reverse_compute_at(s.get_block("D"), s.get_loops(s.get_block("B"))[0]);
                   },
                   {"reverse_compute_at: block D has producers outside loop i0"});
  }
  SECTION("no producers") {
    expect_refusal(example("elementwise_chain.tir"), kNothing,
                   [](Schedule& s) {
                     s.reverse_compute_at(s.get_block("B"), s.get_loops(s.get_block("C"))[0]);
                   },
                   {"reverse_compute_at: block B has no producers"});
  }
  // Found by the randomized schedule test: under the producer's loop a padding
  // consumer only ran where it reads the producer and left its border unset.
  SECTION("consumer would lose part of its output") {
    expect_refusal(R"(
@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((10,), "float32")):
    A_s = T.alloc_buffer((8,), "float32")
    for i in range(8):
        with T.block("A_s"):
            vi = T.axis.spatial(8, i)
            A_s[vi] = A[vi]
    for j in range(10):
        with T.block("pad"):
            vj = T.axis.spatial(10, j)
            B[vj] = T.if_then_else(1 <= vj and vj < 9, A_s[vj - 1], T.float32(0))
)",
                   kNothing,
                   [](Schedule& s) {
                     s.reverse_compute_at(s.get_block("pad"), s.get_loops(s.get_block("A_s"))[0]);
                   },
                   {"reverse_compute_at: block pad would cover only part of the domain of vj"});
  }
}

// ---- compute_inline -----------------------------------------------------------

TEST_CASE("compute_inline: conv2d padding becomes if_then_else", "[schedule][compute]") {
  expect_result(
      example("conv2d_nchw.tir"), [](Schedule& s) { s.compute_inline(s.get_block("data_pad")); },
      R"(# from tvm.script import tir as T

@T.prim_func
def main(data: T.Buffer((1, 4, 8, 8), "float32"), weight: T.Buffer((8, 4, 3, 3), "float32"), conv: T.Buffer((1, 8, 8, 8), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for nn, ff, yy, xx, rc, ry, rx in T.grid(1, 8, 8, 8, 4, 3, 3):
        with T.block("conv"):
            v_nn, v_ff, v_yy, v_xx, v_rc, v_ry, v_rx = T.axis.remap("SSSSRRR", [nn, ff, yy, xx, rc, ry, rx])
            T.reads(conv[v_nn, v_ff, v_yy, v_xx], data[v_nn, v_rc, v_yy + v_ry - 1, v_xx + v_rx - 1], weight[v_ff, v_rc, v_ry, v_rx])
            T.writes(conv[v_nn, v_ff, v_yy, v_xx])
            with T.init():
                conv[v_nn, v_ff, v_yy, v_xx] = T.float32(0)
            conv[v_nn, v_ff, v_yy, v_xx] = conv[v_nn, v_ff, v_yy, v_xx] + T.if_then_else(1 <= v_yy + v_ry and v_yy + v_ry < 9 and 1 <= v_xx + v_rx and v_xx + v_rx < 9, data[v_nn, v_rc, v_yy + v_ry - 1, v_xx + v_rx - 1], T.float32(0)) * weight[v_ff, v_rc, v_ry, v_rx]
)");
}

TEST_CASE("compute_inline: elementwise chain", "[schedule][compute]") {
  expect_result(
      example("elementwise_chain.tir"), [](Schedule& s) { s.compute_inline(s.get_block("C")); },
      R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32, 32), "float32"), D: T.Buffer((32, 32), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    B = T.alloc_buffer((32, 32), "float32")
    for i0, j0 in T.grid(32, 32):
        with T.block("B"):
            v_i0, v_j0 = T.axis.remap("SS", [i0, j0])
            T.reads(A[v_i0, v_j0])
            T.writes(B[v_i0, v_j0])
            B[v_i0, v_j0] = A[v_i0, v_j0] * T.float32(2)
    for i2, j2 in T.grid(32, 32):
        with T.block("D"):
            v_i2, v_j2 = T.axis.remap("SS", [i2, j2])
            T.reads(B[v_i2, v_j2])
            T.writes(D[v_i2, v_j2])
            D[v_i2, v_j2] = T.max(B[v_i2, v_j2] + T.float32(1), T.float32(0))
)");
  expect_result(
      example("elementwise_chain.tir"),
      [](Schedule& s) {
        s.compute_inline(s.get_block("B"));
        s.compute_inline(s.get_block("C"));
      },
      R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32, 32), "float32"), D: T.Buffer((32, 32), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i2, j2 in T.grid(32, 32):
        with T.block("D"):
            v_i2, v_j2 = T.axis.remap("SS", [i2, j2])
            T.reads(A[v_i2, v_j2])
            T.writes(D[v_i2, v_j2])
            D[v_i2, v_j2] = T.max(A[v_i2, v_j2] * T.float32(2) + T.float32(1), T.float32(0))
)");
}

TEST_CASE("compute_inline: softmax exp into two consumers", "[schedule][compute]") {
  expect_result(
      example("softmax.tir"), [](Schedule& s) { s.compute_inline(s.get_block("T_exp")); },
      R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 32), "float32"), T_softmax: T.Buffer((16, 32), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    T_max = T.alloc_buffer((16,), "float32")
    T_sum = T.alloc_buffer((16,), "float32")
    for i0, k0 in T.grid(16, 32):
        with T.block("T_max"):
            v_i0, v_k0 = T.axis.remap("SR", [i0, k0])
            T.reads(T_max[v_i0], A[v_i0, v_k0])
            T.writes(T_max[v_i0])
            with T.init():
                T_max[v_i0] = T.float32("-inf")
            T_max[v_i0] = T.max(T_max[v_i0], A[v_i0, v_k0])
    for i2, k2 in T.grid(16, 32):
        with T.block("T_sum"):
            v_i2, v_k2 = T.axis.remap("SR", [i2, k2])
            T.reads(T_sum[v_i2], A[v_i2, v_k2], T_max[v_i2])
            T.writes(T_sum[v_i2])
            with T.init():
                T_sum[v_i2] = T.float32(0)
            T_sum[v_i2] = T_sum[v_i2] + T.exp(A[v_i2, v_k2] - T_max[v_i2])
    for i3, j3 in T.grid(16, 32):
        with T.block("T_softmax"):
            v_i3, v_j3 = T.axis.remap("SS", [i3, j3])
            T.reads(A[v_i3, v_j3], T_max[v_i3], T_sum[v_i3])
            T.writes(T_softmax[v_i3, v_j3])
            T_softmax[v_i3, v_j3] = T.exp(A[v_i3, v_j3] - T_max[v_i3]) / T_sum[v_i3]
)");
}

TEST_CASE("compute_inline: records its instruction", "[schedule][compute]") {
  Schedule sch(parse_module(example("elementwise_chain.tir")));
  BlockRV b = sch.get_block("B");
  sch.compute_inline(b);
  const Instruction& inst = sch.trace().instructions().back();
  CHECK(inst.kind == "compute_inline");
  REQUIRE(inst.keywords.size() == 1);
  CHECK(inst.keywords[0].first == "block");
  CHECK(std::get<TraceRV>(inst.keywords[0].second.v) == sch.trace_rv(b));
}

TEST_CASE("compute_inline: refusals", "[schedule][compute]") {
  SECTION("output block") {
    expect_refusal(example("elementwise_chain.tir"), kNothing,
                   [](Schedule& s) { s.compute_inline(s.get_block("D")); },
                   {"compute_inline: block D is an output block", "parameter D"});
  }
  SECTION("reduction with init") {
    expect_refusal(example("softmax.tir"), kNothing,
                   [](Schedule& s) { s.compute_inline(s.get_block("T_max")); },
                   {"compute_inline: block T_max has an init"});
  }
  SECTION("not a complete block") {
    expect_refusal(kTwoWriters, kNothing, [](Schedule& s) { s.compute_inline(s.get_block("B2")); },
                   {"compute_inline: block B2 is not a complete block"});
  }
  SECTION("store indices are not iteration variables") {
    expect_refusal(kReversedStore, kNothing,
                   [](Schedule& s) { s.compute_inline(s.get_block("B")); },
                   {"compute_inline: block B stores into B at indices that are not distinct "
                    "iteration variables"});
  }
}

// ---- reverse_compute_inline ---------------------------------------------------

TEST_CASE("reverse_compute_inline: relu into an elementwise producer", "[schedule][compute]") {
  expect_result(
      kScaleRelu, [](Schedule& s) { s.reverse_compute_inline(s.get_block("relu")); },
      R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), D: T.Buffer((16, 16), "float32")):
    # with T.block("root"):
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj])
            T.writes(D[vi, vj])
            D[vi, vj] = T.max(A[vi, vj] * T.float32(3), T.float32(0))
)");
  expect_result(
      kScaleReluTransposed, [](Schedule& s) { s.reverse_compute_inline(s.get_block("relu")); },
      R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8, 16), "float32"), D: T.Buffer((16, 8), "float32")):
    # with T.block("root"):
    for i, j in T.grid(8, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj])
            T.writes(D[vj, vi])
            D[vj, vi] = T.max(A[vi, vj] * T.float32(3), T.float32(0))
)");
}

TEST_CASE("reverse_compute_inline: elementwise chain", "[schedule][compute]") {
  expect_result(
      example("elementwise_chain.tir"),
      [](Schedule& s) {
        s.reverse_compute_inline(s.get_block("D"));
        s.reverse_compute_inline(s.get_block("C"));
      },
      R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32, 32), "float32"), D: T.Buffer((32, 32), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i0, j0 in T.grid(32, 32):
        with T.block("B"):
            v_i0, v_j0 = T.axis.remap("SS", [i0, j0])
            T.reads(A[v_i0, v_j0])
            T.writes(D[v_i0, v_j0])
            D[v_i0, v_j0] = T.max(A[v_i0, v_j0] * T.float32(2) + T.float32(1), T.float32(0))
)");
}

TEST_CASE("reverse_compute_inline: records its instruction", "[schedule][compute]") {
  Schedule sch(parse_module(kScaleRelu));
  BlockRV b = sch.get_block("relu");
  sch.reverse_compute_inline(b);
  const Instruction& inst = sch.trace().instructions().back();
  CHECK(inst.kind == "reverse_compute_inline");
  REQUIRE(inst.keywords.size() == 1);
  CHECK(std::get<TraceRV>(inst.keywords[0].second.v) == sch.trace_rv(b));
}

TEST_CASE("reverse_compute_inline: refusals", "[schedule][compute]") {
  SECTION("the producer is a reduction") {
    expect_refusal(kMatmulRelu, kNothing,
                   [](Schedule& s) { s.reverse_compute_inline(s.get_block("relu")); },
                   {"reverse_compute_inline: producer C of block relu is a reduction block"});
  }
  SECTION("the consumer reads at non-trivial indices") {
    expect_refusal(kScaleReluFlipped, kNothing,
                   [](Schedule& s) { s.reverse_compute_inline(s.get_block("relu")); },
                   {"reverse_compute_inline: block relu reads B at indices that are not"});
  }
  SECTION("the intermediate buffer has other readers") {
    expect_refusal(
        kReversedStore, kNothing, [](Schedule& s) { s.reverse_compute_inline(s.get_block("E")); },
        {"reverse_compute_inline: buffer B written by B is read by blocks other than E"});
  }
  SECTION("several producers") {
    expect_refusal(example("softmax.tir"), kNothing,
                   [](Schedule& s) { s.reverse_compute_inline(s.get_block("T_softmax")); },
                   {"reverse_compute_inline: block T_softmax has 2 producers"});
  }
  SECTION("the intermediate buffer is a parameter") {
    expect_refusal(example("relu.tir"), kNothing,
                   [](Schedule& s) { s.reverse_compute_inline(s.get_block("compute")); },
                   {"reverse_compute_inline: block compute has 0 producers"});
  }
}

// ---- flattened pixels -----------------------------------------------------------

// B writes Y over flattened pixels p (Y[c, p // 7, p % 7], a convolution's
// output); C reads each pixel of Y the same way (its epilogue).
const char* kPixelEpilogue = R"(@T.prim_func
def main(A: T.Buffer((4, 56), "float32"), Z: T.Buffer((4, 8, 7), "float32")):
    Y = T.alloc_buffer((4, 8, 7), "float32")
    for c, p in T.grid(4, 56):
        with T.block("B"):
            vc, vp = T.axis.remap("SS", [c, p])
            T.reads(A[vc, vp])
            T.writes(Y[vc, vp // 7, vp % 7])
            Y[vc, vp // 7, vp % 7] = A[vc, vp] * T.float32(2)
    for c, p in T.grid(4, 56):
        with T.block("C"):
            vc, vp = T.axis.remap("SS", [c, p])
            T.reads(Y[vc, vp // 7, vp % 7])
            T.writes(Z[vc, vp // 7, vp % 7])
            Z[vc, vp // 7, vp % 7] = T.max(Y[vc, vp // 7, vp % 7], T.float32(0))
)";

TEST_CASE("reverse_compute_at: index pairs p // E, p % E are one dimension indexed p",
          "[schedule][compute]") {
  // Blocks of 8 pixels (crossing rows of 7) in the outer loop: the consumer
  // covers exactly one block per iteration, 4 channels x 8 pixels.
  IRModule mod = parse_module(kPixelEpilogue);
  Schedule sch(mod);
  std::vector<LoopRV> loops = sch.get_loops(sch.get_block("B"));
  std::vector<LoopRV> p = sch.split(loops[1], {7, 8});
  sch.reorder({p[0], loops[0], p[1]});
  sch.reverse_compute_at(sch.get_block("C"), p[0]);
  const PrimFunc& after = sch.func("main");
  const std::string printed = print_func(after);
  INFO(printed);
  CHECK(printed.find("for ax0, ax1 in T.grid(4, 8):") != std::string::npos);
  EquivResult eq = check_equivalent(mod.at("main"), after);
  INFO(eq.message);
  CHECK(eq.equal);
  CHECK(verify(after).empty());
  // A consumer that reads the next pixel is not one iteration variable per
  // dimension, nor a pair of one: refused, as before.
  std::string shifted = kPixelEpilogue;
  const std::string read = "T.max(Y[vc, vp // 7, vp % 7]";
  shifted.replace(shifted.find(read), read.size(),
                  "T.max(Y[vc, (vp + 1) % 56 // 7, (vp + 1) % 56 % 7]");
  const std::string reads = "T.reads(Y[vc, vp // 7, vp % 7])";
  shifted.replace(shifted.find(reads), reads.size(),
                  "T.reads(Y[vc, (vp + 1) % 56 // 7, (vp + 1) % 56 % 7])");
  expect_refusal(
      shifted,
      [](Schedule& s) {
        std::vector<LoopRV> l = s.get_loops(s.get_block("B"));
        std::vector<LoopRV> q = s.split(l[1], {7, 8});
        s.reorder({q[0], l[0], q[1]});
      },
      [](Schedule& s) {
        s.reverse_compute_at(s.get_block("C"), s.get_loops(s.get_block("B"))[0]);
      },
      {"reverse_compute_at: block C", "not one iteration variable plus an offset"});
}
