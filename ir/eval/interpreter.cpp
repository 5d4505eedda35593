#include "ir/eval/interpreter.h"

#include <map>

#include "ir/eval/compile.h"
#include "ir/eval/numeric.h"
#include "ir/functor.h"

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
  for (auto [dim, slot] : p.stride_vars) {
    int64_t stride = 1;
    for (size_t d = static_cast<size_t>(dim) + 1; d < a.shape().size(); ++d) stride *= a.shape()[d];
    f.ints[slot] = stride;
  }
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

eval::Frame new_frame(const eval::Program& p) {
  eval::Frame f;
  f.ints.assign(static_cast<size_t>(p.num_ints), 0);
  f.floats.assign(static_cast<size_t>(p.num_floats), 0.0);
  f.handles.assign(static_cast<size_t>(p.num_handles), eval::StorageRef{});
  f.views.resize(static_cast<size_t>(p.num_views));
  f.owned.resize(static_cast<size_t>(p.num_sites));
  return f;
}

void run_program(const eval::Program& p, const std::vector<Argument>& args,
                 eval::RaceChecker* checker) {
  if (args.size() != p.params.size())
    throw Error("function takes " + std::to_string(p.params.size()) + " arguments but " +
                std::to_string(args.size()) + " were given");
  eval::Frame f = new_frame(p);
  f.checker = checker;
  // Scalars first: buffer shapes may refer to them.
  for (size_t i = 0; i < args.size(); ++i)
    if (!p.params[i].is_buffer) bind_param(f, p.params[i], args[i]);
  for (size_t i = 0; i < args.size(); ++i)
    if (p.params[i].is_buffer) bind_param(f, p.params[i], args[i]);
  p.body->exec(f);
}

// Elements of a view's storage the view reaches.
int64_t reach(const eval::View& v) {
  int64_t last = v.offset;
  for (size_t d = 0; d < v.shape.size(); ++d) {
    if (v.shape[d] == 0) return 0;
    last += (v.shape[d] - 1) * v.strides[d];
  }
  return last + 1;
}

// Runs a callee with its buffers viewing the storage the handles point at,
// whatever their element type (like C pointers).
void run_on_handles(const eval::Program& p, const std::vector<eval::KernelArg>& args,
                    const std::string& call, const std::string& callee,
                    eval::RaceChecker* checker) {
  if (args.size() != p.params.size())
    throw Error(call + ": passes " + std::to_string(args.size()) + " argument(s) but '" + callee +
                "' has " + std::to_string(p.params.size()) + " parameter(s)");
  eval::Frame f = new_frame(p);
  f.checker = checker;
  for (size_t i = 0; i < args.size(); ++i)
    if (!p.params[i].is_buffer)
      bind_param(f, p.params[i], Argument{nullptr, args[i].int_value, args[i].float_value});
  for (size_t i = 0; i < args.size(); ++i) {
    const eval::ParamBinding& pb = p.params[i];
    if (!pb.is_buffer) continue;
    std::string what = call + ": argument " + std::to_string(i + 1) + " (parameter " + pb.name +
                       " of '" + callee + "')";
    if (!pb.shape_vars.empty()) throw Error(what + " has a symbolic shape");
    const eval::StorageRef& h = args[i].handle;
    if (!h.data) throw Error(what + " is a null handle");
    for (int slot : pb.handle_slots) f.handles[slot] = h;
    for (const eval::ViewBinder* b : pb.views) b->bind(f);
    const eval::View& v = f.views[pb.views.front()->view];
    int64_t need = reach(v) * pb.dtype.bytes();
    if (static_cast<uint64_t>(need) > h.bytes)
      throw Error(what + ": a " + pb.dtype.str() + " buffer of shape " + shape_str(v.shape) +
                  " needs " + std::to_string(need) + " bytes but the handle points at " +
                  std::to_string(h.bytes));
  }
  p.body->exec(f);
}

// Runs `run(checker)` with the checker `options` ask for (null when none).
template <class Run>
void with_checker(const RunOptions& options, Run run) {
  if (!options.checking()) return run(nullptr);
  eval::RaceChecker checker(options.check_races, options.check_vectorized, options.shuffle_parallel,
                            options.shuffle_seed);
  checker.race_out = options.race;
  run(&checker);
}

// run_module's view of the module: constants and functions, each function
// compiled once per run_module call (and once more for checking mode).
class ModuleRunner final : public eval::ModuleLink {
 public:
  explicit ModuleRunner(const IRModule& m, const KernelHook* hook = nullptr) : m_(m), hook_(hook) {}

