/* Runs host functions of tirc CUDA objects on the first GPU and compares
   what they write with the interpreter's results. Built by the CUDA tests
   (test/unit/cuda_test_util.h) with a generated table of calls; a bundle of
   the program and its files can be carried to a machine with a GPU.

   argv[1]: the manifest; one case per line:
     <call> <name> <tolerance> <n> then n items "<kind><code> <input> <expected>"
   kind b: a buffer (copied to the device), s: a scalar (passed by value);
   code: f (float32), d (float64), h (float16), g (bfloat16), x (other bytes,
   compared exactly); expected "-" for an argument not compared.
   Prints "device <name>", then "ok <name>" or "FAIL <name>: <why>" per case.
   Exit status 77: no GPU (cuInit or cuDeviceGet failed, reason printed). */
#include <cuda.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*call_fn)(void* const* args, CUstream stream);
extern call_fn tirc_test_calls[];

static void* read_all(const char* path, long* size) {
  FILE* f = fopen(path, "rb");
  void* data;
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  *size = ftell(f);
  fseek(f, 0, SEEK_SET);
  data = malloc(*size > 0 ? (size_t)*size : 1);
  if (*size > 0 && fread(data, 1, (size_t)*size, f) != (size_t)*size) {
    fclose(f);
    free(data);
    return NULL;
  }
  fclose(f);
  return data;
}

static double half_to_double(uint16_t h) {
  int e = (h >> 10) & 31, m = h & 1023;
  double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
  return (h & 0x8000) ? -v : v;
}

static double element(char code, const unsigned char* p, long i) {
  if (code == 'f') {
    float v;
    memcpy(&v, p + 4 * i, 4);
    return v;
  }
  if (code == 'd') {
    double v;
    memcpy(&v, p + 8 * i, 8);
    return v;
  }
  if (code == 'h') {
    uint16_t v;
    memcpy(&v, p + 2 * i, 2);
    return half_to_double(v);
  }
  {
    uint32_t bits = 0;
    float v;
    memcpy(&bits, p + 2 * i, 2);
    bits <<= 16;
    memcpy(&v, &bits, 4);
    return v;
  }
}

/* Empty when equal: float codes within the tolerance (0: the same value or
   both NaN), other bytes exactly. */
static void compare(char code, const unsigned char* got, const unsigned char* want, long bytes,
                    double tol, char* why, size_t why_size) {
  long i, n;
  int size = code == 'f' ? 4 : code == 'd' ? 8 : code == 'x' ? 1 : 2;
  why[0] = 0;
  if (code == 'x') {
    for (i = 0; i < bytes; ++i)
      if (got[i] != want[i]) {
        snprintf(why, why_size, "byte %ld: got %d, expected %d", i, got[i], want[i]);
        return;
      }
    return;
  }
  n = bytes / size;
  for (i = 0; i < n; ++i) {
    double g = element(code, got, i), w = element(code, want, i);
    int same = g == w || (isnan(g) && isnan(w)) || (tol > 0 && fabs(g - w) <= 1e-5 + tol * fabs(w));
    if (!same) {
      snprintf(why, why_size, "element %ld: got %.9g, expected %.9g", i, g, w);
      return;
    }
  }
}

int main(int argc, char** argv) {
  CUdevice device;
  CUcontext context;
  CUresult r;
  char name[256], kinds[64][3], inputs[64][512], expected[64][512], case_name[256];
  int call, n, i, count = 0, failed = 0;
  double tol;
  FILE* manifest;
  if (argc != 2 || !(manifest = fopen(argv[1], "r"))) return 90;
  if ((r = cuInit(0)) != CUDA_SUCCESS || (r = cuDeviceGetCount(&count)) != CUDA_SUCCESS ||
      count == 0 || (r = cuDeviceGet(&device, 0)) != CUDA_SUCCESS) {
    const char* s = NULL;
    cuGetErrorString(r, &s);
    printf("no GPU: %s (CUresult %d, %d devices)\n", s ? s : "?", (int)r, count);
    return 77;
  }
  if (cuDevicePrimaryCtxRetain(&context, device) != CUDA_SUCCESS ||
      cuCtxSetCurrent(context) != CUDA_SUCCESS)
    return 95;
  cuDeviceGetName(name, sizeof name, device);
  printf("device %s\n", name);
  while (fscanf(manifest, "%d %255s %lf %d", &call, case_name, &tol, &n) == 4) {
    void* host[64];
    void* args[64];
    long sizes[64];
    CUdeviceptr device_ptrs[64];
    char why[512] = "";
    int status;
    if (n > 64) return 91;
    for (i = 0; i < n; ++i) {
      if (fscanf(manifest, "%2s %511s %511s", kinds[i], inputs[i], expected[i]) != 3) return 92;
      if (!(host[i] = read_all(inputs[i], &sizes[i]))) return 93;
      device_ptrs[i] = 0;
      if (kinds[i][0] == 'b') {
        if (cuMemAlloc(&device_ptrs[i], sizes[i] > 0 ? (size_t)sizes[i] : 1) != CUDA_SUCCESS ||
            (sizes[i] > 0 && cuMemcpyHtoD(device_ptrs[i], host[i], (size_t)sizes[i]) != CUDA_SUCCESS))
          return 94;
        args[i] = &device_ptrs[i];
      } else {
        args[i] = host[i];
      }
    }
    status = tirc_test_calls[call](args, 0);
    if (status == 0) status = cuCtxSynchronize();
    if (status != 0) snprintf(why, sizeof why, "returned CUresult %d", status);
    for (i = 0; i < n && !why[0]; ++i) {
      long want_size;
      unsigned char* want;
      if (kinds[i][0] != 'b' || strcmp(expected[i], "-") == 0) continue;
      if (!(want = read_all(expected[i], &want_size)) || want_size != sizes[i]) return 96;
      if (sizes[i] > 0 && cuMemcpyDtoH(host[i], device_ptrs[i], (size_t)sizes[i]) != CUDA_SUCCESS)
        snprintf(why, sizeof why, "copying argument %d back failed", i);
      else
        compare(kinds[i][1], host[i], want, sizes[i], tol, why, sizeof why);
      if (why[0]) {
        char full[600];
        snprintf(full, sizeof full, "argument %d %s", i, why);
        strncpy(why, full, sizeof why - 1);
      }
      free(want);
    }
    for (i = 0; i < n; ++i) {
      if (device_ptrs[i]) cuMemFree(device_ptrs[i]);
      free(host[i]);
    }
    if (why[0]) {
      ++failed;
      printf("FAIL %s: %s\n", case_name, why);
    } else {
      printf("ok %s\n", case_name);
    }
    fflush(stdout);
  }
  fclose(manifest);
  return failed ? 1 : 0;
}
