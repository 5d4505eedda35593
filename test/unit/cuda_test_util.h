// CUDA objects under test: every kernel's PTX checked by ptxas (sm_80 and
// sm_90), the host functions linked with a harness (cuda_harness.c) against
// the toolkit's libcuda stub, and run on a GPU where there is one. A bundle's
// program compares on the device with the interpreter's results it was given,
// so it can also be carried to a machine with a GPU and run there: set
// TIRC_CUDA_BUNDLE=DIR to keep it (DIR/<label>/run.sh runs it).
#pragma once

#include <dlfcn.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "c_compile_util.h"
#include "codegen/llvm/generator.h"
#include "ir/function.h"

namespace tirc::test {

// Why the CUDA checks cannot run here ("" when the toolkit is there).
inline std::string cuda_toolkit_missing() {
#ifndef TIRC_CUDA_ROOT
  return "the CUDA toolkit was not found when tirc was configured (CMake's FindCUDAToolkit)";
#else
  for (const char* f : {"/bin/ptxas", "/include/cuda.h", "/lib64/stubs/libcuda.so"})
    if (!std::filesystem::exists(std::string(TIRC_CUDA_ROOT) + f))
      return std::string("the CUDA toolkit at ") + TIRC_CUDA_ROOT + " has no " + f;
  return "";
#endif
}

#ifdef TIRC_CUDA_ROOT
inline std::string cuda_root() {
  return TIRC_CUDA_ROOT;
}
#else
inline std::string cuda_root() {
  return "/usr/local/cuda";
}
#endif

inline std::string shell_output(const std::string& cmd, int* status) {
  std::string out;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) throw Error("cannot run " + cmd);
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int rc = pclose(p);
  *status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  return out;
}

// "" when ptxas accepts the PTX for `sm`, else its messages.
inline std::string ptxas_check(const std::string& ptx, const std::string& sm,
                               const std::string& dir) {
  const std::string file = dir + "/check_" + sm + ".ptx";
  std::ofstream(file) << ptx;
  int status = 0;
  const std::string out = shell_output(
      cuda_root() + "/bin/ptxas -arch=" + sm + " " + file + " -o " + dir + "/check.cubin", &status);
  return status == 0 ? "" : "ptxas -arch=" + sm + ": " + out;
}

class CudaBundle {
 public:
  explicit CudaBundle(const std::string& label) {
    if (const char* keep = std::getenv("TIRC_CUDA_BUNDLE")) {
      dir_ = std::string(keep) + "/" + label;
      std::filesystem::remove_all(dir_);
      std::filesystem::create_directories(dir_);
      keep_ = true;
    } else {
      char pattern[] = "/tmp/tirc_cuda_XXXXXX";
      if (!mkdtemp(pattern)) throw Error("mkdtemp failed");
      dir_ = pattern;
    }
  }
  ~CudaBundle() {
    std::error_code ec;
    if (!keep_) std::filesystem::remove_all(dir_, ec);
  }
  CudaBundle(const CudaBundle&) = delete;
  CudaBundle& operator=(const CudaBundle&) = delete;

  const std::string& dir() const { return dir_; }

  // Compiles `functions` (lowered with thread bindings; FunctionToCompile::name
  // for T.call_kernel) into one object, their symbols prefixed with the
  // object's number; checks its PTX with ptxas for sm_80 and sm_90. Returns ""
  // (and the object's number in *object) or why it could not be made.
  std::string add_object(const std::vector<FunctionToCompile>& functions, const IRModule* module,
                         size_t* object) {
    const std::string prefix = "o" + std::to_string(objects_.size()) + "_";
    std::vector<FunctionToCompile> renamed = functions;
    for (FunctionToCompile& f : renamed) f.symbol = prefix + f.symbol;
    LlvmOptions options;
    options.module = module;
    try {
      for (const char* sm : {"sm_80", "sm_90"}) {
        options.target = parse_llvm_target("cuda", sm);
        const std::string ptx = generate_llvm(renamed, options, LlvmOutput::assembly);
        if (std::string why = ptxas_check(ptx, sm, dir_); !why.empty()) return why;
      }
      options.target = parse_llvm_target("cuda", "sm_80");
      std::ofstream(dir_ + "/" + prefix + "kernels.o", std::ios::binary)
          << generate_llvm(renamed, options, LlvmOutput::object);
    } catch (const Error& e) {
      return std::string("error: ") + e.what();
    }
    *object = objects_.size();
    objects_.push_back({functions, renamed});
    return "";
  }

