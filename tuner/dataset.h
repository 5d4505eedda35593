// The tuner's benchmark sets: LoopTune's 2197 matmul nests and a set of small
// 2-D convolutions, each with a fixed 80/20 train/test split.
//
// Kernels are built by the ONNX frontend's operator builders (a one-node
// graph through onnx::build_group_kernel), so each is exactly the kernel
// `tirc compile` / `tirc tune` sees for that operator in a model.
//
// The split is a pure function of the entry's name: FNV-1a 64 of the name,
// mixed by splitmix64's finalizer; an entry is in the test split when that
// hash is 0 mod 5. It depends on no std::hash, RNG or platform, and an
// entry's side never changes when shapes are added to a set.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/function.h"

namespace tirc {

struct DatasetEntry {
  std::string name;  // also the function's name: mm_64_80_96, conv_nchw_16_32_14_k3
  PrimFunc func;
  bool test = false;  // in the test split
};

// C[m, n] = sum_k A[m, k] * B[k, n] in float32: parameters A, B, C, one block
// "matmul" (ONNX MatMul's kernel). Named mm_M_N_K.
struct MatmulShape {
  int64_t m = 0, n = 0, k = 0;
  std::string name() const;
  double flops() const { return 2.0 * double(m) * double(n) * double(k); }
};

// Batch 1, stride 1, zero padding kernel / 2 on every side (so the output is
// size x size), no bias, no groups, float32. NCHW is ONNX's layout (X [1, C,
// H, W], W [M, C, kh, kw]); NHWC is the channels-last form the model pipeline
// gives a CNN (ir/onnx/layout.h: X [1, H, W, C], W [kh, kw, C, M]; none of
// this set's weights reaches the size where that pass blocks them).
// Parameters X, W, Y. Named conv_<layout>_<C>_<M>_<size>_k<kernel>. Like a
// model's, the kernel may copy X first: NCHW 3x3 over rows narrower than 16
// into an im2col buffer (block "im2col"), otherwise into a zero-padded one
// (block "pad"); then block "conv" (NCHW 1x1 and narrow 3x3 iterate over the
// flattened output pixels).
enum class ConvLayout { Nchw, Nhwc };
struct ConvShape {
  int64_t in_channels = 0, out_channels = 0, size = 0, kernel = 0;
  ConvLayout layout = ConvLayout::Nchw;
  std::string name() const;
  double flops() const {
    return 2.0 * double(out_channels) * double(size * size) * double(in_channels) *
           double(kernel * kernel);
  }
};

// A depthwise convolution (ONNX Conv with group = channels), NCHW, batch 1,
// stride 1, zero padding kernel / 2 (output size x size), float32: X [1, C,
// H, W], W [C, 1, kh, kw]. Named dw_<C>_<size>_k<kernel>. In no training
// set: the transfer set of a policy trained on the others.
struct DepthwiseShape {
  int64_t channels = 0, size = 0, kernel = 0;
  std::string name() const;
  double flops() const { return 2.0 * double(channels) * double(size * size * kernel * kernel); }
};

// Whether the entry called `name` is in the test split (see above).
bool in_test_split(std::string_view name);

// LoopTune's set: M, N, K each in 64, 80, ..., 256 (13^3 = 2197), M slowest.
std::vector<MatmulShape> matmul_looptune_shapes();
// C and M in {16, 32, 64}, size in {7, 14, 28}, kernel in {1, 3}, in both
// layouts: 108 shapes, NCHW first, then C, M, size, kernel slowest to fastest.
std::vector<ConvShape> conv_shapes();

// C in {16, 32, 64, 128, 256}, size in {7, 14, 28, 56}, kernel 3: 20 shapes,
// C slowest.
std::vector<DepthwiseShape> depthwise_shapes();

// The kernel of one shape, as a function named shape.name().
PrimFunc matmul_func(const MatmulShape& s);
PrimFunc conv_func(const ConvShape& s);
PrimFunc depthwise_func(const DepthwiseShape& s);

// Every shape with its kernel and split, in the order above. Building all
// 2197 matmuls takes well under a second (the ONNX builders are cheap); use
// the *_shapes functions when only the shapes are needed.
std::vector<DatasetEntry> matmul_looptune_dataset();
std::vector<DatasetEntry> conv_dataset();

}  // namespace tirc
