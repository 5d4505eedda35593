// The thread count of GCC's OpenMP runtime (libgomp), on which Debian's
// oneDNN runs its threads: omp.h's one entry point the benchmarks call. It is
// declared here rather than taken from omp.h so that any compiler builds
// them against libgomp (bench/CMakeLists.txt): clang's own omp.h and runtime
// would be a second thread pool beside oneDNN's.
#pragma once

extern "C" void omp_set_num_threads(int threads);
