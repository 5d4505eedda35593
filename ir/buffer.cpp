#include "ir/buffer.h"

namespace tirc {

Buffer make_buffer(std::string name, DataType dtype, std::vector<Expr> shape, std::string scope) {
  auto b = std::make_shared<BufferNode>();
  b->data = make_var(name, DataType::handle());
  b->name = std::move(name);
  b->dtype = dtype;
  b->shape = std::move(shape);
  b->scope = std::move(scope);
  return b;
}

Buffer with_name(const Buffer& b, std::string name) {
  auto n = std::make_shared<BufferNode>(*b);
  n->data = make_var(name, DataType::handle());
  n->name = std::move(name);
  return n;
}

Buffer with_scope(const Buffer& b, std::string scope) {
  auto n = std::make_shared<BufferNode>(*b);
  n->scope = std::move(scope);
  return n;
}

std::optional<int64_t> const_num_elements(const Buffer& b) {
  int64_t n = 1;
  for (const Expr& e : b->shape) {
    auto v = as_const_int(e);
    if (!v) return std::nullopt;
    n *= *v;
  }
  return n;
}

BufferRegion BufferRegion::full(const Buffer& b) {
  BufferRegion r{b, {}};
  for (const Expr& e : b->shape) r.region.push_back({make_int(0, e.dtype()), e});
  return r;
}

}  // namespace tirc
