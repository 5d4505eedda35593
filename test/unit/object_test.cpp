#include <elf.h>

#include <catch2/catch.hpp>
#include <cstring>

#include "codegen/object/c_header.h"
#include "codegen/object/elf_writer.h"
#include "ir/error.h"
#include "ir/text/parser.h"
#include "object_test_util.h"

using namespace tirc;
using namespace tirc::test;

namespace {

// readelf output with every run of blanks made one space, so checks can be
// plain substrings (llvm-readelf and binutils readelf then print alike).
std::string squeeze(const std::string& s) {
  std::string out;
  for (char c : s)
    if (!((c == ' ' || c == '\t') && !out.empty() && out.back() == ' ')) out += c == '\t' ? ' ' : c;
  return out;
}

// The (squeezed) line of `text` containing `needle`, or "" when none does.
std::string line_with(const std::string& text, const std::string& needle) {
  const size_t at = text.find(needle);
  if (at == std::string::npos) return "";
  const size_t begin = text.rfind('\n', at) + 1;  // npos + 1 == 0
  return text.substr(begin, text.find('\n', at) - begin);
}

std::string bytes_of(const std::vector<uint8_t>& v) {
  return std::string(v.begin(), v.end());
}

std::string write_object(const TempDir& dir, const MachineCode& code, const std::string& name) {
  const std::string path = dir.file(name);
  write_bytes(path, bytes_of(write_elf_object(code)));
  return path;
}

const char* kSampleProgram = R"(#include <inttypes.h>
#include <stdio.h>
int add_one(float* a, int64_t n);
int64_t call_twice_plus_one(int64_t x);
int64_t triple_plus_one(int64_t x);
int64_t ext_twice(int64_t x) { return 2 * x; }
int main(void) {
  float a[5] = {1, 2, 3, 4, 5};
  int r = add_one(a, 5);
  printf("%d %g %g %g %g %g\n", r, a[0], a[1], a[2], a[3], a[4]);
  printf("%" PRId64 " %" PRId64 "\n", call_twice_plus_one(20), triple_plus_one(7));
  return 0;
}
)";
const char* kSampleOutput = "0 2 3 4 5 6\n41 22\n";

const char* kParallelProgram = R"(#include <stdio.h>
#include <stdint.h>
#include "tirc_runtime.h"
int par_iota(float* a, int64_t n);
int main(void) {
  static float a[1000];
  tirc_set_num_threads(4);
  int r = par_iota(a, 1000);
  double sum = 0;
  for (int i = 0; i < 1000; ++i) sum += a[i];
  printf("%d %g %g\n", r, a[999], sum);
  return 0;
}
)";

}  // namespace

TEST_CASE("ELF header, sections and layout", "[object]") {
  const MachineCode code = sample_functions();
  const std::vector<uint8_t> obj = write_elf_object(code);
  REQUIRE(obj.size() > sizeof(Elf64_Ehdr));
  Elf64_Ehdr eh;
  std::memcpy(&eh, obj.data(), sizeof eh);
  CHECK(std::memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0);
  CHECK(eh.e_ident[EI_CLASS] == ELFCLASS64);
  CHECK(eh.e_type == ET_REL);
  CHECK(eh.e_machine == EM_X86_64);
  REQUIRE(eh.e_shoff + eh.e_shnum * sizeof(Elf64_Shdr) == obj.size());
  Elf64_Shdr text;
  std::memcpy(&text, obj.data() + eh.e_shoff + sizeof(Elf64_Shdr), sizeof text);
  CHECK(text.sh_offset % 64 == 0);
  CHECK(text.sh_size == code.text.size());
  CHECK(std::memcmp(obj.data() + text.sh_offset, code.text.data(), code.text.size()) == 0);
}