  // A call of the function `called` (its FunctionToCompile::name, else its
  // symbol as given) of an object with `args` (every parameter, in order):
  // the buffers it writes must equal `expected` (same order; a
  // default-constructed NDArray: not compared) within `tolerance` (relative,
  // with 1e-5 absolute; 0: exactly).
  std::string add_case(const std::string& name, size_t object, const std::string& called,
                       const std::vector<NDArray>& args, const std::vector<NDArray>& expected,
                       double tolerance) {
    const size_t index = cases_.size();
    const std::string prefix = "c" + std::to_string(index) + "_";
    const FunctionToCompile* entry = nullptr;
    const auto& [given, renamed] = objects_.at(object);
    for (size_t i = 0; i < given.size(); ++i)
      if (given[i].name == called || (given[i].name.empty() && given[i].symbol == called))
        entry = &renamed[i];
    if (!entry) return "no function named " + called;
    const PrimFunc& f = entry->lowered;
    if (args.size() != f->params.size() || expected.size() != args.size())
      return "wrong number of arguments";
    std::ostringstream line, wrapper;
    line << index << " " << name << " " << tolerance << " " << args.size();
    wrapper << "int " << entry->symbol << "(";
    std::string call = entry->symbol + "(";
    for (size_t i = 0; i < args.size(); ++i) {
      const Param& p = f->params[i];
      const DataType t = p.buffer ? p.buffer->dtype : p.var->dtype;
      const std::string in = dir_ + "/" + prefix + "a" + std::to_string(i);
      const std::string want = dir_ + "/" + prefix + "e" + std::to_string(i);
      std::ofstream(in, std::ios::binary)
          .write(reinterpret_cast<const char*>(args[i].data()),
                 static_cast<std::streamsize>(args[i].num_bytes()));
      const bool compared = p.buffer && expected[i].num_bytes() > 0;
      if (compared)
        std::ofstream(want, std::ios::binary)
            .write(reinterpret_cast<const char*>(expected[i].data()),
                   static_cast<std::streamsize>(expected[i].num_bytes()));
      const char code = t.code() == DataType::Code::BFloat ? 'g'
                        : t.is_float() && t.bits() == 32   ? 'f'
                        : t.is_float() && t.bits() == 64   ? 'd'
                        : t.is_float() && t.bits() == 16   ? 'h'
                                                           : 'x';
      line << " " << (p.buffer ? 'b' : 's') << code << " " << in << " " << (compared ? want : "-");
      const std::string c_type = p.buffer ? "CUdeviceptr" : scalar_c_type(t);
      wrapper << (i ? ", " : "") << c_type;
      call += (i ? ", " : "") + ("*(" + c_type + "*)a[" + std::to_string(i) + "]");
    }
    wrapper << (args.empty() ? "" : ", ") << "CUstream);\n";
    wrapper << "static int call_" << index << "(void* const* a, CUstream s) { return " << call
            << (args.empty() ? "" : ", ") << "s); }\n";
    manifest_ += line.str() + "\n";
    table_ += wrapper.str();
    cases_.push_back(name);
    return "";
  }

