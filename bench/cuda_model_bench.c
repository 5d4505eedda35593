// One ONNX model compiled by tirc for --target cuda, on an NVIDIA GPU: its
// latency and its output, for cuda_model_peer.py to set beside PyTorch's
// (cuDNN) and onnxruntime's on the same GPU.
//
// Built by bench/cuda_model.sh, which generates model_entry.h: the model's
// header, MODEL_ENTRY (its entry function, tirc's host-launcher signature with
// one input and one output, codegen/llvm/cuda.h), MODEL_INPUT_ELEMS and
// MODEL_OUTPUT_ELEMS (float32 elements). Needs the driver (-lcuda) only.
//
//   ./cuda_model_bench INPUT.bin OUTPUT.bin
//
// Reads the input (raw float32), runs the model once and writes its output
// (raw float32), then times it two ways: best of RUNS calls with CUDA events
// around each, enqueued back to back (the GPU's time for the kernels), and
// best of RUNS calls each followed by cuStreamSynchronize on the host's clock
// (the latency a caller sees, launches included). Exits 2 on a CUDA error.

#define _POSIX_C_SOURCE 199309L  // clock_gettime under -std=c11

#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CUDA_BENCH_NAME "cuda_model_bench"
#include "cuda_bench_util.h"
#include "model_entry.h"

enum { WARMUPS = 10, RUNS = 100 };

struct model_run {
  CUdeviceptr input, output;
  CUstream stream;
};

static void run_model(void *arg) {
  const struct model_run *m = arg;
  // A CUresult; the first call also loads the module and copies the weights.
  check_cu((CUresult)MODEL_ENTRY(m->input, m->output, m->stream), "the model's entry function");
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void read_exactly(const char *path, float *data, size_t count) {
  FILE *f = fopen(path, "rb");
  size_t got = f ? fread(data, sizeof(float), count, f) : 0;
  if (!f || got != count || fgetc(f) != EOF) {
    fprintf(stderr, "cuda_model_bench: %s: expected %zu float32 values\n", path, count);
    exit(2);
  }
  fclose(f);
}

static void write_all(const char *path, const float *data, size_t count) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, sizeof(float), count, f) != count || fclose(f) != 0) {
    fprintf(stderr, "cuda_model_bench: cannot write %s\n", path);
    exit(2);
  }
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s INPUT.bin OUTPUT.bin\n", argv[0]);
    return 2;
  }
  float *input = xmalloc(MODEL_INPUT_ELEMS * sizeof(float));
  float *output = xmalloc(MODEL_OUTPUT_ELEMS * sizeof(float));
  read_exactly(argv[1], input, MODEL_INPUT_ELEMS);

  CUcontext ctx;
  const CUdevice dev = cuda_bench_open(&ctx);
  cuda_bench_print_device(dev);
  struct model_run m;
  check_cu(cuStreamCreate(&m.stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  check_cu(cuMemAlloc(&m.input, MODEL_INPUT_ELEMS * sizeof(float)), "cuMemAlloc");
  check_cu(cuMemAlloc(&m.output, MODEL_OUTPUT_ELEMS * sizeof(float)), "cuMemAlloc");
  check_cu(cuMemcpyHtoDAsync(m.input, input, MODEL_INPUT_ELEMS * sizeof(float), m.stream), "cuMemcpyHtoDAsync");
  // Quiet NaN first: an element the model never writes shows up in the comparison.
  check_cu(cuMemsetD32Async(m.output, 0x7fc00000u, MODEL_OUTPUT_ELEMS, m.stream), "cuMemsetD32Async");

  const double first_start = now_ms();
  run_model(&m);
  check_cu(cuStreamSynchronize(m.stream), "cuStreamSynchronize");
  const double first_ms = now_ms() - first_start;
  check_cu(cuMemcpyDtoH(output, m.output, MODEL_OUTPUT_ELEMS * sizeof(float)), "cuMemcpyDtoH");
  write_all(argv[2], output, MODEL_OUTPUT_ELEMS);

  CUevent start[RUNS], stop[RUNS];
  for (int i = 0; i < RUNS; ++i) {
    check_cu(cuEventCreate(&start[i], CU_EVENT_DEFAULT), "cuEventCreate");
    check_cu(cuEventCreate(&stop[i], CU_EVENT_DEFAULT), "cuEventCreate");
  }
  const float gpu_ms = cuda_bench_best_ms(run_model, &m, m.stream, WARMUPS, RUNS, start, stop);
  double host_ms = -1.0;
  for (int i = 0; i < RUNS; ++i) {
    const double t0 = now_ms();
    run_model(&m);
    check_cu(cuStreamSynchronize(m.stream), "cuStreamSynchronize");
    const double t = now_ms() - t0;
    if (host_ms < 0.0 || t < host_ms) host_ms = t;
  }
  printf("tirc first_call_ms=%.3f gpu_ms=%.4f latency_ms=%.4f (best of %d; first call loads the module)\n",
         first_ms, gpu_ms, host_ms, RUNS);

  for (int i = 0; i < RUNS; ++i) {
    check_cu(cuEventDestroy(start[i]), "cuEventDestroy");
    check_cu(cuEventDestroy(stop[i]), "cuEventDestroy");
  }
  check_cu(cuMemFree(m.input), "cuMemFree");
  check_cu(cuMemFree(m.output), "cuMemFree");
  check_cu(cuStreamDestroy(m.stream), "cuStreamDestroy");
  check_cu(cuDevicePrimaryCtxRelease(dev), "cuDevicePrimaryCtxRelease");
  free(input);
  free(output);
  return 0;
}
