// The whole user flow: `tirc compile` writes an object and a header, a C program
// includes the header, links the object (and the runtime for parallel loops),
// runs on inputs written by the test, and its outputs must equal the
// interpreter's. Several kernels, both targets.
#include <unistd.h>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "codegen/x86/target.h"
#include "ir/eval/interpreter.h"
#include "ir/text/parser.h"
#include "lit_schedule_cases.h"
#include "object_test_util.h"

namespace fs = std::filesystem;
using namespace tirc;

namespace {

int shell(const std::string& command) {
  INFO("command: " << command);
  return std::system(command.c_str());
}

// A C main that loads one raw file per parameter, calls `symbol`, and writes
// every parameter back out.
std::string c_driver(const std::string& header, const std::string& symbol,
                     const std::vector<size_t>& bytes) {
  std::ostringstream c;
  c << "#include <stdio.h>\n#include <stdlib.h>\n#include \"" << header << "\"\n"
    << "static void* load(const char* path, size_t n) {\n"
    << "  void* p = aligned_alloc(64, (n + 63) / 64 * 64);\n"
    << "  FILE* f = fopen(path, \"rb\");\n"
    << "  if (!f || fread(p, 1, n, f) != n) exit(3);\n"
    << "  fclose(f);\n  return p;\n}\n"
    << "static void store(const char* path, const void* p, size_t n) {\n"
    << "  FILE* f = fopen(path, \"wb\");\n"
    << "  if (!f || fwrite(p, 1, n, f) != n) exit(4);\n"
    << "  fclose(f);\n}\n"
    << "int main(void) {\n";
  for (size_t i = 0; i < bytes.size(); ++i)
    c << "  void* p" << i << " = load(\"in" << i << ".bin\", " << bytes[i] << ");\n";
  c << "  int rc = " << symbol << "(";
  for (size_t i = 0; i < bytes.size(); ++i) c << (i ? ", " : "") << "p" << i;
  c << ");\n";
  for (size_t i = 0; i < bytes.size(); ++i)
    c << "  store(\"out" << i << ".bin\", p" << i << ", " << bytes[i] << ");\n  free(p" << i
      << ");\n";
  c << "  return rc;\n}\n";
  return c.str();
}

struct Kernel {
  std::string name;  // object name (--name)
  std::string text;
};

std::vector<Kernel> kernels() {
  const fs::path examples = fs::path(TIRC_SOURCE_DIR) / "examples";
  return {
      {"matmul", read_text_file(examples / "matmul.tir")},
      {"msched", read_text_file(examples / "matmul_scheduled.tir")},
      {"conv", read_text_file(examples / "conv2d_nchw.tir")},
      {"i8mm", read_text_file(examples / "int8_matmul_int32_acc.tir")},
      {"two", read_text_file(examples / "module_two_funcs.tir")},
      {"par",
       "@T.prim_func\n"
       "def main(A: T.Buffer((64, 33), \"float32\"), B: T.Buffer((64, 33), \"float32\")):\n"
       "    for i in T.parallel(64):\n"
       "        for j in T.vectorized(33):\n"
       "            with T.block(\"B\"):\n"
       "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
       "                B[vi, vj] = A[vi, vj] * T.float32(3) + T.float32(1)\n"},
  };
}

}  // namespace

TEST_CASE("a C program links emitted objects and matches the interpreter", "[e2e]") {
  const fs::path root = fs::temp_directory_path() / ("tirc_link_" + std::to_string(::getpid()));
  int programs = 0;
  for (const Target& target : {Target{Isa::avx512}, Target{Isa::avx2}}) {
    if (!host_supports(target)) continue;
    for (const Kernel& k : kernels()) {
      const fs::path dir = root / (k.name + "_" + target.name());
      fs::create_directories(dir);
      std::ofstream(dir / "kernel.tir") << k.text;
      const IRModule m = parse_module(k.text, k.name);
      INFO(k.name << " on " << target.name());
      REQUIRE(shell(std::string("cd ") + dir.string() + " && " + TIRC_BINARY +
                    " compile kernel.tir -o kernel.o -H kernel.h --name " + k.name + " --target " +
                    target.name()) == 0);
      for (const auto& [fname, func] : m.functions()) {
        std::vector<NDArray> inputs = random_inputs(func, 7);
        std::vector<size_t> bytes;
        for (size_t i = 0; i < inputs.size(); ++i) {
          tirc::test::write_bytes(
              dir / ("in" + std::to_string(i) + ".bin"),
              std::string(reinterpret_cast<const char*>(inputs[i].data()), inputs[i].num_bytes()));
          bytes.push_back(inputs[i].num_bytes());
        }
        std::ofstream(dir / "main.c") << c_driver("kernel.h", k.name + "_" + fname, bytes);
        REQUIRE(shell("cd " + dir.string() + " && " + tirc::test::runtime_c_compiler() +
                      " -std=c11 -Wall -Werror main.c kernel.o " + TIRC_RUNTIME_LIB +
                      " -lpthread -lm" + tirc::test::sanitizer_flags() +
                      " -o prog 2> link.log && test ! -s link.log") == 0);
        REQUIRE(shell("cd " + dir.string() + " && ./prog") == 0);
        std::vector<Argument> args;
        for (auto& a : inputs) args.push_back({&a});
        run(func, args);
        for (size_t i = 0; i < inputs.size(); ++i) {
          INFO("function " << fname << " parameter " << i);
          const std::string got = tirc::test::read_text(dir / ("out" + std::to_string(i) + ".bin"));
          REQUIRE(got.size() == inputs[i].num_bytes());
          CHECK(
              std::equal(got.begin(), got.end(), reinterpret_cast<const char*>(inputs[i].data())));
        }
        ++programs;
      }
    }
  }
  fs::remove_all(root);
  CHECK(programs >= 6);
}
