#include "ir/eval/interpreter.h"

#include "ir/eval/compile.h"
#include "ir/eval/numeric.h"

namespace tirc {

namespace {

std::string shape_str(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + ")";
}

void bind_param(eval::Frame& f, const eval::ParamBinding& p, const Argument& arg) {
  if (!p.is_buffer) {
    if (p.scalar_is_float)
      f.floats[p.slot] = numeric::round_to_float(p.dtype, arg.float_value);
    else
      f.ints[p.slot] = numeric::wrap_int(p.dtype, arg.int_value);
    return;
  }
  if (!arg.array) throw Error("parameter " + p.name + ": buffer argument is missing");
  const NDArray& a = *arg.array;
  if (a.dtype() != p.dtype)
    throw Error("parameter " + p.name + ": expected " + p.dtype.str() + " but the argument is " +
                a.dtype().str());
  if (a.shape().size() != p.shape.size())
    throw Error("parameter " + p.name + ": expected " + std::to_string(p.shape.size()) +
                " dimensions but the argument has shape " + shape_str(a.shape()));
  for (auto [dim, slot] : p.shape_vars) f.ints[slot] = a.shape()[dim];
  std::vector<int64_t> expected;
  for (const eval::IExprPtr& e : p.shape) expected.push_back(e->eval(f, 0));
  if (expected != a.shape())
    throw Error("parameter " + p.name + ": expected shape " + shape_str(expected) +
                " but the argument has shape " + shape_str(a.shape()));
  for (int h : p.handle_slots)
    f.handles[h] =
        eval::StorageRef{const_cast<uint8_t*>(arg.array->data()), arg.array->num_bytes()};
  for (const eval::ViewBinder* b : p.views) b->bind(f);
}

}  // namespace

CompiledFunc::CompiledFunc(const PrimFunc& f) : program_(eval::compile_program(f)) {}
CompiledFunc::~CompiledFunc() = default;
CompiledFunc::CompiledFunc(CompiledFunc&&) noexcept = default;
CompiledFunc& CompiledFunc::operator=(CompiledFunc&&) noexcept = default;

void CompiledFunc::run(const std::vector<Argument>& args) const {
  const eval::Program& p = *program_;
  if (args.size() != p.params.size())
    throw Error("function takes " + std::to_string(p.params.size()) + " arguments but " +
                std::to_string(args.size()) + " were given");
  eval::Frame f;
  f.ints.assign(static_cast<size_t>(p.num_ints), 0);
  f.floats.assign(static_cast<size_t>(p.num_floats), 0.0);
  f.handles.assign(static_cast<size_t>(p.num_handles), eval::StorageRef{});
  f.views.resize(static_cast<size_t>(p.num_views));
  f.owned.resize(static_cast<size_t>(p.num_sites));
  // Scalars first: buffer shapes may refer to them.
  for (size_t i = 0; i < args.size(); ++i)
    if (!p.params[i].is_buffer) bind_param(f, p.params[i], args[i]);
  for (size_t i = 0; i < args.size(); ++i)
    if (p.params[i].is_buffer) bind_param(f, p.params[i], args[i]);
  p.body->exec(f);
}

void run(const PrimFunc& f, const std::vector<Argument>& args) {
  CompiledFunc(f).run(args);
}

}  // namespace tirc
