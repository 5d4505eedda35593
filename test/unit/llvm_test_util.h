// Runs code from the LLVM generator: x86-64 objects linked into a shared
// object and loaded here, AArch64 objects linked with a small C harness by
// the cross compiler and run under qemu-aarch64. Both compare with the
// interpreter like codegen_test_util.h does for the x86 generator.
#pragma once

#include <cmath>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "c_compile_util.h"
#include "codegen/llvm/generator.h"
#include "codegen_test_util.h"

namespace tirc::test {

// Reads every argument from a file (a buffer's bytes, or a scalar's), calls
// kernel_packed and writes the buffers back to their files.
inline const char* kAarch64Harness = R"C(#include <stdio.h>
#include <stdlib.h>
int kernel_packed(void* const* args);
int main(int argc, char** argv) {
  void* args[64];
  long sizes[64];
  int n = argc - 1, i;
  if (n > 64) return 90;
  for (i = 0; i < n; ++i) {
    FILE* f = fopen(argv[i + 1], "rb");
    if (!f) return 91;
    fseek(f, 0, SEEK_END);
    sizes[i] = ftell(f);
    fseek(f, 0, SEEK_SET);
    args[i] = malloc(sizes[i] > 0 ? (size_t)sizes[i] : 1);
    if (sizes[i] > 0 && fread(args[i], 1, (size_t)sizes[i], f) != (size_t)sizes[i]) return 92;
    fclose(f);
  }
  int rc = kernel_packed(args);
  for (i = 0; i < n; ++i) {
    FILE* f = fopen(argv[i + 1], "wb");
    if (!f) return 93;
    fwrite(args[i], 1, (size_t)sizes[i], f);
    fclose(f);
  }
  return rc == 0 ? 0 : 100 + (rc & 0x7f);
}
)C";

inline bool have_aarch64_tools() {
  return have_program("aarch64-linux-gnu-gcc") && have_program("qemu-aarch64");
}

// The AArch64 harness and runtime, compiled once per process.
class Aarch64Toolchain {
 public:
  static const Aarch64Toolchain& get() {
    static const Aarch64Toolchain t;
    return t;
  }
  const std::string& dir() const { return dir_; }
  std::string link_inputs() const { return dir_ + "/harness.o " + dir_ + "/runtime.a"; }

 private:
  Aarch64Toolchain() {
    char pattern[] = "/tmp/tirc_a64_XXXXXX";
    if (!mkdtemp(pattern)) throw Error("mkdtemp failed");
    dir_ = pattern;
    std::ofstream(dir_ + "/harness.c") << kAarch64Harness;
    const std::string runtime = std::string(TIRC_SOURCE_DIR) + "/runtime";
    const std::string cc = "aarch64-linux-gnu-gcc -O1 -c ";
    sh(cc + dir_ + "/harness.c -o " + dir_ + "/harness.o");
    sh(cc + runtime + "/alloc.c -I" + runtime + " -o " + dir_ + "/alloc.o");
    sh(cc + runtime + "/thread_pool.c -I" + runtime + " -o " + dir_ + "/thread_pool.o");
    sh("aarch64-linux-gnu-ar rcs " + dir_ + "/runtime.a " + dir_ + "/alloc.o " + dir_ +
       "/thread_pool.o");
  }
  static void sh(const std::string& cmd) {
    if (std::system((cmd + " > /dev/null 2>&1").c_str()) != 0) throw Error("failed: " + cmd);
  }
  std::string dir_;
};

