/* Runs the MLP compiled by tirc_add_model on an input file and checks the
 * result against the expected output: mlp_demo input.bin expected.bin
 * (raw little-endian float32, as examples/models/mlp/test_data_set_0/ holds). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "mlp.h" /* int mlp_run(const float* input, float* output); */

enum { kInput = 4 * 64, kOutput = 4 * 10 };

static int read_floats(const char* path, float* out, size_t n) {
  FILE* f = fopen(path, "rb");
  if (!f) return 0;
  size_t got = fread(out, sizeof(float), n, f);
  int extra = fgetc(f) != EOF;
  fclose(f);
  return got == n && !extra;
}

int main(int argc, char** argv) {
  static float input[kInput], expected[kOutput], output[kOutput];
  if (argc != 3 || !read_floats(argv[1], input, kInput) || !read_floats(argv[2], expected, kOutput)) {
    fprintf(stderr, "usage: mlp_demo input.bin expected.bin (%d and %d float32 values)\n", kInput, kOutput);
    return 2;
  }
  int rc = mlp_run(input, output);
  if (rc != 0) {
    fprintf(stderr, "mlp_run failed: %d\n", rc);
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
  printf("mlp: class probabilities of row 0:");
  for (int j = 0; j < 10; ++j) printf(" %.4f", output[j]);
  printf("\nmatches the reference (max abs error %.3g)\n", max_err);
  return 0;
}
