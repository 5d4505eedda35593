/* Runs the model compiled for batch=2, seq=5 on zero inputs: y = x W + b + m
   is then the bias, b[j] = j / 4, in every row. Exit status 0 when it is. */
#include <stdio.h>

#include "sym.h"

int main(void) {
  static float x[2 * 5 * 32], m[2 * 5 * 16], y[2 * 5 * 16];
  int rc = sym_run(x, m, y);
  if (rc != 0) {
    fprintf(stderr, "sym_run returned %d\n", rc);
    return 1;
  }
  for (int i = 0; i < 2 * 5; ++i)
    for (int j = 0; j < 16; ++j)
      if (y[i * 16 + j] != (float)j / 4) {
        fprintf(stderr, "y[%d][%d] = %g, expected %g\n", i, j, y[i * 16 + j], (float)j / 4);
        return 1;
      }
  printf("sym: batch=2, seq=5: output is the bias, as expected\n");
  return 0;
}