TEST_CASE("readelf sees sections, symbols and relocations", "[object]") {
  TempDir dir;
  const std::string obj = write_object(dir, sample_functions(), "sample.o");
  for (const std::string tool : {"readelf", "llvm-readelf-19"}) {
    INFO(tool);
    const CommandResult r = run_command(tool + " -W -S -s -r " + obj, dir);
    REQUIRE(r.status == 0);
    CHECK(r.err.empty());
    const std::string s = squeeze(r.out);
    CHECK_THAT(s,
               Catch::Contains("] .text PROGBITS 0000000000000000 000040 000064 00 AX 0 0 64\n"));
    CHECK_THAT(s, Catch::Contains("] .rela.text RELA 0000000000000000 0000a8 000018 18 I 4 1 8\n"));
    CHECK_THAT(
        s, Catch::Contains("] .note.GNU-stack PROGBITS 0000000000000000 0000c0 000000 00 0 0 1\n"));
    // sh_info of .symtab: index of the first global (null, section, helper).
    CHECK_THAT(s, Catch::Contains("] .symtab SYMTAB 0000000000000000 0000c0 0000a8 18 5 3 8\n"));
    CHECK_THAT(s, Catch::Contains(" 1: 0000000000000000 0 SECTION LOCAL DEFAULT 1 .text\n"));
    CHECK_THAT(s, Catch::Contains(" 2: 0000000000000050 5 FUNC LOCAL DEFAULT 1 helper\n"));
    CHECK_THAT(s, Catch::Contains(" 3: 0000000000000000 37 FUNC GLOBAL DEFAULT 1 add_one\n"));
    CHECK_THAT(
        s, Catch::Contains(" 4: 0000000000000025 18 FUNC GLOBAL DEFAULT 1 call_twice_plus_one\n"));
    CHECK_THAT(s,
               Catch::Contains(" 5: 0000000000000037 10 FUNC GLOBAL DEFAULT 1 triple_plus_one\n"));
    CHECK_THAT(s, Catch::Contains(" 6: 0000000000000000 0 NOTYPE GLOBAL DEFAULT UND ext_twice\n"));
    CHECK_THAT(s, Catch::Contains("000000000000002a 0000000600000004 R_X86_64_PLT32 "
                                  "0000000000000000 ext_twice - 4\n"));
  }
}

TEST_CASE("objects link with gcc/ld, gold and clang/lld and run", "[object]") {
  TempDir dir;
  const std::string obj = write_object(dir, sample_functions(), "sample.o");
  write_bytes(dir.file("main.c"), kSampleProgram);
  const std::string flags = sanitizer_flags();
  const std::vector<std::string> linkers = {
      "cc" + flags, "cc -fuse-ld=gold" + flags,
      flags.empty() ? "clang-19 -fuse-ld=lld" : "cc -fuse-ld=lld" + flags};
  for (const auto& cc : linkers) {
    INFO(cc);
    const CommandResult link =
        run_command(cc + " " + dir.file("main.c") + " " + obj + " -o " + dir.file("prog"), dir);
    CHECK(link.err.empty());  // no executable-stack warning, nothing else
    REQUIRE(link.status == 0);
    const CommandResult run = run_command(dir.file("prog"), dir);
    CHECK(run.status == 0);
    CHECK(run.out == kSampleOutput);
  }
}

TEST_CASE("linked programs get a non-executable stack", "[object]") {
  TempDir dir;
  const std::string obj = write_object(dir, sample_functions(), "sample.o");
  write_bytes(dir.file("main.c"), kSampleProgram);
  REQUIRE(run_command("cc" + sanitizer_flags() + " " + dir.file("main.c") + " " + obj + " -o " +
                          dir.file("prog"),
                      dir)
              .status == 0);
  const CommandResult r = run_command("readelf -W -l " + dir.file("prog"), dir);
  REQUIRE(r.status == 0);
  const std::string stack = line_with(squeeze(r.out), "GNU_STACK");
  CHECK_THAT(stack, Catch::Contains(" RW "));
  CHECK_THAT(stack, !Catch::Contains("RWE"));
}

TEST_CASE("an object calling tirc_parallel_for links with libtirc_runtime.a", "[object]") {
  TempDir dir;
  const std::string obj = write_object(dir, parallel_function(), "par.o");
  write_bytes(dir.file("main.c"), kParallelProgram);
  const std::string flags = sanitizer_flags();
  std::vector<std::string> compilers = {runtime_c_compiler() + flags};
  if (flags.empty()) compilers.push_back("clang-19 -fuse-ld=lld");
  for (const auto& cc : compilers) {
    INFO(cc);
    const CommandResult link =
        run_command(cc + " -I" TIRC_RUNTIME_INCLUDE " " + dir.file("main.c") + " " + obj +
                        " " TIRC_RUNTIME_LIB " -lpthread -o " + dir.file("prog"),
                    dir);
    CHECK(link.err.empty());
    REQUIRE(link.status == 0);
    const CommandResult run = run_command(dir.file("prog"), dir);
    CHECK(run.status == 0);
    CHECK(run.out == "0 999 499500\n");
  }
}

