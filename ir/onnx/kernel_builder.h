// Building one kernel (a PrimFunc of TensorIR blocks) out of several operators:
// the values they pass each other and the helpers that emit block nests.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/function.h"
#include "ir/onnx/graph.h"

namespace tirc::onnx {

// Output indices -> element expression.
using ElementFn = std::function<Expr(const std::vector<Expr>& indices)>;

// A tensor while a kernel is being built. Exactly one of buffer / element is
// set for a value computed at run time; `value` is set when the tensor is known
// at compile time (then buffer or element may also be set so code can read it).
struct TensorValue {
  DataType dtype;
  Shape shape;
  Buffer buffer;                         // materialized: a parameter or intermediate
  ElementFn element;                     // inlined: an expression per element
  std::shared_ptr<const NDArray> value;  // known at compile time

  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  int64_t num_elements() const;
  // The element at `indices` (one per dimension): a BufferLoad, the inlined
  // expression, or an immediate for a known single-element value.
  Expr load(const std::vector<Expr>& indices) const;

  static TensorValue of_buffer(Buffer b, Shape shape);
  static TensorValue of_element(DataType dtype, Shape shape, ElementFn fn);
  static TensorValue of_constant(std::shared_ptr<const NDArray> v);
};

// NumPy broadcasting of two or more shapes; throws (message only) when they
// do not broadcast. The caller adds the node.
Shape broadcast_shapes(const std::vector<Shape>& shapes);
// Indices into a tensor of `shape` for output indices of the broadcast shape
// `out` (size-1 dimensions read index 0; leading dimensions dropped).
std::vector<Expr> broadcast_indices(const Shape& shape, const Shape& out,
                                    const std::vector<Expr>& indices);

class KernelBuilder {
 public:
  explicit KernelBuilder(std::string name);
  const std::string& name() const { return name_; }

  // A kernel parameter (inputs first, then outputs, in the order added).
  Buffer add_param(const std::string& hint, DataType dtype, const Shape& shape);
  // An intermediate buffer of the kernel (alloc_buffer of its root block).
  Buffer alloc(const std::string& hint, DataType dtype, const Shape& shape);
  // A block or buffer name not used yet in this kernel, made from hint.
  std::string unique_name(const std::string& hint);

  // Appends a statement (usually a loop nest around one block) to the body.
  void append(Stmt stmt);

  // Emits `out[i...] = fn(i...)` as one spatial block named `block` over out's
  // whole shape (T.grid loops, T.axis.spatial iterators, reads/writes inferred).
  void emit_elementwise(const std::string& block, const Buffer& out, const ElementFn& fn);
  // From now on, elementwise blocks writing an [N, C, H, W] buffer of this
  // shape iterate over [N, C, H * W] (indices p // W, p % W), as a
  // convolution over flattened pixels does, so that its epilogue can be
  // computed per block of its pixels.
  void iterate_pixels(const Shape& shape) { pixel_shape_ = shape; }

  // Emits a reduction block over `out`'s shape x `reduce_extents`:
  //   init: out[i] = init;   update: out[i] = combine(out[i], value(i, r))
  // combine receives (accumulator, value). Spatial iterators then reduce iterators.
  void emit_reduction(
      const std::string& block, const Buffer& out, const Shape& reduce_extents, Expr init,
      const std::function<Expr(const std::vector<Expr>& i, const std::vector<Expr>& r)>& value,
      const std::function<Expr(Expr acc, Expr v)>& combine);
  // The same with an init that depends on the output position (Conv's bias).
  void emit_reduction(
      const std::string& block, const Buffer& out, const Shape& reduce_extents,
      const ElementFn& init,
      const std::function<Expr(const std::vector<Expr>& i, const std::vector<Expr>& r)>& value,
      const std::function<Expr(Expr acc, Expr v)>& combine);
  // The same over a spatial iteration space other than out's shape, writing
  // out at out_index(i): Conv keeps its group as a loop of its own, so every
  // index stays affine in the loops (no floordiv of the output channel).
  void emit_reduction(
      const std::string& block, const Buffer& out, const Shape& space,
      const std::function<std::vector<Expr>(const std::vector<Expr>& i)>& out_index,
      const Shape& reduce_extents, const ElementFn& init,
      const std::function<Expr(const std::vector<Expr>& i, const std::vector<Expr>& r)>& value,
      const std::function<Expr(Expr acc, Expr v)>& combine);

  // Writes v into a new intermediate (or returns its buffer when it has one).
  Buffer materialize(const TensorValue& v, const std::string& hint);
  // Writes v into `out` (an elementwise block; nothing when v's buffer is out).
  void write_to(const TensorValue& v, const Buffer& out, const std::string& block_hint);

  // The finished kernel: parameters in the order added, a root block holding
  // the intermediates, and the appended statements.
  PrimFunc finish() const;

 private:
  std::string name_;
  std::vector<Param> params_;
  std::vector<Buffer> intermediates_;
  std::vector<Stmt> body_;
  std::map<std::string, int> names_;
  Shape pixel_shape_;
};

}  // namespace tirc::onnx
