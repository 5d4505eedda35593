// CudaRun: the driver API through dlopen, the host module through LLJIT.
#include "codegen/llvm/cuda_run.h"

#include <dlfcn.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>

#include "codegen/llvm/llvm_target.h"

namespace tirc {

namespace {

// The few driver API entry points tirc itself calls, with their C types
// (CUresult int, CUdevice int, CUdeviceptr unsigned long long, handles as
// pointers); the generated host code calls the rest by name.
struct Driver {
  using Result = int;
  Result (*cuInit)(unsigned) = nullptr;
  Result (*cuDeviceGetCount)(int*) = nullptr;
  Result (*cuDeviceGet)(int*, int) = nullptr;
  Result (*cuDeviceGetName)(char*, int, int) = nullptr;
  Result (*cuDevicePrimaryCtxRetain)(void**, int) = nullptr;
  Result (*cuCtxSetCurrent)(void*) = nullptr;
  Result (*cuCtxSynchronize)() = nullptr;
  Result (*cuMemAlloc_v2)(unsigned long long*, size_t) = nullptr;
  Result (*cuMemFree_v2)(unsigned long long) = nullptr;
  Result (*cuMemcpyHtoD_v2)(unsigned long long, const void*, size_t) = nullptr;
  Result (*cuMemcpyDtoH_v2)(void*, unsigned long long, size_t) = nullptr;
  Result (*cuGetErrorName)(Result, const char**) = nullptr;
  std::string unavailable;  // why not, when the library or a device is missing
  int device = 0;

  std::string error(Result r) const {
    const char* name = nullptr;
    if (cuGetErrorName) cuGetErrorName(r, &name);
    return std::string(name ? name : "CUresult") + " (" + std::to_string(r) + ")";
  }
};

template <class F>
bool load(void* lib, const char* name, F& f) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  return f != nullptr;
}

// Loaded and started once per process (the driver itself is process-wide).
const Driver& driver() {
  static const Driver d = [] {
    Driver d;
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!lib) {
      d.unavailable = "no CUDA driver on this machine (libcuda.so.1 does not load)";
      return d;
    }
    const bool all =
        load(lib, "cuInit", d.cuInit) && load(lib, "cuDeviceGetCount", d.cuDeviceGetCount) &&
        load(lib, "cuDeviceGet", d.cuDeviceGet) &&
        load(lib, "cuDeviceGetName", d.cuDeviceGetName) &&
        load(lib, "cuDevicePrimaryCtxRetain", d.cuDevicePrimaryCtxRetain) &&
        load(lib, "cuCtxSetCurrent", d.cuCtxSetCurrent) &&
        load(lib, "cuCtxSynchronize", d.cuCtxSynchronize) &&
        load(lib, "cuMemAlloc_v2", d.cuMemAlloc_v2) && load(lib, "cuMemFree_v2", d.cuMemFree_v2) &&
        load(lib, "cuMemcpyHtoD_v2", d.cuMemcpyHtoD_v2) &&
        load(lib, "cuMemcpyDtoH_v2", d.cuMemcpyDtoH_v2) &&
        load(lib, "cuGetErrorName", d.cuGetErrorName);
    if (!all) {
      d.unavailable = "the CUDA driver library lacks a driver API function tirc needs";
      return d;
    }
    int count = 0;
    if (Driver::Result r = d.cuInit(0); r != 0) {
      d.unavailable = "the CUDA driver does not start: cuInit returned " + d.error(r);
      return d;
    }
    if (Driver::Result r = d.cuDeviceGetCount(&count); r != 0 || count == 0) {
      d.unavailable = "no CUDA device on this machine";
      return d;
    }
    d.cuDeviceGet(&d.device, 0);
    return d;
  }();
  return d;
}

void check(Driver::Result r, const std::string& what) {
  if (r != 0) throw Error("CUDA: " + what + " failed: " + driver().error(r));
}

}  // namespace

std::string cuda_unavailable() {
  return driver().unavailable;
}

struct CudaRun::State {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  int (*packed)(void* const*) = nullptr;
  std::vector<NDArray*> arrays;
  std::vector<unsigned long long> device;  // one per argument
  std::vector<void*> args;                 // packed: each device pointer's address, the stream
};

CudaRun::CudaRun(const std::vector<FunctionToCompile>& functions, const LlvmOptions& options,
                 const std::string& symbol, const std::vector<NDArray*>& args)
    : state_(std::make_unique<State>()) {
  const Driver& d = driver();
  if (!d.unavailable.empty()) throw Error("cannot run CUDA code: " + d.unavailable);
  void* context = nullptr;
  check(d.cuDevicePrimaryCtxRetain(&context, d.device), "cuDevicePrimaryCtxRetain");
  check(d.cuCtxSetCurrent(context), "cuCtxSetCurrent");

  // The driver compiles the PTX for the GPU at hand (and caches it): no ptxas run.
  LlvmOptions ptx_only = options;
  ptx_only.cuda_cubin = false;
  CudaModules m = build_cuda(functions, ptx_only, LlvmOutput::object, nullptr);
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit) throw Error("CUDA: the JIT does not start: " + llvm::toString(jit.takeError()));
  state_->jit = std::move(*jit);
  // The host code's driver calls resolve to the library loaded above.
  auto generator = llvm::orc::DynamicLibrarySearchGenerator::Load(
      "libcuda.so.1", state_->jit->getDataLayout().getGlobalPrefix());
  if (!generator) throw Error("CUDA: " + llvm::toString(generator.takeError()));
  state_->jit->getMainJITDylib().addGenerator(std::move(*generator));
  m.host->setDataLayout(state_->jit->getDataLayout());
  if (llvm::Error e = state_->jit->addIRModule(
          llvm::orc::ThreadSafeModule(std::move(m.host), std::move(m.context))))
    throw Error("CUDA: " + llvm::toString(std::move(e)));
  auto address = state_->jit->lookup(symbol + "_packed");
  if (!address) throw Error("CUDA: " + llvm::toString(address.takeError()));
  state_->packed = address->toPtr<int (*)(void* const*)>();

  state_->arrays = args;
  state_->device.assign(args.size(), 0);
  for (size_t i = 0; i < args.size(); ++i) {
    const size_t bytes = std::max<size_t>(args[i]->num_bytes(), 1);
    check(d.cuMemAlloc_v2(&state_->device[i], bytes), "cuMemAlloc");
    check(d.cuMemcpyHtoD_v2(state_->device[i], args[i]->data(), args[i]->num_bytes()),
          "cuMemcpyHtoD");
    state_->args.push_back(&state_->device[i]);
  }
  state_->args.push_back(nullptr);  // the default stream
}

CudaRun::~CudaRun() {
  for (unsigned long long p : state_->device)
    if (p) driver().cuMemFree_v2(p);
}

void CudaRun::call() {
  check(state_->packed(state_->args.data()), "the CUDA function");
  check(driver().cuCtxSynchronize(), "cuCtxSynchronize after the kernels");
}

void CudaRun::copy_back() {
  for (size_t i = 0; i < state_->arrays.size(); ++i)
    check(driver().cuMemcpyDtoH_v2(state_->arrays[i]->data(), state_->device[i],
                                   state_->arrays[i]->num_bytes()),
          "cuMemcpyDtoH");
}

std::string CudaRun::device_name() const {
  char name[256] = {};
  driver().cuDeviceGetName(name, sizeof name, driver().device);
  return name;
}

}  // namespace tirc
