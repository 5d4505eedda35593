// oneDNN's fp32 matmul C[m, n] = A[m, k] * B[k, n] (row major, no transposes)
// on caller-owned buffers: the reference the matmul benchmarks compare
// against. oneDNN 2.6's API (matmul::desc); its CPU runtime is OpenMP, so the
// thread count is omp_set_num_threads's.
#pragma once

#include <cstdint>
#include <oneapi/dnnl/dnnl.hpp>

namespace tirc {

class OneDnnMatmul {
 public:
  OneDnnMatmul(int64_t m, int64_t n, int64_t k, float* a, float* b, float* c)
      : engine_(dnnl::engine::kind::cpu, 0), stream_(engine_) {
    using dt = dnnl::memory::data_type;
    using tag = dnnl::memory::format_tag;
    dnnl::memory::desc a_md({m, k}, dt::f32, tag::ab), b_md({k, n}, dt::f32, tag::ab),
        c_md({m, n}, dt::f32, tag::ab);
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_md, c_md), engine_);
    prim_ = dnnl::matmul(pd);
    a_ = dnnl::memory(a_md, engine_, a);
    b_ = dnnl::memory(b_md, engine_, b);
    c_ = dnnl::memory(c_md, engine_, c);
  }
  void run() {
    prim_.execute(stream_, {{DNNL_ARG_SRC, a_}, {DNNL_ARG_WEIGHTS, b_}, {DNNL_ARG_DST, c_}});
    stream_.wait();
  }

 private:
  dnnl::engine engine_;
  dnnl::stream stream_;
  dnnl::matmul prim_;
  dnnl::memory a_, b_, c_;
};

}  // namespace tirc
