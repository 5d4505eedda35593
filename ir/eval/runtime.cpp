#include "ir/eval/runtime.h"

#include <limits>

#include "ir/eval/numeric.h"

namespace tirc::eval {

std::string Where::describe() const {
  return block.empty() ? "" : " in block \"" + block + "\"";
}

namespace {

std::string join(const std::vector<int64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s;
}

}  // namespace

std::string Access::element(Frame& f, int lane) const {
  std::vector<int64_t> at;
  for (const IExprPtr& i : indices) at.push_back(i->eval(f, lane));
  return buffer_name + "[" + join(at) + "]";
}

void Access::out_of_bounds(Frame& f, int lane) const {
  const View& v = f.views[view];
  std::vector<int64_t> at;
  for (const IExprPtr& i : indices) at.push_back(i->eval(f, lane));
  std::string msg = std::string(is_store ? "store to " : "load from ") + buffer_name + "[" +
                    join(at) + "] is out of bounds";
  bool within_shape = true;
  for (size_t d = 0; d < at.size(); ++d)
    within_shape = within_shape && at[d] >= 0 && at[d] < v.shape[d];
  if (within_shape)
    msg += " of its storage (" + std::to_string(v.storage_elems) + " elements)";
  else
    msg += " of shape [" + join(v.shape) + "]";
  if (where) msg += where->describe();
  throw Error(msg, where ? where->loc : SourceLoc{});
}

void Access::read_only_store(Frame& f, int lane) const {
  std::vector<int64_t> at;
  for (const IExprPtr& i : indices) at.push_back(i->eval(f, lane));
  throw Error("store to " + buffer_name + "[" + join(at) +
                  "] writes read-only storage of a module constant (T.allocate_const)" +
                  (where ? where->describe() : ""),
              where ? where->loc : SourceLoc{});
}

void Access::unbound(Frame&) const {
  throw Error("buffer " + buffer_name + " is accessed outside the scope of its storage" +
                  (where ? where->describe() : ""),
              where ? where->loc : SourceLoc{});
}

void ViewBinder::bind(Frame& f) const {
  View& v = f.views[view];
  const StorageRef& s = f.handles[handle];
  if (!s.data && s.bytes != 0) throw Error("buffer " + name + " has no storage");
  v.base = s.data;
  v.storage_elems = static_cast<int64_t>(s.bytes / static_cast<size_t>(dtype.bytes()));
  v.storage_bytes = s.bytes;
  v.read_only = s.read_only;
  v.shape.resize(shape.size());
  v.strides.resize(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    v.shape[d] = shape[d]->eval(f, 0);
    if (v.shape[d] < 0)
      throw Error("buffer " + name + " has negative extent " + std::to_string(v.shape[d]));
  }
  if (strides.empty()) {
    int64_t stride = 1;
    for (size_t d = shape.size(); d-- > 0;) {
      v.strides[d] = stride;
      stride *= v.shape[d];
    }
  } else {
    for (size_t d = 0; d < shape.size(); ++d) v.strides[d] = strides[d]->eval(f, 0);
  }
  v.offset = elem_offset ? elem_offset->eval(f, 0) : 0;
  v.bound = true;
}

void poison(std::vector<uint8_t>& bytes, DataType t) {
  if (!t.is_float()) {
    std::fill(bytes.begin(), bytes.end(), uint8_t{0xA5});
    return;
  }
  const size_t size = static_cast<size_t>(t.bytes());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (size_t i = 0; i + size <= bytes.size(); i += size)
    numeric::store_float(t.element_of(), bytes.data() + i, nan);
}

}  // namespace tirc::eval
