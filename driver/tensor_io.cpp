#include "driver/tensor_io.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <unordered_set>

#include "ir/functor.h"

namespace tirc::driver {

namespace {
class StoreCollector : public StmtVisitor {
 public:
  std::unordered_set<const BufferNode*> stored;
  std::unordered_set<const VarNode*> stored_data;

 protected:
  void visit_store(const BufferStoreNode* n) override {
    stored.insert(n->buffer.get());
    stored_data.insert(n->buffer->data.get());
    StmtVisitor::visit_store(n);
  }
};
}  // namespace

std::vector<size_t> output_params(const PrimFunc& f) {
  // A model's entry stores nothing itself (its kernels do): its outputs are the
  // parameters after the "tirc.num_inputs" inputs (every buffer without it).
  if (is_entry(f)) {
    const auto first = static_cast<size_t>(std::max<int64_t>(entry_num_inputs(f).value_or(0), 0));
    std::vector<size_t> out;
    for (size_t i = first; i < f->params.size(); ++i)
      if (f->params[i].buffer) out.push_back(i);
    return out;
  }
  StoreCollector c;
  c.visit(f->body);
  std::vector<size_t> out;
  for (size_t i = 0; i < f->params.size(); ++i) {
    const Buffer& b = f->params[i].buffer;
    // A store through a view (match_buffer, decl_buffer) shares the data var.
    if (b && (c.stored.count(b.get()) || c.stored_data.count(b->data.get()))) out.push_back(i);
  }
  return out;
}

Inputs make_inputs(const PrimFunc& f, uint64_t seed, bool small_ints, const std::string& dir,
                   const std::map<std::string, double>& scalars) {
  Inputs in;
  std::vector<NDArray> random = random_inputs(f, seed, small_ints);
  size_t next_random = 0;
  std::unordered_set<std::string> used_scalars;
  for (const Param& p : f->params) {
    if (!p.buffer) {
      Argument a;
      auto it = scalars.find(p.var->name);
      if (it == scalars.end())
        throw Error("scalar parameter '" + p.var->name + "' needs a value: pass --param " +
                    p.var->name + "=VALUE");
      a.int_value = static_cast<int64_t>(it->second);
      a.float_value = it->second;
      used_scalars.insert(it->first);
      in.arrays.emplace_back();
      in.args.push_back(a);
      continue;
    }
    NDArray arr = std::move(random.at(next_random++));
    std::string path = dir.empty() ? "" : dir + "/" + p.buffer->name + ".npy";
    if (!path.empty() && std::filesystem::exists(path)) {
      NDArray given = read_npy(path);
      if (given.dtype() != arr.dtype() || given.shape() != arr.shape())
        throw Error(path + ": holds " + describe(given) + " but buffer " + p.buffer->name + " is " +
                    describe(arr));
      arr = std::move(given);
      spdlog::info("{}: read from {}", p.buffer->name, path);
    }
    in.arrays.push_back(std::move(arr));
    in.args.emplace_back();
  }
  for (const auto& [name, value] : scalars)
    if (!used_scalars.count(name))
      throw Error("--param " + name + ": the function has no scalar parameter of that name");
  for (size_t i = 0; i < in.arrays.size(); ++i)
    if (f->params[i].buffer) in.args[i].array = &in.arrays[i];
  return in;
}

std::string describe(const NDArray& a) {
  std::string s = a.dtype().str() + " (";
  for (size_t i = 0; i < a.shape().size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(a.shape()[i]);
  }
  if (a.shape().size() == 1) s += ",";
  return s + ")";
}

uint64_t checksum(const NDArray& a) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < a.num_bytes(); ++i) {
    h ^= a.data()[i];
    h *= 1099511628211ull;
  }
  return h;
}

static std::string format_element(const NDArray& a, int64_t i) {
  if (a.dtype().is_float()) {
    double v = a.get_float(i);
    if (a.dtype().bits() <= 32) return fmt::format("{}", static_cast<float>(v));
    return fmt::format("{}", v);
  }
  if (a.dtype().is_bool()) return a.get_int(i) ? "True" : "False";
  return std::to_string(a.get_int(i));
}

std::string format_array(const NDArray& a, int64_t limit) {
  const auto& shape = a.shape();
  if (shape.empty()) return format_element(a, 0);
  bool summarize = a.num_elements() > limit;
  std::string out;
  // Recursive over dimensions; `base` is the flat index of the current slice.
  auto rec = [&](auto& self, size_t dim, int64_t base, int64_t stride) -> void {
    int64_t n = shape[dim];
    int64_t inner = stride / std::max<int64_t>(n, 1);
    out += '[';
    for (int64_t i = 0; i < n; ++i) {
      if (summarize && n > 6 && i == 3) {
        out += dim + 1 == shape.size() ? "..., " : "...,\n" + std::string(dim + 1, ' ');
        i = n - 3;
      }
      if (dim + 1 == shape.size())
        out += format_element(a, base + i);
      else
        self(self, dim + 1, base + i * inner, inner);
      if (i + 1 < n) out += dim + 1 == shape.size() ? ", " : ",\n" + std::string(dim + 1, ' ');
    }
    out += ']';
  };
  rec(rec, 0, 0, a.num_elements());
  return out;
}

}  // namespace tirc::driver