TEST_CASE("an object without external calls or symbols is still well formed", "[object]") {
  TempDir dir;
  MachineCode empty;
  const std::string obj = write_object(dir, empty, "empty.o");
  const CommandResult r = run_command("readelf -W -S -s -r " + obj, dir);
  REQUIRE(r.status == 0);
  CHECK(r.err.empty());
  CHECK_THAT(line_with(squeeze(r.out), "] .rela.text"), Catch::EndsWith(" 000000 18 I 4 1 8"));
  CHECK(r.out.find("contains 2 entries") != std::string::npos);  // null + section symbol
}

TEST_CASE("a call to a global defined in the same object relocates against it", "[object]") {
  using namespace Xbyak::util;
  CodeBuilder g;
  g.begin("callee");
  g.mov(eax, 42);
  g.ret();
  g.end();
  g.begin("caller");
  g.sub(rsp, 8);
  g.call_external("callee");
  g.add(rsp, 8);
  g.ret();
  g.end();
  TempDir dir;
  const std::string obj = write_object(dir, g.finish(), "self.o");
  const CommandResult r = run_command("readelf -W -s -r " + obj, dir);
  CHECK_THAT(squeeze(r.out), Catch::Contains("R_X86_64_PLT32 0000000000000000 callee - 4\n"));
  CHECK(r.out.find("UND callee") == std::string::npos);
  write_bytes(
      dir.file("main.c"),
      "#include <stdio.h>\nint caller(void);\nint main(void) { printf(\"%d\\n\", caller()); }\n");
  REQUIRE(run_command("cc" + sanitizer_flags() + " " + dir.file("main.c") + " " + obj + " -o " +
                          dir.file("prog"),
                      dir)
              .status == 0);
  CHECK(run_command(dir.file("prog"), dir).out == "42\n");
}

TEST_CASE("ELF writer rejects malformed machine code", "[object]") {
  MachineCode code = sample_functions();
  SECTION("symbol past the end") {
    code.symbols[0].size = code.text.size() + 1;
    CHECK_THROWS_AS(write_elf_object(code), Error);
  }
  SECTION("duplicate symbol") {
    code.symbols[1].name = code.symbols[0].name;
    CHECK_THROWS_WITH(write_elf_object(code), Catch::Contains("duplicate symbol 'add_one'"));
  }
  SECTION("external call outside the text") {
    code.external_calls[0].offset = code.text.size() - 2;
    CHECK_THROWS_WITH(write_elf_object(code), Catch::Contains("outside the text"));
  }
  SECTION("alignment not a power of two") {
    code.text_alignment = 48;
    CHECK_THROWS_WITH(write_elf_object(code), Catch::Contains("power of two"));
  }
  SECTION("external call to a local symbol") {
    code.external_calls[0].symbol = "helper";
    CHECK_THROWS_WITH(write_elf_object(code), Catch::Contains("local symbol 'helper'"));
  }
  SECTION("empty name") {
    code.symbols[2].name.clear();
    CHECK_THROWS_AS(write_elf_object(code), Error);
  }
}

// ---- C header ----

namespace {

const char* kHeaderModule = R"(# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def scale(A: T.Buffer((128, 64), "float32"), B: T.Buffer((128, 64), "float64"), n: T.int64, alpha: T.float32):
        for i in range(128):
            B[i, 0] = T.Cast("float64", A[i, 0] * alpha)

    @T.prim_func
    def types(a: T.Buffer((4,), "int8"), b: T.Buffer((4,), "int16"), c: T.Buffer((4,), "int32"), d: T.Buffer((4,), "int64"), e: T.Buffer((4,), "uint8"), f: T.Buffer((4,), "bool"), g: T.Buffer((2, 3), "float16"), h: T.Buffer((5,), "bfloat16"), x: T.int32):
        for i in range(4):
            c[i] = x
)";

std::vector<HeaderEntry> header_entries() {
  const IRModule m = parse_module(kHeaderModule);
  return {{"kernels_scale", m.at("scale")}, {"kernels_types", m.at("types")}};
}

