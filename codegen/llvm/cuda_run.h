// Runs CUDA code in this process (tirc run --target cuda): the host functions
// JIT-compiled by LLVM's ORC JIT, the CUDA driver (libcuda.so.1) loaded at
// run time, so tirc builds and runs everywhere and uses a GPU where one is.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "codegen/llvm/generator.h"
#include "ir/ndarray.h"

namespace tirc {

// Why CUDA code cannot run here ("" when it can): no driver library, the
// driver failing to start, or no device.
std::string cuda_unavailable();

// One function of a CUDA build, with device copies of its arguments, on the
// first GPU (its primary context).
class CudaRun {
 public:
  // Compiles `functions` (lowered with thread bindings) for options.target,
  // JIT-compiles the host side, and copies `args` (one array per parameter
  // of `symbol`'s function: the buffers) to the device. Throws tirc::Error
  // when there is no GPU (cuda_unavailable's reason) or a driver call fails.
  CudaRun(const std::vector<FunctionToCompile>& functions, const LlvmOptions& options,
          const std::string& symbol, const std::vector<NDArray*>& args);
  ~CudaRun();
  CudaRun(const CudaRun&) = delete;
  CudaRun& operator=(const CudaRun&) = delete;

  // One call, waited for; throws tirc::Error naming the CUresult it failed with.
  void call();
  // The device buffers back into the arrays given.
  void copy_back();
  std::string device_name() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace tirc
