// Compiles emitted C (or links an emitted object) into a shared object with a
// real C compiler and loads it,
// so tests can call `<symbol>_packed` and compare with the interpreter.
#pragma once

#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "ir/error.h"
#include "ir/eval/interpreter.h"
#include "ir/eval/numeric.h"

namespace tirc::test {

inline bool have_program(const std::string& name) {
  return std::system(("command -v " + name + " > /dev/null 2>&1").c_str()) == 0;
}

// A shared object built from C source, loaded with RTLD_NODELETE: the tirc
// runtime compiled into it registers exit handlers, so it must stay mapped.
class LoadedC {
 public:
  using PackedFn = int (*)(void* const*);

  // `source` is written to `file_name` (C source, or an object's bytes
  // with a .o name) and linked into a shared object.
  LoadedC(const std::string& source, const std::string& compiler, const std::string& flags,
          const std::string& file_name = "kernel.c") {
    char pattern[] = "/tmp/tirc_cemit_XXXXXX";
    if (!mkdtemp(pattern)) throw Error("mkdtemp failed");
    dir_ = pattern;
    const std::string c = dir_ + "/" + file_name, so = dir_ + "/kernel.so", log = dir_ + "/cc.log";
    std::ofstream(c, std::ios::binary) << source;
    const std::string runtime = std::string(TIRC_SOURCE_DIR) + "/runtime";
    // tirc_parallel_for comes from the test executable (linked with the runtime
    // and exporting its symbols): one thread pool per process, as in a program
    // linking libtirc_runtime.a, rather than a private pool per loaded library.
    const std::string cmd = compiler + " " + flags + " -shared -fPIC -o " + so + " " + c + " -I" +
                            runtime + " -lm > " + log + " 2>&1";
    if (std::system(cmd.c_str()) != 0) {
      std::stringstream msg;
      msg << std::ifstream(log).rdbuf();
      throw Error("C compilation failed: " + cmd + "\n" + msg.str());
    }
    handle_ = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!handle_) throw Error(std::string("dlopen failed: ") + dlerror());
  }
  ~LoadedC() {
    if (handle_) dlclose(handle_);
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  LoadedC(const LoadedC&) = delete;
  LoadedC& operator=(const LoadedC&) = delete;

  PackedFn packed(const std::string& symbol) const {
    void* p = dlsym(handle_, (symbol + "_packed").c_str());
    if (!p) throw Error("no symbol " + symbol + "_packed");
    return reinterpret_cast<PackedFn>(p);
  }

 private:
  std::string dir_;
  void* handle_ = nullptr;
};

// Scalar argument storage for the packed ABI: args[i] points at the value in
// the parameter's C storage type.
struct PackedArgs {
  std::vector<void*> pointers;
  std::vector<std::unique_ptr<uint8_t[]>> scalars;

  PackedArgs(const PrimFunc& f, const std::vector<Argument>& args) {
    for (size_t i = 0; i < f->params.size(); ++i) {
      const Param& p = f->params[i];
      if (p.buffer) {
        pointers.push_back(args[i].array->data());
        continue;
      }
      const DataType t = p.var->dtype;
      auto bytes = std::make_unique<uint8_t[]>(8);
      if (t.is_float())
        numeric::store_float(t, bytes.get(), args[i].float_value);
      else
        numeric::store_int(t, bytes.get(), args[i].int_value);
      pointers.push_back(bytes.get());
      scalars.push_back(std::move(bytes));
    }
  }
};

}  // namespace tirc::test