  const eval::NDArrayBytes& constant(const std::string& name) const override {
    if (auto it = constants_.find(name); it != constants_.end()) return it->second;
    const NDArray* a = m_.find_constant(name);
    if (!a) throw Error("interpreter: no constant named '" + name + "' in the module");
    eval::NDArrayBytes bytes{a->data(), a->num_bytes(), a->dtype(), a->num_elements()};
    return constants_.emplace(name, bytes).first->second;
  }

  const eval::Program& program(const std::string& name, bool checking) const {
    auto key = std::make_pair(name, checking);
    if (auto it = programs_.find(key); it != programs_.end()) return *it->second;
    const PrimFunc& f = m_.at(name);
    auto p = eval::compile_program(f, this, checking);
    return *programs_.emplace(key, std::move(p)).first->second;
  }

  void call(const std::string& callee, const std::vector<eval::KernelArg>& args,
            const std::string& call, eval::RaceChecker* checker) const override {
    if (!m_.find(callee)) throw Error(call + ": no function named '" + callee + "' in the module");
    if (hook_) {
      std::vector<KernelCallArg> hooked;
      for (const eval::KernelArg& a : args)
        hooked.push_back({a.handle.data, a.handle.bytes, a.int_value, a.float_value});
      (*hook_)(callee, hooked);
      return;
    }
    if (depth_ >= kMaxDepth)
      throw Error(call + ": calls nest deeper than " + std::to_string(kMaxDepth) + " (recursion?)");
    const eval::Program& p = program(callee, checker != nullptr);
    ++depth_;
    try {
      run_on_handles(p, args, call, callee, checker);
    } catch (const Error& e) {
      --depth_;
      // Name the call: the kernel's own message says what went wrong inside it.
      if (e.message().rfind(call, 0) == 0) throw;
      throw Error(call + ": " + e.message(), e.loc());
    } catch (...) {
      --depth_;
      throw;
    }
    --depth_;
  }

 private:
  static constexpr int kMaxDepth = 64;
  const IRModule& m_;
  const KernelHook* hook_ = nullptr;
  mutable std::map<std::string, eval::NDArrayBytes> constants_;
  mutable std::map<std::pair<std::string, bool>, std::unique_ptr<eval::Program>> programs_;
  mutable int depth_ = 0;
};

}  // namespace

void run_module(const IRModule& m, std::string_view name, const std::vector<Argument>& args,
                const RunOptions& options) {
  CompiledModule(m).run(name, args, options);
}

void run_module_with_hook(const IRModule& m, std::string_view name,
                          const std::vector<Argument>& args, const KernelHook& hook) {
  ModuleRunner runner(m, &hook);
  run_program(runner.program(std::string(name), false), args, nullptr);
}

CompiledModule::CompiledModule(const IRModule& m) : runner_(std::make_unique<ModuleRunner>(m)) {}
CompiledModule::~CompiledModule() = default;
CompiledModule::CompiledModule(CompiledModule&&) noexcept = default;
CompiledModule& CompiledModule::operator=(CompiledModule&&) noexcept = default;

void CompiledModule::run(std::string_view name, const std::vector<Argument>& args,
                         const RunOptions& options) const {
  auto& runner = static_cast<const ModuleRunner&>(*runner_);
  const eval::Program& p = runner.program(std::string(name), options.checking());
  with_checker(options, [&](eval::RaceChecker* checker) { run_program(p, args, checker); });
}

bool needs_module(const PrimFunc& f) {
  struct Finder : StmtVisitor {
    bool found = false;
    void visit_allocate_const(const AllocateConstNode*) override { found = true; }
    void visit_call(const CallNode* n) override {
      if (n->op == kCallKernel) found = true;
      StmtVisitor::visit_call(n);
    }
  } finder;
  if (f && f->body) finder.visit(f->body);
  return finder.found;
}

CompiledFunc::CompiledFunc(const PrimFunc& f) : func_(f), program_(eval::compile_program(f)) {}
CompiledFunc::~CompiledFunc() = default;
CompiledFunc::CompiledFunc(CompiledFunc&&) noexcept = default;
CompiledFunc& CompiledFunc::operator=(CompiledFunc&&) noexcept = default;

void CompiledFunc::run(const std::vector<Argument>& args, const RunOptions& options) const {
  if (!options.checking()) return run_program(*program_, args, nullptr);
  if (!checked_) checked_ = eval::compile_program(func_, nullptr, true);
  with_checker(options, [&](eval::RaceChecker* checker) { run_program(*checked_, args, checker); });
}

void run(const PrimFunc& f, const std::vector<Argument>& args, const RunOptions& options) {
  if (!options.checking()) return CompiledFunc(f).run(args);
  // Only the checking-mode program is needed.
  auto p = eval::compile_program(f, nullptr, true);
  with_checker(options, [&](eval::RaceChecker* checker) { run_program(*p, args, checker); });
}

}  // namespace tirc
