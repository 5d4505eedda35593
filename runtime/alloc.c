/* Heap storage for generated code: 64-byte aligned so vector loads of a
   workspace's float32 views never straddle cache lines. */
#define _POSIX_C_SOURCE 200112L
#include <stdlib.h>

#include "tirc_runtime.h"

void* tirc_alloc(size_t bytes) {
  void* p = NULL;
  if (bytes == 0) bytes = 64;
  if (posix_memalign(&p, 64, bytes) != 0) return NULL;
  return p;
}

void tirc_free(void* p) {
  free(p);
}
