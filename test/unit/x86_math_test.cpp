// Math calls in generated code (scalar and vectorized loops) stay within the
// accuracy codegen/x86/math.h documents, against the interpreter's libm.
#include <cmath>

#include "codegen/x86/math.h"
#include "x86_test_util.h"

using namespace tirc;
using namespace tirc::x86test;

TEST_CASE("x86: vector math calls within their documented accuracy", "[x86][vecmath]") {
  const char* fns[] = {"exp", "log", "tanh", "erf", "sigmoid"};
  for (const char* fn : fns) {
    VecMathFn id;
    REQUIRE(vec_math_fn_from_name(fn, &id));
    MathAccuracy acc = vec_math_accuracy(id);
    std::string arg =
        std::string(fn) == "log" ? "T.abs(A[i]) + T.float32(0.01)" : "A[i] * T.float32(3)";
    for (const char* loop : {"range", "T.vectorized"}) {
      PrimFunc f = tir("A: T.Buffer((37,), \"float32\"), B: T.Buffer((37,), \"float32\")",
                       std::string("    for i in ") + loop + "(37):\n        B[i] = T." + fn + "(" +
                           arg + ")\n");
      for (const Target& t : targets()) {
        MachineCode mc = generate_x86({{"k", f}}, {t, false});
        JitModule jit(mc);
        std::vector<NDArray> ref = random_inputs(f, 3, false), got = ref;
        run(f, {{&ref[0]}, {&ref[1]}});
        REQUIRE(call_jit(jit, "k", f, {{&got[0]}, {&got[1]}}) == 0);
        for (int64_t k = 0; k < 37; ++k) {
          double want = ref[1].get_float(k), have = got[1].get_float(k);
          INFO(fn << " " << loop << " " << t.name() << " element " << k);
          CHECK(std::fabs(have - want) <=
                acc.max_abs + acc.max_rel * std::fabs(want) + 1e-7 * std::fabs(want));
        }
      }
    }
  }
}
