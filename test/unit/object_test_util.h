// Hand-made machine code (xbyak) following the generator's ABI, and helpers to
// run the system toolchain on what the object writer produces.
#pragma once

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xbyak/xbyak.h>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "codegen/x86/machine_code.h"

namespace tirc::test {

// Builds MachineCode symbol by symbol from one xbyak buffer.
class CodeBuilder : public Xbyak::CodeGenerator {
 public:
  CodeBuilder() : Xbyak::CodeGenerator(4096, Xbyak::DontSetProtectRWE) {}

  void begin(std::string name, bool global = true) {
    current_ = {std::move(name), getSize(), 0, global};
  }
  void end() {
    current_.size = getSize() - current_.offset;
    code_.symbols.push_back(current_);
  }
  // `call rel32` to a function outside the text, displacement left 0.
  void call_external(const std::string& symbol) {
    db(0xE8);
    code_.external_calls.push_back({getSize(), symbol});
    dd(0);
  }
  MachineCode finish() {
    code_.text.assign(getCode(), getCode() + getSize());
    return code_;
  }

 private:
  MachineCode code_;
  MachineCode::Symbol current_;
};

// int add_one(float* a, int64_t n): a[i] += 1 (the 1.0f from the constant pool).
// int64_t call_twice_plus_one(int64_t x): ext_twice(x) + 1, ext_twice external.
// int64_t triple_plus_one(int64_t x): helper(x) + 1, helper local (x * 3).
inline MachineCode sample_functions() {
  using namespace Xbyak::util;
  CodeBuilder g;
  Xbyak::Label one, helper;

  g.begin("add_one");
  {
    Xbyak::Label loop, done;
    g.movss(xmm1, g.ptr[rip + one]);
    g.xor_(eax, eax);
    g.L(loop);
    g.cmp(rax, rsi);
    g.jge(done);
    g.movss(xmm0, g.ptr[rdi + rax * 4]);
    g.addss(xmm0, xmm1);
    g.movss(g.ptr[rdi + rax * 4], xmm0);
    g.inc(rax);
    g.jmp(loop);
    g.L(done);
    g.xor_(eax, eax);
    g.ret();
  }
  g.end();

  g.begin("call_twice_plus_one");
  g.sub(rsp, 8);  // 16-byte stack alignment at the call
  g.call_external("ext_twice");
  g.add(rax, 1);
  g.add(rsp, 8);
  g.ret();
  g.end();

  g.begin("triple_plus_one");
  g.call(helper);
  g.add(rax, 1);
  g.ret();
  g.end();

  g.align(16);
  g.begin("helper", /*global=*/false);
  g.L(helper);
  g.lea(rax, g.ptr[rdi + rdi * 2]);
  g.ret();
  g.end();

  g.align(16);
  g.L(one);
  g.dd(0x3f800000);
  return g.finish();
}

// int par_iota(float* a, int64_t n): a[i] = i through tirc_parallel_for with a
// local body `par_iota_body(begin, end, closure=a)`.
inline MachineCode parallel_function() {
  using namespace Xbyak::util;
  CodeBuilder g;
  Xbyak::Label body;

  g.begin("par_iota");
  g.sub(rsp, 8);
  g.mov(rdx, rdi);  // closure = a
  g.mov(rdi, rsi);  // n
  g.lea(rsi, g.ptr[rip + body]);
  g.call_external("tirc_parallel_for");
  g.add(rsp, 8);
  g.ret();
  g.end();

  g.align(16);
  g.begin("par_iota_body", /*global=*/false);
  {
    Xbyak::Label loop, done;
    g.L(body);
    g.L(loop);
    g.cmp(rdi, rsi);
    g.jge(done);
    g.cvtsi2ss(xmm0, rdi);
    g.movss(g.ptr[rdx + rdi * 4], xmm0);
    g.inc(rdi);
    g.jmp(loop);
    g.L(done);
    g.ret();
  }
  g.end();
  return g.finish();
}

struct CommandResult {
  int status = -1;  // exit status, or -1 when it did not exit normally
  std::string out;
  std::string err;
};

// A fresh directory under the system temp directory, removed afterwards.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "tirc_obj_XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

// Runs `command` through the shell, capturing stdout and stderr apart.
inline CommandResult run_command(const std::string& command, const TempDir& dir) {
  const std::string out = dir.file("cmd.out"), err = dir.file("cmd.err");
  const int raw = std::system((command + " >" + out + " 2>" + err).c_str());
  CommandResult r;
  r.status = raw != -1 && WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = read_text(out);
  r.err = read_text(err);
  return r;
}

// The instrumented build links C programs with the same sanitizers, since
// libtirc_runtime.a is instrumented too (test/CMakeLists.txt sets both).
inline std::string sanitizer_flags() {
  const std::string flags = TIRC_C_SANITIZE_FLAGS;
  return flags.empty() ? "" : " " + flags;
}

// The C compiler that built libtirc_runtime.a: a program linking it (or a
// shared object with the sanitizers, loaded into this process) needs that
// compiler's sanitizer runtimes.
inline std::string runtime_c_compiler() {
  return TIRC_C_COMPILER;
}

}  // namespace tirc::test
