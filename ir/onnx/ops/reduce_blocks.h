// Pieces shared by the operators that emit reduction blocks: how their blocks
// and intermediates are named, and the mean / inverse standard deviation pair
// the normalizations compute.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ir/onnx/op.h"

namespace tirc::onnx {

// The value a reduction folds, at output position i and reduction position r.
using ReduceValueFn = std::function<Expr(const std::vector<Expr>& i, const std::vector<Expr>& r)>;

// "<first output>_<stage>" (or "<op type>_<stage>"): a block or buffer name hint.
std::string hint_of(const OpContext& ctx, const std::string& stage);

// Emits mean[i] = sum_r x(i, r) / count and invstd[i] = 1 / sqrt(variance + epsilon)
// (the variance about that mean, from a second pass) over reduce_extents.
// mean and invstd have `shape` (that of i) and the type of x; the blocks and
// the two sums they keep are named hint_of(ctx, "sum" / "mean" / "sqdiff" / "invstd").
void emit_mean_invstd(OpContext& ctx, const ReduceValueFn& x, const Shape& shape,
                      const Shape& reduce_extents, double epsilon, const Buffer& mean,
                      const Buffer& invstd);

}  // namespace tirc::onnx
