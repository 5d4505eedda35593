// fp32 and fp16 matmul on an NVIDIA GPU: tirc's default GPU schedule against
// cuBLAS (cublasSgemm; cublasGemmEx with fp16 inputs and fp32 accumulation,
// tensor cores, for the fp16 entries, which tirc runs on tensor cores too).
//
// Built by bench/cuda_matmul.sh, which compiles one tirc object per size and
// type and generates mm_sizes.h, the table MM_SIZES(X) of X(M, N, K, HALF,
// function) this program runs; each function computes C[M,N] = A[M,K] *
// B[K,N] (row-major, A and B fp16 where HALF, C fp32)
// and has tirc's host-launcher signature (codegen/llvm/cuda.h). The result
// must not depend on LLVM or tirc, only on the driver (-lcuda) and cuBLAS.
//
// For each size: one run of each checked element for element (tirc against
// cuBLAS, both against a sample computed on the host), then best of RUNS timed
// runs after WARMUPS, timed with CUDA events on one stream. Prints one line per
// size; exits 1 when a result differs, 2 on a CUDA or cuBLAS error (no GPU or
// no driver included).

#include <cublas_v2.h>
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CUDA_BENCH_NAME "cuda_matmul_bench"
#include "cuda_bench_util.h"
#include "mm_sizes.h"

enum { WARMUPS = 3, RUNS = 20, SAMPLES = 256 };

typedef int (*tirc_matmul_fn)(CUdeviceptr a, CUdeviceptr b, CUdeviceptr c, CUstream stream);

struct size_entry {
  int m, n, k;
  int half;  // A and B in fp16
  tirc_matmul_fn fn;
  const char *name;
};

#define SIZE_ENTRY(M, N, K, HALF, FN) {M, N, K, HALF, FN, #FN},
static const struct size_entry sizes[] = {MM_SIZES(SIZE_ENTRY)};
#undef SIZE_ENTRY

// What one timed or checked run needs, for either implementation.
struct problem {
  const struct size_entry *size;
  CUdeviceptr a, b, c_tirc, c_cublas;
  CUstream stream;
  cublasHandle_t cublas;
};

enum impl { IMPL_TIRC, IMPL_CUBLAS };

static void check_cublas(cublasStatus_t s, const char *what) {
  if (s == CUBLAS_STATUS_SUCCESS) return;
  fprintf(stderr, "cuda_matmul_bench: %s failed: %s\n", what, cublasGetStatusString(s));
  exit(2);
}

// A fixed generator, so every run and every machine sees the same matrices.
static uint32_t next_random(uint32_t *state) {
  *state = *state * 1664525u + 1013904223u;
  return *state >> 8;
}

// Integers in [-2, 2]: every product and partial sum (|sum| <= 4 K <= 2^24 for
// K <= 4M) is exact in fp32, so any summation order gives the same bits and
// the results can be compared for equality, not within a tolerance.
static void fill_small_integers(float *x, size_t count, uint32_t seed) {
  for (size_t i = 0; i < count; ++i) x[i] = (float)((int)(next_random(&seed) % 5u) - 2);
}

// The fp16 bits of a small integer (|v| <= 2048, exact in fp16).
static uint16_t half_of_small_integer(float v) {
  if (v == 0.0f) return 0;
  const uint16_t sign = v < 0 ? 0x8000u : 0;
  unsigned a = (unsigned)(v < 0 ? -v : v), e = 0;
  while ((a >> (e + 1)) != 0) ++e;
  return (uint16_t)(sign | (e + 15) << 10 | ((a - (1u << e)) << (10 - e)));
}

// The bytes of x[0..count) as the device holds them: fp32, or fp16 where half.
static void *device_copy(const float *x, size_t count, int half) {
  if (!half) return (void *)x;
  uint16_t *h = xmalloc(count * sizeof(uint16_t));
  for (size_t i = 0; i < count; ++i) h[i] = half_of_small_integer(x[i]);
  return h;
}

