#include "ir/function.h"

namespace tirc {

PrimFunc make_prim_func(std::vector<Param> params, Stmt body, Annotations attrs) {
  auto f = std::make_shared<PrimFuncNode>();
  f->params = std::move(params);
  f->body = std::move(body);
  f->attrs = std::move(attrs);
  return f;
}

PrimFunc with_body(const PrimFunc& f, Stmt body) {
  auto n = std::make_shared<PrimFuncNode>(*f);
  n->body = std::move(body);
  return n;
}

void IRModule::add(std::string name, PrimFunc func) {
  for (auto& [n, f] : funcs_)
    if (n == name) {
      f = std::move(func);
      return;
    }
  funcs_.emplace_back(std::move(name), std::move(func));
}

const PrimFunc* IRModule::find(std::string_view name) const {
  for (auto& [n, f] : funcs_)
    if (n == name) return &f;
  return nullptr;
}

const PrimFunc& IRModule::at(std::string_view name) const {
  if (auto* f = find(name)) return *f;
  throw Error("no function named '" + std::string(name) + "' in the module");
}

void IRModule::add_constant(std::string name, std::shared_ptr<const NDArray> value) {
  constants_[std::move(name)] = std::move(value);
}

const NDArray* IRModule::find_constant(std::string_view name) const {
  auto it = constants_.find(name);
  return it == constants_.end() ? nullptr : it->second.get();
}

Expr make_call_kernel(std::string callee, std::vector<Expr> args) {
  args.insert(args.begin(), make_string(std::move(callee)));
  return make_call(DataType::int32(), kCallKernel, std::move(args));
}

const BufferLoadNode* address_of_element(const Expr& e) {
  auto* c = e ? e.as<CallNode>() : nullptr;
  return c && c->op == kAddressOf && c->args.size() == 1 ? c->args[0].as<BufferLoadNode>()
                                                         : nullptr;
}

const std::string* call_kernel_callee(const Expr& e) {
  auto* c = e.as<CallNode>();
  if (!c || c->op != kCallKernel || c->args.empty()) return nullptr;
  auto* s = c->args[0].as<StringImmNode>();
  return s ? &s->value : nullptr;
}

bool has_noalias_params(const PrimFunc& f) {
  auto it = f->attrs.find("tir.noalias");
  return it != f->attrs.end() && it->second && is_const_int(it->second, 1);
}

bool is_entry(const PrimFunc& f) {
  auto it = f->attrs.find(kEntryAttr);
  if (it == f->attrs.end()) return false;
  auto* v = it->second.as<IntImmNode>();
  return v && v->value != 0;
}

std::optional<int64_t> entry_num_inputs(const PrimFunc& f) {
  auto it = f->attrs.find(kNumInputsAttr);
  if (it == f->attrs.end()) return std::nullopt;
  auto* v = it->second.as<IntImmNode>();
  return v ? std::optional<int64_t>(v->value) : std::nullopt;
}

namespace {

// The text between separators: "a;b;" -> {"a", "b", ""}.
std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string::npos ? end : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return parts;
}

// The string attribute `key` split at ';'; empty when absent.
std::vector<std::string> entry_string_list(const PrimFunc& f, const char* key) {
  auto it = f->attrs.find(key);
  if (it == f->attrs.end()) return {};
  auto* s = it->second.as<StringImmNode>();
  if (!s) throw Error(std::string(key) + " must be a string");
  return split(s->value, ';');
}

}  // namespace

std::vector<std::string> entry_io_names(const PrimFunc& f) {
  return entry_string_list(f, kIoNamesAttr);
}

std::vector<std::vector<std::string>> entry_io_dims(const PrimFunc& f) {
  std::vector<std::vector<std::string>> dims;
  for (const std::string& param : entry_string_list(f, kIoDimsAttr))
    dims.push_back(param.empty() ? std::vector<std::string>{} : split(param, ','));
  return dims;
}

std::vector<int64_t> constant_shape(const Buffer& b, const std::string& func) {
  std::vector<int64_t> shape;
  for (const Expr& e : b->shape) {
    auto* c = e.as<IntImmNode>();
    if (!c) throw Error("parameter '" + b->name + "' of '" + func + "' has a symbolic shape");
    shape.push_back(c->value);
  }
  return shape;
}

std::vector<NDArray> entry_output_arrays(const PrimFunc& f, size_t num_inputs,
                                         const std::string& name) {
  std::vector<NDArray> outputs;
  for (size_t i = num_inputs; i < f->params.size(); ++i) {
    const Buffer& b = f->params[i].buffer;
    outputs.emplace_back(b->dtype, constant_shape(b, name));
  }
  return outputs;
}

}  // namespace tirc
