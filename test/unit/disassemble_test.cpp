#include <catch2/catch.hpp>

#include "codegen/llvm/disassemble.h"
#include "ir/error.h"
#include "object_test_util.h"

using namespace tirc;
using namespace tirc::test;

namespace {

// A function touching the interesting cases: a rip-relative constant, an
// AVX-512 instruction, an external call, a call to a local helper, a backward
// branch; then nine bytes of constants that must not be decoded.
MachineCode small_function() {
  using namespace Xbyak::util;
  CodeBuilder g;
  Xbyak::Label constants, helper, loop;
  g.begin("kernel");
  g.push(rbx);
  g.vbroadcastss(zmm0, g.ptr[rip + constants]);
  g.vaddps(zmm1, zmm0, zmm0);
  g.L(loop);
  g.dec(rdi);
  g.jnz(loop);
  g.call_external("tirc_parallel_for");
  g.call(helper);
  g.pop(rbx);
  g.ret();
  g.end();
  g.begin("helper", false);
  g.L(helper);
  g.xor_(eax, eax);
  g.ret();
  g.end();
  g.align(4);
  g.L(constants);
  g.dd(0x3f800000);
  g.dd(0x40000000);
  g.db(0xff);
  return g.finish();
}

}  // namespace

TEST_CASE("disassembly listing in AT&T syntax", "[disasm]") {
  const char* expected = R"(kernel:
     0: pushq   %rbx
     1: vbroadcastss 0x1d(%rip), %zmm0  # 0x28
     b: vaddps  %zmm0, %zmm0, %zmm1
    11: decq    %rdi
    14: jne     0x11
    16: call    tirc_parallel_for
    1b: callq   0x22  # helper
    20: popq    %rbx
    21: retq
helper:  # local
    22: xorl    %eax, %eax
    24: retq
# constants
    25: .byte   0xf
    26: .byte   0x1f
    27: .byte   0x0
    28: .long   0x3f800000, 0x40000000
    30: .byte   0xff
)";
  CHECK(disassemble_x86(small_function()) == expected);
}

TEST_CASE("disassembly listing in Intel syntax", "[disasm]") {
  const char* expected = R"(kernel:
     0: push    rbx
     1: vbroadcastss zmm0, dword ptr [rip + 0x1d]  # 0x28
     b: vaddps  zmm1, zmm0, zmm0
    11: dec     rdi
    14: jne     0x11
    16: call    tirc_parallel_for
    1b: call    0x22  # helper
    20: pop     rbx
    21: ret
helper:  # local
    22: xor     eax, eax
    24: ret
# constants
    25: .byte   0xf
    26: .byte   0x1f
    27: .byte   0x0
    28: .long   0x3f800000, 0x40000000
    30: .byte   0xff
)";
  CHECK(disassemble_x86(small_function(), /*intel_syntax=*/true) == expected);
}

TEST_CASE("disassembly of the object test's functions names every symbol", "[disasm]") {
  const MachineCode code = sample_functions();
  const std::string listing = disassemble_x86(code);
  for (const auto& s : code.symbols) CHECK(listing.find(s.name + ":") != std::string::npos);
  CHECK(listing.find("call    ext_twice\n") != std::string::npos);
  CHECK(listing.find("callq   0x50  # helper\n") != std::string::npos);
  // The 1.0f constant after the code is data, not instructions.
  CHECK(listing.find("# constants\n") != std::string::npos);
  CHECK(listing.find(", 0x3f800000\n") != std::string::npos);
}

TEST_CASE("bytes that do not decode are listed, not skipped", "[disasm]") {
  MachineCode code;
  code.text = {0x06, 0xc3};  // push %es does not exist in 64-bit mode
  code.symbols.push_back({"f", 0, 2, true});
  CHECK(disassemble_x86(code) == "f:\n     0: .byte   0x6\n     1: retq\n");
  // No symbols: everything is decoded as code.
  code.symbols.clear();
  CHECK(disassemble_x86(code, true) == "     0: .byte   0x6\n     1: ret\n");
}

TEST_CASE("disassembler rejects symbols outside the text", "[disasm]") {
  MachineCode code;
  code.text = {0xc3};
  code.symbols.push_back({"f", 0, 2, true});
  CHECK_THROWS_WITH(disassemble_x86(code), Catch::Contains("outside the text"));
}

TEST_CASE("AVX-512 masked and AVX2 instructions decode", "[disasm]") {
  using namespace Xbyak::util;
  CodeBuilder g;
  g.begin("vector");
  g.kmovw(k1, eax);
  g.vmovups(zmm0 | k1 | T_z, g.ptr[rdi + rax * 4]);
  g.vfmadd231ps(zmm1, zmm0, g.ptr_b[rsi]);
  g.vmovups(g.ptr[rdx] | k1, zmm1);
  g.vmaskmovps(ymm2, ymm3, g.ptr[rdi]);
  g.vzeroupper();
  g.ret();
  g.end();
  const std::string listing = disassemble_x86(g.finish(), true);
  CHECK(listing.find(".byte") == std::string::npos);
  CHECK(listing.find("vmovups zmm0 {k1} {z}, zmmword ptr [rdi + 4*rax]") != std::string::npos);
  CHECK(listing.find("vfmadd231ps zmm1, zmm0, dword ptr [rsi]{1to16}") != std::string::npos);
  CHECK(listing.find("vmaskmovps ymm2, ymm3, ymmword ptr [rdi]") != std::string::npos);
}