static void run_once(enum impl impl, const struct problem *p) {
  const struct size_entry *s = p->size;
  if (impl == IMPL_TIRC) {
    // Returns a CUresult; the first call also loads the PTX into the context.
    check_cu((CUresult)s->fn(p->a, p->b, p->c_tirc, p->stream), s->name);
    return;
  }
  // cuBLAS is column-major: row-major C[M,N] is column-major C^T[N,M], and
  // C^T = B^T A^T, where row-major B[K,N] and A[M,K] read column-major are B^T
  // (N x K, leading dimension N) and A^T (K x M, leading dimension K).
  const float one = 1.0f, zero = 0.0f;
  if (s->half) {
    check_cublas(cublasGemmEx(p->cublas, CUBLAS_OP_N, CUBLAS_OP_N, s->n, s->m, s->k, &one,
                              (const void *)(uintptr_t)p->b, CUDA_R_16F, s->n, (const void *)(uintptr_t)p->a,
                              CUDA_R_16F, s->k, &zero, (void *)(uintptr_t)p->c_cublas, CUDA_R_32F, s->n,
                              CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                 "cublasGemmEx");
    return;
  }
  check_cublas(cublasSgemm(p->cublas, CUBLAS_OP_N, CUBLAS_OP_N, s->n, s->m, s->k, &one,
                           (const float *)(uintptr_t)p->b, s->n, (const float *)(uintptr_t)p->a, s->k,
                           &zero, (float *)(uintptr_t)p->c_cublas, s->n),
               "cublasSgemm");
}

// One implementation's runs, for cuda_bench_best_ms.
struct timed_run {
  enum impl impl;
  const struct problem *p;
};

static void run_timed(void *arg) {
  const struct timed_run *t = arg;
  run_once(t->impl, t->p);
}

static float best_ms(enum impl impl, const struct problem *p, CUevent start[RUNS], CUevent stop[RUNS]) {
  struct timed_run t = {impl, p};
  return cuda_bench_best_ms(run_timed, &t, p->stream, WARMUPS, RUNS, start, stop);
}

// Element-for-element comparison of tirc's C with cuBLAS's, and of both with
// the exact value at SAMPLES positions computed here (corners included), so
// that the two cannot agree on a wrong answer. Returns the number of errors.
static long check_results(const struct size_entry *s, const float *a, const float *b, const float *c_tirc,
                          const float *c_cublas) {
  const size_t mn = (size_t)s->m * s->n;
  long errors = 0;
  for (size_t i = 0; i < mn; ++i) {
    if (c_tirc[i] == c_cublas[i]) continue;  // NaN (unwritten, see main) never compares equal
    if (errors < 5)
      fprintf(stderr, "%s: C[%zu, %zu]: tirc %g, cuBLAS %g\n", s->name, i / s->n, i % s->n, (double)c_tirc[i],
              (double)c_cublas[i]);
    ++errors;
  }
  uint32_t seed = 12345;
  for (int t = 0; t < SAMPLES; ++t) {
    size_t i = t == 0 ? 0 : t == 1 ? mn - 1 : next_random(&seed) % mn;
    size_t row = i / s->n, col = i % s->n;
    long exact = 0;
    for (int k = 0; k < s->k; ++k) exact += (long)a[row * s->k + k] * (long)b[(size_t)k * s->n + col];
    if (c_tirc[i] == (float)exact && c_cublas[i] == (float)exact) continue;
    if (errors < 10)
      fprintf(stderr, "%s: C[%zu, %zu]: tirc %g, cuBLAS %g, exact %ld\n", s->name, row, col, (double)c_tirc[i],
              (double)c_cublas[i], exact);
    ++errors;
  }
  return errors;
}

// Checks and times one size; returns its number of wrong elements.
static long bench_size(const struct size_entry *s, CUstream stream, cublasHandle_t cublas, CUevent start[RUNS],
                       CUevent stop[RUNS]) {
  const size_t a_count = (size_t)s->m * s->k, b_count = (size_t)s->k * s->n, c_count = (size_t)s->m * s->n;
  float *a = xmalloc(a_count * sizeof(float));
  float *b = xmalloc(b_count * sizeof(float));
  float *c_tirc = xmalloc(c_count * sizeof(float));
  float *c_cublas = xmalloc(c_count * sizeof(float));
  fill_small_integers(a, a_count, 1u + (uint32_t)s->m);
  fill_small_integers(b, b_count, 2u + (uint32_t)s->n);

  struct problem p = {.size = s, .stream = stream, .cublas = cublas};
  const size_t in_bytes = s->half ? sizeof(uint16_t) : sizeof(float);
  void *a_device = device_copy(a, a_count, s->half), *b_device = device_copy(b, b_count, s->half);
  check_cu(cuMemAlloc(&p.a, a_count * in_bytes), "cuMemAlloc");
  check_cu(cuMemAlloc(&p.b, b_count * in_bytes), "cuMemAlloc");
  check_cu(cuMemAlloc(&p.c_tirc, c_count * sizeof(float)), "cuMemAlloc");
  check_cu(cuMemAlloc(&p.c_cublas, c_count * sizeof(float)), "cuMemAlloc");
  // Copies and sets go on the benchmark's stream too: being non-blocking, it
  // would not wait for the legacy default stream's.
  check_cu(cuMemcpyHtoDAsync(p.a, a_device, a_count * in_bytes, stream), "cuMemcpyHtoDAsync");
  check_cu(cuMemcpyHtoDAsync(p.b, b_device, b_count * in_bytes, stream), "cuMemcpyHtoDAsync");
  // Quiet NaN everywhere first: an element a kernel never writes shows up as a mismatch.
  check_cu(cuMemsetD32Async(p.c_tirc, 0x7fc00000u, c_count, stream), "cuMemsetD32Async");
  check_cu(cuMemsetD32Async(p.c_cublas, 0x7fc00000u, c_count, stream), "cuMemsetD32Async");

  run_once(IMPL_TIRC, &p);
  run_once(IMPL_CUBLAS, &p);
  check_cu(cuMemcpyDtoHAsync(c_tirc, p.c_tirc, c_count * sizeof(float), stream), "cuMemcpyDtoHAsync");
  check_cu(cuMemcpyDtoHAsync(c_cublas, p.c_cublas, c_count * sizeof(float), stream), "cuMemcpyDtoHAsync");
  check_cu(cuStreamSynchronize(stream), "cuStreamSynchronize");
  long errors = check_results(s, a, b, c_tirc, c_cublas);

  float tirc_ms = best_ms(IMPL_TIRC, &p, start, stop);
  float cublas_ms = best_ms(IMPL_CUBLAS, &p, start, stop);
  double flop = 2.0 * s->m * s->n * s->k;
  double tirc_gflops = flop / (tirc_ms * 1e6), cublas_gflops = flop / (cublas_ms * 1e6);
  printf("%5s %6d %6d %6d %12.1f %14.1f %12.3f%s\n", s->half ? "fp16" : "fp32", s->m, s->n, s->k,
         tirc_gflops, cublas_gflops,
         tirc_gflops / cublas_gflops, errors ? "  WRONG" : "");
  fflush(stdout);

  check_cu(cuMemFree(p.a), "cuMemFree");
  check_cu(cuMemFree(p.b), "cuMemFree");
  check_cu(cuMemFree(p.c_tirc), "cuMemFree");
  check_cu(cuMemFree(p.c_cublas), "cuMemFree");
  if (s->half) {
    free(a_device);
    free(b_device);
  }
  free(a);
  free(b);
  free(c_tirc);
  free(c_cublas);
  return errors;
}

int main(void) {
  CUcontext ctx;
  const CUdevice dev = cuda_bench_open(&ctx);
  int cublas_version = 0;

  cublasHandle_t cublas;
  check_cublas(cublasCreate(&cublas), "cublasCreate");
  check_cublas(cublasGetVersion(cublas, &cublas_version), "cublasGetVersion");
  // Plain fp32 FMA (no TF32 tensor cores), the arithmetic tirc's kernels do;
  // this is the default, set anyway so the comparison does not rest on it.
  check_cublas(cublasSetMathMode(cublas, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");

  printf("# C[M,N] = A[M,K] * B[K,N], C fp32: tirc (default GPU schedule) vs cuBLAS: fp32 cublasSgemm\n"
         "# (CUBLAS_DEFAULT_MATH), fp16 A and B cublasGemmEx (CUBLAS_COMPUTE_32F, tensor cores)\n");
  cuda_bench_print_device(dev);
  printf("# cuBLAS %d\n", cublas_version);
  if (getenv("NVIDIA_TF32_OVERRIDE"))
    printf("# NVIDIA_TF32_OVERRIDE=%s is set: it may change cuBLAS's math mode\n", getenv("NVIDIA_TF32_OVERRIDE"));
  printf("# best of %d runs after %d warm-ups, CUDA events; GFLOPS = 2 M N K / time\n", RUNS, WARMUPS);
  printf("%5s %6s %6s %6s %12s %14s %12s\n", "type", "M", "N", "K", "tirc GFLOPS", "cuBLAS GFLOPS",
         "tirc/cuBLAS");
  fflush(stdout);

  CUstream stream;
  check_cu(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  check_cublas(cublasSetStream(cublas, stream), "cublasSetStream");
  CUevent start[RUNS], stop[RUNS];
  for (int i = 0; i < RUNS; ++i) {
    check_cu(cuEventCreate(&start[i], CU_EVENT_DEFAULT), "cuEventCreate");
    check_cu(cuEventCreate(&stop[i], CU_EVENT_DEFAULT), "cuEventCreate");
  }

  int wrong_sizes = 0;
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i)
    if (bench_size(&sizes[i], stream, cublas, start, stop) != 0) ++wrong_sizes;

  for (int i = 0; i < RUNS; ++i) {
    check_cu(cuEventDestroy(start[i]), "cuEventDestroy");
    check_cu(cuEventDestroy(stop[i]), "cuEventDestroy");
  }
  check_cublas(cublasDestroy(cublas), "cublasDestroy");
  check_cu(cuStreamDestroy(stream), "cuStreamDestroy");
  check_cu(cuDevicePrimaryCtxRelease(dev), "cuDevicePrimaryCtxRelease");
  if (wrong_sizes) {
    fprintf(stderr, "cuda_matmul_bench: %d size(s) gave wrong results\n", wrong_sizes);
    return 1;
  }
  return 0;
}
