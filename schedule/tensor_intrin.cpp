#include "schedule/tensor_intrin.h"

#include <algorithm>

#include "ir/text/parser.h"

namespace tirc {

namespace {

// vec16_fma_f32: C[0:16] += A[0] * B[0:16] (one step of a matmul's k loop
// over 16 consecutive columns), implemented with 16-lane vector operations.
constexpr const char* kVec16FmaDesc = R"(
@T.prim_func
def vec16_fma_f32_desc(A: T.Buffer((1,), "float32"), B: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    for j in range(16):
        with T.block("update"):
            vj = T.axis.spatial(16, j)
            C[vj] = C[vj] + A[0] * B[vj]
)";

constexpr const char* kVec16FmaImpl = R"(
@T.prim_func
def vec16_fma_f32_impl(A: T.Buffer((1,), "float32"), B: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    C[T.Ramp(0, 1, 16)] = C[T.Ramp(0, 1, 16)] + T.Broadcast(A[0], 16) * B[T.Ramp(0, 1, 16)]
)";

PrimFunc only_function(const char* text, const char* name) {
  IRModule m = parse_module(text, name);
  return m.functions().front().second;
}

std::vector<TensorIntrin> build_registry() {
  std::vector<TensorIntrin> all;
  all.push_back({"vec16_fma_f32", only_function(kVec16FmaDesc, "vec16_fma_f32_desc"),
                 only_function(kVec16FmaImpl, "vec16_fma_f32_impl")});
  std::sort(all.begin(), all.end(),
            [](const TensorIntrin& a, const TensorIntrin& b) { return a.name < b.name; });
  return all;
}

const std::vector<TensorIntrin>& registry() {
  static const std::vector<TensorIntrin> all = build_registry();
  return all;
}

}  // namespace

const TensorIntrin* find_tensor_intrin(std::string_view name) {
  for (const TensorIntrin& t : registry())
    if (t.name == name) return &t;
  return nullptr;
}

std::vector<std::string> tensor_intrin_names() {
  std::vector<std::string> names;
  for (const TensorIntrin& t : registry()) names.push_back(t.name);
  return names;
}

}  // namespace tirc
