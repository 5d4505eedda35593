// set_scope and storage_align: properties of a buffer allocated inside the
// function, changed everywhere the buffer is used.
#include "schedule/buffer_rewrite.h"
#include "schedule/schedule.h"

namespace tirc {

namespace {

// The buffer a block writes at `index`, which must be allocated by the
// function (not a parameter).
Buffer allocated_write_buffer(const PrimFunc& f, const BlockNode& blk, int index,
                              const char* primitive) {
  Buffer buf = block_buffer(blk, {true, index}, primitive);
  if (is_param_buffer(f, buf))
    throw ScheduleError(primitive, "buffer " + buf->name + " written by block " + blk.name +
                                       " is a function parameter");
  if (!is_allocated_buffer(f, buf))
    throw ScheduleError(primitive, "buffer " + buf->name + " written by block " + blk.name +
                                       " is not allocated by a block");
  return buf;
}

Buffer with_strides(const Buffer& b, std::vector<Expr> strides) {
  auto n = std::make_shared<BufferNode>(*b);
  n->strides = std::move(strides);
  return n;
}

}  // namespace

void Schedule::set_scope(BlockRV block, int buffer_index, const std::string& storage_scope) {
  const char* P = "set_scope";
  const BlockEntry entry = resolve(block, P);
  const PrimFunc f = mod_.at(entry.func);
  const BlockNode& blk = *find_block(f->body, entry.name)->node().as<BlockRealizeNode>()->block;
  Buffer buf = allocated_write_buffer(f, blk, buffer_index, P);
  if (storage_scope.empty()) throw ScheduleError(P, "the storage scope is empty");

  Buffer scoped = with_scope(buf, storage_scope);
  update_func(entry.func, with_body(f, replace_buffer(f->body, buf, scoped)), "set_scope");
  record({"set_scope",
          {},
          {{"block", trace_rv(block)},
           {"buffer_index", buffer_index},
           {"storage_scope", storage_scope}},
          {}});
}

// TVM records storage_align as a block annotation and pads the strides only
// when lowering; tirc applies it to the buffer's strides at once, so the
// schedule's output already shows (and the interpreter already uses) the
// padded layout. A buffer carries one alignment: a second storage_align on a
// buffer that already has explicit strides is refused.
void Schedule::storage_align(BlockRV block, int buffer_index, int axis, int factor, int offset) {
  const char* P = "storage_align";
  const BlockEntry entry = resolve(block, P);
  const PrimFunc f = mod_.at(entry.func);
  const BlockNode& blk = *find_block(f->body, entry.name)->node().as<BlockRealizeNode>()->block;
  Buffer buf = allocated_write_buffer(f, blk, buffer_index, P);
  const int ndim = static_cast<int>(buf->shape.size());
  if (axis < 0 || axis >= ndim)
    throw ScheduleError(P, "axis " + std::to_string(axis) + " is out of range for buffer " +
                               buf->name + " with " + std::to_string(ndim) + " dimensions");
  if (factor <= 0) throw ScheduleError(P, "factor " + std::to_string(factor) + " must be positive");
  if (offset < 0 || offset >= factor)
    throw ScheduleError(
        P, "offset " + std::to_string(offset) + " must be in [0, " + std::to_string(factor) + ")");
  if (!buf->strides.empty())
    throw ScheduleError(P, "buffer " + buf->name + " already has explicit strides");
  std::vector<int64_t> shape;
  for (const Expr& e : buf->shape) {
    auto v = as_const_int(e);
    if (!v) throw ScheduleError(P, "buffer " + buf->name + " has a non-constant shape");
    shape.push_back(*v);
  }

  // Row-major strides from the innermost dimension out, padding the stride
  // of `axis` up to the next value congruent to offset modulo factor.
  std::vector<int64_t> strides(shape.size());
  int64_t stride = 1;
  for (int d = ndim - 1; d >= 0; --d) {
    if (d == axis) stride += ((offset - stride % factor) % factor + factor) % factor;
    strides[static_cast<size_t>(d)] = stride;
    stride *= shape[static_cast<size_t>(d)];
  }
  std::vector<Expr> stride_exprs;
  for (size_t d = 0; d < shape.size(); ++d)
    stride_exprs.push_back(make_int(strides[d], buf->shape[d].dtype()));

  Buffer aligned = with_strides(buf, std::move(stride_exprs));
  update_func(entry.func, with_body(f, replace_buffer(f->body, buf, aligned)), "storage_align");
  record({"storage_align",
          {},
          {{"block", trace_rv(block)},
           {"buffer_index", buffer_index},
           {"axis", axis},
           {"factor", factor},
           {"offset", offset}},
          {}});
}

}  // namespace tirc
