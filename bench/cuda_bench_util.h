// What the GPU benchmarks (cuda_matmul_bench.c, cuda_model_bench.c) share:
// driver calls checked by name, the first GPU's primary context, its
// description, and best-of-N timing with CUDA events. Header-only (static
// functions), C11. Define CUDA_BENCH_NAME, the program's name for messages,
// before including it.
#pragma once

#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef CUDA_BENCH_NAME
#error "define CUDA_BENCH_NAME before including cuda_bench_util.h"
#endif

static void die_cu(CUresult r, const char *what) {
  // The error strings come from the driver itself, which may be the toolkit's
  // stub library (a machine without a GPU): it answers no question, not even this one.
  const char *name = NULL, *text = NULL;
  if (cuGetErrorName(r, &name) != CUDA_SUCCESS) name = NULL;
  if (cuGetErrorString(r, &text) != CUDA_SUCCESS) text = NULL;
  fprintf(stderr, CUDA_BENCH_NAME ": %s failed: CUresult %d%s%s%s%s\n", what, (int)r, name ? " " : "",
          name ? name : "", text ? ": " : "", text ? text : "");
  exit(2);
}

static void check_cu(CUresult r, const char *what) {
  if (r != CUDA_SUCCESS) die_cu(r, what);
}

static void *xmalloc(size_t bytes) {
  void *p = malloc(bytes);
  if (!p) {
    fprintf(stderr, CUDA_BENCH_NAME ": out of host memory (%zu bytes)\n", bytes);
    exit(2);
  }
  return p;
}

// The first GPU, its primary context current (tirc's functions load their
// module into the calling thread's current context; the runtime API and the
// libraries on it use the primary one, so both share it). Exits with 2 and
// says why when there is no GPU or driver.
static CUdevice cuda_bench_open(CUcontext *ctx) {
  CUresult r = cuInit(0);
  if (r != CUDA_SUCCESS) {
    fprintf(stderr, CUDA_BENCH_NAME ": no usable NVIDIA GPU or driver here (cuInit)\n");
    die_cu(r, "cuInit");
  }
  int devices = 0;
  check_cu(cuDeviceGetCount(&devices), "cuDeviceGetCount");
  if (devices == 0) {
    fprintf(stderr, CUDA_BENCH_NAME ": the driver sees no NVIDIA GPU\n");
    exit(2);
  }
  CUdevice dev;
  check_cu(cuDeviceGet(&dev, 0), "cuDeviceGet");
  check_cu(cuDevicePrimaryCtxRetain(ctx, dev), "cuDevicePrimaryCtxRetain");
  check_cu(cuCtxSetCurrent(*ctx), "cuCtxSetCurrent");
  return dev;
}

// "# device: NAME (compute capability X.Y, N SMs), driver API A.B" and a newline.
static void cuda_bench_print_device(CUdevice dev) {
  char name[256];
  int driver = 0, major = 0, minor = 0, sms = 0;
  check_cu(cuDeviceGetName(name, sizeof name, dev), "cuDeviceGetName");
  check_cu(cuDriverGetVersion(&driver), "cuDriverGetVersion");
  check_cu(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev), "cuDeviceGetAttribute");
  check_cu(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev), "cuDeviceGetAttribute");
  check_cu(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev), "cuDeviceGetAttribute");
  printf("# device: %s (compute capability %d.%d, %d SMs), driver API %d.%d\n", name, major, minor, sms,
         driver / 1000, driver % 1000 / 10);
}

// Best time of `runs` calls of run(arg) in milliseconds, after `warmups`.
// All runs are enqueued back to back on `stream` with an event pair around
// each (start and stop: `runs` events each), and the host waits once at the
// end: the GPU never idles between runs waiting for the host, so each pair
// measures the kernels, not the host's launch latency.
static float cuda_bench_best_ms(void (*run)(void *), void *arg, CUstream stream, int warmups, int runs,
                                CUevent *start, CUevent *stop) {
  for (int i = 0; i < warmups; ++i) run(arg);
  for (int i = 0; i < runs; ++i) {
    check_cu(cuEventRecord(start[i], stream), "cuEventRecord");
    run(arg);
    check_cu(cuEventRecord(stop[i], stream), "cuEventRecord");
  }
  check_cu(cuStreamSynchronize(stream), "cuStreamSynchronize");
  float best = -1.0f;
  for (int i = 0; i < runs; ++i) {
    float ms;
    check_cu(cuEventElapsedTime(&ms, start[i], stop[i]), "cuEventElapsedTime");
    if (best < 0.0f || ms < best) best = ms;
  }
  return best;
}
