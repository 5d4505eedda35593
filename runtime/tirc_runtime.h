/* The tirc runtime: what objects emitted by `tirc compile` call when a kernel
   has a parallel loop or an allocation too big for the stack. Plain C, so C and C++ programs link it alike:
   `cc prog.c kernel.o -ltirc_runtime -lpthread`. Objects without parallel
   loops need nothing from it. */
#ifndef TIRC_RUNTIME_H
#define TIRC_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Runs body(begin, end, closure) over disjoint chunks covering [0, n), on the
   calling thread and the pool's worker threads, and returns when all chunks are
   done. Returns 0, or a nonzero error code when the pool cannot start threads
   (the work is then done on the calling thread, and 0 is returned). A call from
   inside a body (nested parallelism) runs serially on the calling thread. */
typedef void (*tirc_parallel_body)(int64_t begin, int64_t end, void* closure);
int tirc_parallel_for(int64_t n, tirc_parallel_body body, void* closure);

/* Number of threads parallel loops use: TIRC_NUM_THREADS from the environment
   when set (>= 1), else the number of online CPUs; both are read at first use
   and again after each tirc_set_num_threads. Setting it takes effect at the
   next tirc_parallel_for; n < 1 restores the default. */
void tirc_set_num_threads(int n);
int tirc_get_num_threads(void);

/* Storage for allocations too large for the stack (a model's workspace):
   `bytes` bytes aligned to 64, or NULL when memory is exhausted (generated code
   then returns -1). tirc_free(NULL) does nothing. */
void* tirc_alloc(size_t bytes);
void tirc_free(void* p);

#ifdef __cplusplus
}
#endif

#endif
