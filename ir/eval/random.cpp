// Deterministic random inputs. Values are derived from raw mt19937_64 output
// by hand, because std::uniform_*_distribution differs between libraries.
#include <random>

#include "ir/eval/interpreter.h"

namespace tirc {

namespace {

std::vector<int64_t> const_shape(const Buffer& b) {
  std::vector<int64_t> shape;
  for (const Expr& e : b->shape) {
    auto v = as_const_int(e);
    if (!v) throw Error("random_inputs: buffer parameter " + b->name + " has a non-constant shape");
    shape.push_back(*v);
  }
  return shape;
}

// An integer in [lo, hi]; the modulo bias is irrelevant for test inputs.
int64_t small_int(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  return lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
}

// Uniform in [-1, 1) from the top 53 bits.
double unit_float(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-52 - 1.0;
}

}  // namespace

std::vector<NDArray> random_inputs(const PrimFunc& f, uint64_t seed, bool small_ints) {
  std::mt19937_64 rng(seed);
  std::vector<NDArray> arrays;
  for (const Param& p : f->params) {
    if (!p.buffer) continue;
    NDArray a(p.buffer->dtype, const_shape(p.buffer));
    const DataType t = a.dtype();
    const int64_t n = a.num_elements();
    for (int64_t i = 0; i < n; ++i) {
      if (t.is_bool())
        a.set_int(i, static_cast<int64_t>(rng() >> 63));
      else if (t.is_float())
        a.set_float(i, small_ints ? static_cast<double>(small_int(rng, -4, 4)) : unit_float(rng));
      else if (small_ints)
        a.set_int(i, t.is_uint() ? small_int(rng, 0, 8) : small_int(rng, -4, 4));
      else
        a.set_int(i, static_cast<int64_t>(rng()));  // wraps to the element width
    }
    arrays.push_back(std::move(a));
  }
  return arrays;
}

}  // namespace tirc
