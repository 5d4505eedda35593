// Runs code from the LLVM generator: x86-64 objects linked into a shared
// object and loaded here, AArch64 objects linked with a small C harness by
// the cross compiler and run under qemu-aarch64. Both compare with the
// interpreter like codegen_test_util.h does for the x86 generator.
#pragma once

#include <algorithm>
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

// Runs kernels from a manifest (argv[1]): each line is "<kernel> <n> <file>..."
// (an index into tirc_test_kernels, then one file per argument: a buffer's
// bytes, or a scalar's); the files are read, the kernel called, the buffers
// written back, and its status appended to argv[2], one line per call.
inline const char* kAarch64Harness = R"C(#include <stdio.h>
#include <stdlib.h>
typedef int (*kernel_fn)(void* const* args);
extern kernel_fn tirc_test_kernels[];
int main(int argc, char** argv) {
  FILE* manifest = argc == 3 ? fopen(argv[1], "r") : NULL;
  FILE* status = argc == 3 ? fopen(argv[2], "w") : NULL;
  int kernel, n, i;
  if (!manifest || !status) return 90;
  while (fscanf(manifest, "%d %d", &kernel, &n) == 2) {
    void* args[64];
    long sizes[64];
    char paths[64][512];
    if (n > 64) return 91;
    for (i = 0; i < n; ++i) {
      FILE* f;
      if (fscanf(manifest, "%511s", paths[i]) != 1 || !(f = fopen(paths[i], "rb"))) return 92;
      fseek(f, 0, SEEK_END);
      sizes[i] = ftell(f);
      fseek(f, 0, SEEK_SET);
      args[i] = malloc(sizes[i] > 0 ? (size_t)sizes[i] : 1);
      if (sizes[i] > 0 && fread(args[i], 1, (size_t)sizes[i], f) != (size_t)sizes[i]) return 93;
      fclose(f);
    }
    fprintf(status, "%d\n", tirc_test_kernels[kernel](args));
    for (i = 0; i < n; ++i) {
      FILE* f = fopen(paths[i], "wb");
      if (!f) return 94;
      fwrite(args[i], 1, (size_t)sizes[i], f);
      fclose(f);
      free(args[i]);
    }
  }
  fclose(status);
  return 0;
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

// One call of a compiled kernel: its symbol, its lowered function and the
// arguments (buffers are updated in place).
struct KernelCall {
  std::string symbol;
  PrimFunc lowered;
  std::vector<Argument> args;
};

// Runs the calls, in order, of kernels in an AArch64 `object` in one
// qemu-aarch64 process; returns their statuses.
inline std::vector<int> run_aarch64(const std::string& object,
                                    const std::vector<KernelCall>& calls) {
  const Aarch64Toolchain& tools = Aarch64Toolchain::get();
  char pattern[] = "/tmp/tirc_a64run_XXXXXX";
  if (!mkdtemp(pattern)) throw Error("mkdtemp failed");
  const std::string dir = pattern;
  std::ofstream(dir + "/kernel.o", std::ios::binary) << object;
  // The table of the called kernels' packed entries.
  std::vector<std::string> symbols;
  std::ofstream manifest(dir + "/manifest");
  for (size_t c = 0; c < calls.size(); ++c) {
    const KernelCall& call = calls[c];
    auto it = std::find(symbols.begin(), symbols.end(), call.symbol);
    manifest << (it - symbols.begin()) << " " << call.lowered->params.size();
    if (it == symbols.end()) symbols.push_back(call.symbol);
    PackedArgs packed(call.lowered, call.args);
    for (size_t i = 0; i < call.lowered->params.size(); ++i) {
      const std::string file = dir + "/c" + std::to_string(c) + "_" + std::to_string(i);
      const Param& p = call.lowered->params[i];
      const size_t bytes = p.buffer ? static_cast<size_t>(call.args[i].array->num_bytes())
                                    : static_cast<size_t>(p.var->dtype.bytes());
      std::ofstream(file, std::ios::binary)
          .write(static_cast<const char*>(packed.pointers[i]), static_cast<std::streamsize>(bytes));
      manifest << " " << file;
    }
    manifest << "\n";
  }
  manifest.close();
  std::ofstream table(dir + "/table.c");
  table << "typedef int (*kernel_fn)(void* const* args);\n";
  for (const std::string& s : symbols) table << "int " << s << "_packed(void* const* args);\n";
  table << "kernel_fn tirc_test_kernels[] = {";
  for (const std::string& s : symbols) table << s << "_packed, ";
  table << "0};\n";
  table.close();
  const std::string exe = dir + "/prog";
  const std::string link = "aarch64-linux-gnu-gcc -o " + exe + " " + dir + "/table.c " + dir +
                           "/kernel.o " + tools.link_inputs() + " -lm -lpthread > " + dir +
                           "/link.log 2>&1";
  if (std::system(link.c_str()) != 0) {
    std::stringstream log;
    log << std::ifstream(dir + "/link.log").rdbuf();
    throw Error("AArch64 link failed: " + link + "\n" + log.str());
  }
  const std::string run =
      "qemu-aarch64 -L /usr/aarch64-linux-gnu " + exe + " " + dir + "/manifest " + dir + "/status";
  const int status = std::system(run.c_str());
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw Error("the AArch64 harness failed (" + run + "): status " + std::to_string(status));
  std::vector<int> statuses;
  std::ifstream in(dir + "/status");
  for (int s; in >> s;) statuses.push_back(s);
  if (statuses.size() != calls.size()) throw Error("the AArch64 harness ran too few calls");
  for (size_t c = 0; c < calls.size(); ++c)
    for (size_t i = 0; i < calls[c].lowered->params.size(); ++i) {
      if (!calls[c].lowered->params[i].buffer) continue;
      std::ifstream arg(dir + "/c" + std::to_string(c) + "_" + std::to_string(i), std::ios::binary);
      arg.read(reinterpret_cast<char*>(calls[c].args[i].array->data()),
               static_cast<std::streamsize>(calls[c].args[i].array->num_bytes()));
    }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return statuses;
}

// Compiles `functions` for target and runs the calls: on x86-64 here (the
// object linked into a shared object), on AArch64 under qemu-aarch64, all in
// one process. `module` holds the constants AllocateConst binds.
inline std::vector<int> run_llvm_calls(const std::vector<FunctionToCompile>& functions,
                                       const IRModule* module, const LlvmTarget& target,
                                       const std::vector<KernelCall>& calls, int opt_level = 3) {
  LlvmOptions options;
  options.target = target;
  options.opt_level = opt_level;
  options.module = module;
  const std::string object = generate_llvm(functions, options, LlvmOutput::object);
  if (target.arch == LlvmArch::aarch64) return run_aarch64(object, calls);
  LoadedC lib(object, "cc", "", "kernel.o");
  std::vector<int> statuses;
  for (const KernelCall& call : calls) {
    PackedArgs packed(call.lowered, call.args);
    statuses.push_back(lib.packed(call.symbol)(packed.pointers.data()));
  }
  return statuses;
}

inline int run_llvm(const std::vector<FunctionToCompile>& functions, const IRModule* module,
                    const PrimFunc& lowered, const LlvmTarget& target,
                    const std::vector<Argument>& args, int opt_level = 3) {
  return run_llvm_calls(functions, module, target, {{"kernel", lowered, args}}, opt_level).at(0);
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