  // One object with one call (add_object, then add_case).
  std::string add(const std::string& name, const std::vector<FunctionToCompile>& functions,
                  const IRModule* module, const std::string& called,
                  const std::vector<NDArray>& args, const std::vector<NDArray>& expected,
                  double tolerance) {
    size_t object = 0;
    if (std::string why = add_object(functions, module, &object); !why.empty()) return why;
    return add_case(name, object, called, args, expected, tolerance);
  }

  // Links the harness, the table of calls and every case's object against
  // the driver API (the stub library here); writes run.sh. "" or the log.
  std::string link() {
    std::ofstream(dir_ + "/manifest") << manifest_;
    std::ofstream table(dir_ + "/table.c");
    table << "#include <stdint.h>\n#include <cuda.h>\n"
          << table_ << "typedef int (*call_fn)(void* const*, CUstream);\n";
    table << "call_fn tirc_test_calls[] = {";
    for (size_t i = 0; i < cases_.size(); ++i) table << "call_" << i << ", ";
    table << "0};\n";
    table.close();
    std::string objects;
    for (size_t i = 0; i < objects_.size(); ++i)
      objects += " " + dir_ + "/o" + std::to_string(i) + "_kernels.o";
    int status = 0;
    const std::string out =
        shell_output("cc -O1 -o " + dir_ + "/prog " + std::string(TIRC_SOURCE_DIR) +
                         "/test/unit/cuda_harness.c " + dir_ + "/table.c" + objects + " -I" +
                         cuda_root() + "/include -L" + cuda_root() + "/lib64/stubs -lcuda -lm",
                     &status);
    // Relative paths: the bundle runs wherever it is copied.
    std::string relative = manifest_;
    for (size_t at; (at = relative.find(dir_ + "/")) != std::string::npos;)
      relative.erase(at, dir_.size() + 1);
    std::ofstream(dir_ + "/manifest.rel") << relative;
    std::ofstream(dir_ + "/run.sh")
        << "#!/bin/sh\ncd \"$(dirname \"$0\")\" && ./prog manifest.rel\n";
    return status == 0 ? "" : out;
  }

  struct RunResult {
    std::string not_run;                        // why the program did not run here
    std::string device;                         // the GPU's name
    std::map<std::string, std::string> result;  // per case: "" (equal) or why not
  };

  // Runs the program when this machine has the CUDA driver and a GPU.
  RunResult run() const {
    RunResult r;
    void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!driver) {
      r.not_run = "no CUDA driver here (libcuda.so.1 does not load), so no GPU";
      return r;
    }
    dlclose(driver);
    int status = 0;
    const std::string out = shell_output(dir_ + "/prog " + dir_ + "/manifest", &status);
    if (status == 77) {
      r.not_run = out;
      return r;
    }
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("device ", 0) == 0) r.device = line.substr(7);
      if (line.rfind("ok ", 0) == 0) r.result[line.substr(3)] = "";
      if (line.rfind("FAIL ", 0) == 0) {
        const size_t colon = line.find(": ");
        r.result[line.substr(5, colon - 5)] = line.substr(colon + 2);
      }
    }
    for (const std::string& c : cases_)
      if (!r.result.count(c))
        r.result[c] = "did not run (harness status " + std::to_string(status) + "): " + out;
    return r;
  }

  const std::vector<std::string>& cases() const { return cases_; }

 private:
  static std::string scalar_c_type(DataType t) {
    if (t.is_bool()) return "uint8_t";
    if (t.code() == DataType::Code::BFloat || (t.is_float() && t.bits() == 16)) return "uint16_t";
    if (t.is_float()) return t.bits() == 64 ? "double" : "float";
    return std::string(t.is_uint() ? "uint" : "int") + std::to_string(t.bits()) + "_t";
  }

  std::string dir_;
  bool keep_ = false;
  std::string manifest_, table_;
  std::vector<std::string> cases_;
  // Per object: the functions as given, and as compiled (symbols prefixed).
  std::vector<std::pair<std::vector<FunctionToCompile>, std::vector<FunctionToCompile>>> objects_;
};

}  // namespace tirc::test