// Compiles `functions` (one of them with the symbol "kernel", whose lowered
// function is `lowered`; `module` holds the constants) for target and runs
// "kernel" on `args` (buffers updated in place). Returns its status.
inline int run_llvm(const std::vector<FunctionToCompile>& functions, const IRModule* module,
                    const PrimFunc& lowered, const LlvmTarget& target,
                    const std::vector<Argument>& args, int opt_level = 3) {
  LlvmOptions options;
  options.target = target;
  options.opt_level = opt_level;
  options.module = module;
  const std::string object = generate_llvm(functions, options, LlvmOutput::object);
  if (target.arch == LlvmArch::x86_64) {
    LoadedC lib(object, "cc", "", "kernel.o");
    PackedArgs packed(lowered, args);
    return lib.packed("kernel")(packed.pointers.data());
  }
  const Aarch64Toolchain& tools = Aarch64Toolchain::get();
  char pattern[] = "/tmp/tirc_a64run_XXXXXX";
  if (!mkdtemp(pattern)) throw Error("mkdtemp failed");
  const std::string dir = pattern;
  std::ofstream(dir + "/kernel.o", std::ios::binary) << object;
  const std::string exe = dir + "/prog";
  const std::string link = "aarch64-linux-gnu-gcc -o " + exe + " " + dir + "/kernel.o " +
                           tools.link_inputs() + " -lm -lpthread > " + dir + "/link.log 2>&1";
  if (std::system(link.c_str()) != 0) {
    std::stringstream log;
    log << std::ifstream(dir + "/link.log").rdbuf();
    throw Error("AArch64 link failed: " + link + "\n" + log.str());
  }
  PackedArgs packed(lowered, args);
  std::string cmd = "qemu-aarch64 -L /usr/aarch64-linux-gnu " + exe;
  for (size_t i = 0; i < lowered->params.size(); ++i) {
    const std::string file = dir + "/arg" + std::to_string(i);
    const Param& p = lowered->params[i];
    const size_t bytes = p.buffer ? static_cast<size_t>(args[i].array->num_bytes())
                                  : static_cast<size_t>(p.var->dtype.bytes());
    std::ofstream(file, std::ios::binary)
        .write(static_cast<const char*>(packed.pointers[i]), static_cast<std::streamsize>(bytes));
    cmd += " " + file;
  }
  const int status = std::system(cmd.c_str());
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1000;
  for (size_t i = 0; i < lowered->params.size(); ++i) {
    if (!lowered->params[i].buffer) continue;
    std::ifstream in(dir + "/arg" + std::to_string(i), std::ios::binary);
    in.read(reinterpret_cast<char*>(args[i].array->data()),
            static_cast<std::streamsize>(args[i].array->num_bytes()));
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  if (code >= 90 && code < 100)
    throw Error("the AArch64 harness failed with " + std::to_string(code));
  return code >= 100 ? code - 100 : code;
}

inline int run_llvm(const PrimFunc& lowered, const LlvmTarget& target,
                    const std::vector<Argument>& args, int opt_level = 3) {
  return run_llvm({{"kernel", lowered}}, nullptr, lowered, target, args, opt_level);
}

// A lowered model module's entry `entry` run on `args`: the entry is
// "kernel", every other function "k_<name>".
inline int run_llvm_module(const IRModule& lowered, const std::string& entry,
                           const LlvmTarget& target, const std::vector<Argument>& args) {
  std::vector<FunctionToCompile> functions;
  for (const auto& [name, f] : lowered.functions())
    functions.push_back({name == entry ? "kernel" : "k_" + name, f, name});
  return run_llvm(functions, &lowered, lowered.at(entry), target, args);
}

// The LLVM targets whose code runs here or under emulation: x86-64 (AVX-512
// and AVX2 CPUs, those the host has) and AArch64 when the cross tools exist.
inline std::vector<LlvmTarget> runnable_llvm_targets(bool with_aarch64 = true) {
  std::vector<LlvmTarget> out;
  for (const char* cpu : {"x86-64-v4", "x86-64-v3"}) {
    LlvmTarget t{LlvmArch::x86_64, cpu};
    if (llvm_target_runs_here(t)) out.push_back(t);
  }
  if (with_aarch64 && have_aarch64_tools()) out.push_back(parse_llvm_target("aarch64-linux-gnu"));
  return out;
}

// compare_with_interpreter (codegen_test_util.h) for `compiled` lowered,
// generated by the LLVM generator for `target` and run here or under qemu.
inline CodegenCheck llvm_compile_and_compare(const PrimFunc& reference, const PrimFunc& compiled,
                                             const LlvmTarget& target, uint64_t seed, bool exact) {
  try {
    const PrimFunc lowered = lower(compiled);
    return compare_with_interpreter(reference, lowered, seed, exact, [&](const auto& args) {
      return run_llvm(lowered, target, args);
    });
  } catch (const Error& e) {
    return {std::string("error: ") + e.what()};
  }
}

}  // namespace tirc::test