const char* kGoldenHeader = R"(/* Entry points of my-kernels, generated by tirc.
   Buffers are passed as pointers to their first element, compact row-major;
   float16 and bfloat16 elements are passed as their uint16_t bit patterns and
   bool elements as uint8_t (0 or 1). */
#ifndef TIRC_MY_KERNELS_H
#define TIRC_MY_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* kernels_scale: returns 0.
     A: float32[128, 64]
     B: float64[128, 64]
     n: int64 scalar, by value
     alpha: float32 scalar, by value */
int kernels_scale(float* A, double* B, int64_t n, float alpha);
/* args[i] is parameter i's data pointer (a buffer) or address (a scalar). */
int kernels_scale_packed(void* const* args);

/* kernels_types: returns 0.
     a: int8[4]
     b: int16[4]
     c: int32[4]
     d: int64[4]
     e: uint8[4]
     f: bool[4]
     g: float16[2, 3]
     h: bfloat16[5]
     x: int32 scalar, by value */
int kernels_types(int8_t* a, int16_t* b, int32_t* c, int64_t* d, uint8_t* e, uint8_t* f, uint16_t* g, uint16_t* h, int32_t x);
/* args[i] is parameter i's data pointer (a buffer) or address (a scalar). */
int kernels_types_packed(void* const* args);

#ifdef __cplusplus
}
#endif

#endif /* TIRC_MY_KERNELS_H */
)";

}  // namespace

TEST_CASE("C header text", "[object]") {
  CHECK(write_c_header("my-kernels", header_entries()) == kGoldenHeader);
}

TEST_CASE("C header compiles as C99 and C++17", "[object]") {
  TempDir dir;
  write_bytes(dir.file("kernels.h"), write_c_header("kernels", header_entries()));
  // Including it twice checks the guard; calling through it checks the types.
  const std::string use =
      "#include \"kernels.h\"\n#include \"kernels.h\"\n"
      "int use(float* a, double* b) { return kernels_scale(a, b, 3, 1.5f); }\n"
      "int (*packed)(void* const*) = kernels_types_packed;\n";
  write_bytes(dir.file("use.c"), use);
  write_bytes(dir.file("use.cpp"), use);
  const CommandResult c = run_command("cc -std=c99 -Wall -Wextra -Werror -pedantic -c " +
                                          dir.file("use.c") + " -o " + dir.file("use_c.o"),
                                      dir);
  CHECK(c.err.empty());
  CHECK(c.status == 0);
  const CommandResult cpp = run_command("c++ -std=c++17 -Wall -Wextra -Werror -c " +
                                            dir.file("use.cpp") + " -o " + dir.file("use_cpp.o"),
                                        dir);
  CHECK(cpp.err.empty());
  CHECK(cpp.status == 0);
  // extern "C": the C++ object refers to the unmangled name.
  const CommandResult nm = run_command("nm " + dir.file("use_cpp.o"), dir);
  CHECK_THAT(squeeze(nm.out), Catch::Contains(" U kernels_scale\n"));
}

TEST_CASE("C header names: guards and parameter identifiers", "[object]") {
  const IRModule m = parse_module(R"(# from tvm.script import tir as T

@T.prim_func
def main(int: T.Buffer((2,), "float32"), new: T.Buffer((2,), "float32")):
    for i in range(2):
        new[i] = int[i]
)");
  const std::string h = write_c_header("9 lives.v2", {{"f", m.at("main")}});
  CHECK(h.find("#ifndef TIRC__9_LIVES_V2_H\n") != std::string::npos);
  CHECK(h.find("int f(float* int_, float* new_);") != std::string::npos);
}

TEST_CASE("C header rejects bad symbols and types", "[object]") {
  const std::vector<HeaderEntry> entries = header_entries();
  CHECK_THROWS_WITH(write_c_header("k", {{"not-an-identifier", entries[0].func}}),
                    Catch::Contains("not a C identifier"));
  CHECK_THROWS_WITH(write_c_header("k", {entries[0], entries[0]}),
                    Catch::Contains("declared twice"));
  CHECK_THROWS_WITH(write_c_header("k", {{"f", entries[0].func}, {"f_packed", entries[1].func}}),
                    Catch::Contains("declared twice"));
  const IRModule m = parse_module(R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((2,), "float32x4")):
    A[0] = A[1]
)");
  CHECK_THROWS_WITH(write_c_header("k", {{"f", m.at("main")}}), Catch::Contains("vector type"));
}
