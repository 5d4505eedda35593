// Every example program: lower() -> generate_x86 -> JIT, compared with the
// interpreter on the unlowered program, on both targets.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "passes/pipeline.h"
#include "x86_test_util.h"

using namespace tirc;
using namespace tirc::x86test;

namespace {

bool uses_math(const std::string& text) {
  for (const char* fn : {"T.exp", "T.log", "T.tanh", "T.erf", "T.sigmoid"})
    if (text.find(fn) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("x86: every example lowers, compiles and matches the interpreter", "[x86]") {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(fs::path(TIRC_SOURCE_DIR) / "examples"))
    if (e.path().extension() == ".tir") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() > 10);
  int compiled = 0;
  for (const fs::path& p : files) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    // Vector math calls need codegen/x86/math.cpp (enabled by [x86core-math]).
    if (uses_math(text)) continue;
    IRModule m = parse_module(text, p.filename().string());
    for (const auto& [name, f] : m.functions()) {
      INFO(p.filename().string() << " " << name);
      PrimFunc lowered = lower(f);
      for (const Target& t : targets()) {
        for (bool contraction : {false, true}) {
          GeneratorOptions go;
          go.target = t;
          go.contraction_kernels = contraction;
          MachineCode mc = generate_x86({{"k", lowered}}, go);
          JitModule jit(mc);
          std::vector<NDArray> ref = random_inputs(f, 5), got = ref;
          std::vector<Argument> ra, ga;
          size_t b = 0;
          for (const Param& prm : f->params) {
            REQUIRE(prm.buffer);
            ra.push_back({&ref[b]});
            ga.push_back({&got[b]});
            ++b;
          }
          run(f, ra);
          REQUIRE(call_jit(jit, "k", lowered, ga) == 0);
          for (size_t i = 0; i < ref.size(); ++i) {
            INFO(t.name() << " buffer " << i << " " << first_difference(ref[i], got[i]));
            CHECK(ref[i].bitwise_equal(got[i]));
          }
        }
      }
      ++compiled;
    }
  }
  CHECK(compiled >= 20);
}
