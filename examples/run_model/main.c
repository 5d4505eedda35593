/* The quick start's program: runs the example CNN that `tirc compile
 * examples/models/cnn/model.onnx --name cnn` made into cnn.o / cnn.h, checks
 * its output against the reference, and prints its latency (best of many
 * runs): cnn_demo input_0.bin output_0.bin (raw little-endian float32, as
 * examples/models/cnn/test_data_set_0/ holds). */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "cnn.h" /* int cnn_run(const float* input, float* output); */

enum { kInput = 1 * 3 * 32 * 32, kOutput = 1 * 10, kRuns = 2000 };

static int read_floats(const char* path, float* out, size_t n) {
  FILE* f = fopen(path, "rb");
  if (!f) return 0;
  size_t got = fread(out, sizeof(float), n, f);
  int extra = fgetc(f) != EOF;
  fclose(f);
  return got == n && !extra;
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

int main(int argc, char** argv) {
  static float input[kInput], expected[kOutput], output[kOutput];
  if (argc != 3 || !read_floats(argv[1], input, kInput) ||
      !read_floats(argv[2], expected, kOutput)) {
    fprintf(stderr, "usage: cnn_demo input.bin expected.bin (%d and %d float32 values)\n", kInput,
            kOutput);
    return 2;
  }
  if (cnn_run(input, output) != 0) {
    fprintf(stderr, "cnn_run failed\n");
    return 1;
  }
  double max_err = 0;
  for (int i = 0; i < kOutput; ++i) {
    double err = fabs((double)output[i] - expected[i]);
    if (err > 1e-5 + 1e-3 * fabs(expected[i])) {
      fprintf(stderr, "output[%d] = %g, expected %g\n", i, output[i], expected[i]);
      return 1;
    }
    if (err > max_err) max_err = err;
  }
  double best = INFINITY;
  for (int r = 0; r < kRuns; ++r) {
    double start = now_ms();
    cnn_run(input, output);
    double t = now_ms() - start;
    if (t < best) best = t;
  }
  printf("cnn: output matches the reference (max abs error %.3g)\n", max_err);
  printf("cnn: latency %.4f ms (best of %d runs)\n", best, kRuns);
  return 0;
}
