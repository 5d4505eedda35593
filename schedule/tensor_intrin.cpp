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

// Tensor cores (ir/intrinsic.h's warp matrix operations): a 16x16 float32
// accumulator tile set to zero, one 16x16x16 step of a matmul with float16 or
// bfloat16 inputs, the accumulator written out. The tiles are views with the
// matched region's row strides (lda, ldb, ldc, bound by match_buffer).
constexpr const char* kMmaFillDesc = R"(
@T.prim_func
def mma_fill_16x16_f32_desc(C: T.Buffer((16, 16), "float32")):
    for i, j in T.grid(16, 16):
        with T.block("init"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = T.float32(0)
)";

constexpr const char* kMmaFillImpl = R"(
@T.prim_func
def mma_fill_16x16_f32_impl(c: T.handle):
    C = T.match_buffer(c, (16, 16), "float32", strides=(ldc, 1))
    T.evaluate(T.mma_fill(T.address_of(C[0, 0]), ldc, T.float32(0)))
)";

// %s: the input type, float16 or bfloat16.
constexpr const char* kMmaSyncDesc = R"(
@T.prim_func
def mma_sync_desc(A: T.Buffer((16, 16), "%s"), B: T.Buffer((16, 16), "%s"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("update"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            C[vi, vj] = C[vi, vj] + T.Cast("float32", A[vi, vk]) * T.Cast("float32", B[vk, vj])
)";

constexpr const char* kMmaSyncImpl = R"(
@T.prim_func
def mma_sync_impl(a: T.handle, b: T.handle, c: T.handle):
    A = T.match_buffer(a, (16, 16), "%s", strides=(lda, 1))
    B = T.match_buffer(b, (16, 16), "%s", strides=(ldb, 1))
    C = T.match_buffer(c, (16, 16), "float32", strides=(ldc, 1))
    T.evaluate(T.mma_sync(T.address_of(C[0, 0]), ldc, T.address_of(A[0, 0]), lda, T.address_of(B[0, 0]), ldb))
)";

constexpr const char* kMmaStoreDesc = R"(
@T.prim_func
def mma_store_16x16_f32_desc(Acc: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j in T.grid(16, 16):
        with T.block("store"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = Acc[vi, vj]
)";

constexpr const char* kMmaStoreImpl = R"(
@T.prim_func
def mma_store_16x16_f32_impl(acc: T.handle, c: T.handle):
    Acc = T.match_buffer(acc, (16, 16), "float32", strides=(ldacc, 1))
    C = T.match_buffer(c, (16, 16), "float32", strides=(ldc, 1))
    T.evaluate(T.mma_store(T.address_of(C[0, 0]), ldc, T.address_of(Acc[0, 0]), ldacc))
)";

// `text` with each %s replaced by `type`.
std::string with_type(const char* text, const std::string& type) {
  std::string out = text;
  for (size_t at = out.find("%s"); at != std::string::npos; at = out.find("%s", at + type.size()))
    out.replace(at, 2, type);
  return out;
}

// The one function of `text`; its statements' locations (which a tensorized
// program keeps, and a refusal of its code may name) read
// "tensor intrinsic <intrin>:<line>:<col>".
PrimFunc only_function(const std::string& text, const std::string& intrin) {
  IRModule m = parse_module(text, "tensor intrinsic " + intrin);
  return m.functions().front().second;
}

std::vector<TensorIntrin> build_registry() {
  std::vector<TensorIntrin> all;
  all.push_back({"vec16_fma_f32", only_function(kVec16FmaDesc, "vec16_fma_f32"),
                 only_function(kVec16FmaImpl, "vec16_fma_f32")});
  all.push_back({"mma_fill_16x16_f32", only_function(kMmaFillDesc, "mma_fill_16x16_f32"),
                 only_function(kMmaFillImpl, "mma_fill_16x16_f32")});
  for (const char* type : {"float16", "bfloat16"}) {
    const std::string name =
        std::string("mma_sync_16x16x16_") + (type[0] == 'f' ? "f16" : "bf16") + "_f32";
    all.push_back({name, only_function(with_type(kMmaSyncDesc, type), name),
                   only_function(with_type(kMmaSyncImpl, type), name)});
  }
  all.push_back({"mma_store_16x16_f32", only_function(kMmaStoreDesc, "mma_store_16x16_f32"),
                 only_function(kMmaStoreImpl, "mma_store_16x16_f32")});
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
