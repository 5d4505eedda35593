// Buffers: named, typed, shaped views of memory, and regions of them.
#pragma once

#include <string>
#include <vector>

#include "ir/expr.h"

namespace tirc {

struct BufferNode {
  std::string name;
  Var data;                   // handle variable naming the underlying storage
  DataType dtype;             // element type
  std::vector<Expr> shape;    // extents, outermost first
  std::vector<Expr> strides;  // empty means compact row-major
  Expr elem_offset;           // null means 0
  std::string scope = "global";  // "global", "local", "shared", ...
  int align = 0;              // 0 means default; data alignment in bytes

  size_t ndim() const { return shape.size(); }
};

// A compact row-major buffer; its data variable is named after it.
Buffer make_buffer(std::string name, DataType dtype, std::vector<Expr> shape,
                   std::string scope = "global");

// A copy of `b` with a different name/scope/shape/..., sharing nothing mutable.
Buffer with_name(const Buffer& b, std::string name);
Buffer with_scope(const Buffer& b, std::string scope);

// Product of the shape when every extent is a constant.
std::optional<int64_t> const_num_elements(const Buffer& b);

// A rectangular region of a buffer: one Range per dimension.
struct BufferRegion {
  Buffer buffer;
  std::vector<Range> region;

  // The whole buffer.
  static BufferRegion full(const Buffer& b);
};

// `buffer = T.match_buffer(source[...], shape)` inside a block.
struct MatchBufferRegion {
  Buffer buffer;
  BufferRegion source;
};

}  // namespace tirc
