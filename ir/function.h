// PrimFunc (one kernel) and IRModule (named functions).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <map>
#include <memory>
#include <optional>

#include "ir/ndarray.h"
#include "ir/stmt.h"

namespace tirc {

// A parameter: a buffer (passed as a pointer) or a scalar variable.
struct Param {
  Var var;        // the handle variable for a buffer; the scalar itself otherwise
  Buffer buffer;  // null for a scalar parameter
};

struct PrimFuncNode {
  std::vector<Param> params;
  Stmt body;
  Annotations attrs;  // T.func_attr({...})
};
using PrimFunc = std::shared_ptr<const PrimFuncNode>;

PrimFunc make_prim_func(std::vector<Param> params, Stmt body, Annotations attrs = {});
// A copy of f with another body (attrs and params kept).
PrimFunc with_body(const PrimFunc& f, Stmt body);

// A call from one function of a module to another, as an expression statement
// `T.call_kernel("callee", arg, ...)`: Call(int32, kCallKernel, [StringImm callee,
// args...]) inside an Evaluate. One argument per callee parameter: a handle for a
// buffer parameter (a buffer's data var, an allocate/allocate_const var, or
// `T.address_of(buf[i])`), a value for a scalar parameter. The callee's buffers
// view the storage the handles point at.
inline constexpr const char* kCallKernel = "call_kernel";
Expr make_call_kernel(std::string callee, std::vector<Expr> args);
// The callee's name when e is a call_kernel, else nullptr.
const std::string* call_kernel_callee(const Expr& e);

// `T.address_of(buf[i, ...])`: Call(handle, kAddressOf, [BufferLoad]); the address
// of one element, a handle into the same storage.
inline constexpr const char* kAddressOf = "address_of";
// The buf[i, ...] of `T.address_of(buf[i, ...])`, else null.
const BufferLoadNode* address_of_element(const Expr& e);

// The function attribute that marks a model's entry function (T.func_attr
// {"tirc.entry": True}): it calls the kernels in order, owns the intermediate
// storage and binds the weights; its parameters are the model's inputs then outputs.
inline constexpr const char* kEntryAttr = "tirc.entry";
bool is_entry(const PrimFunc& f);
// TVM's "tir.noalias": True: the function's buffer parameters never overlap,
// so code generators may mark their pointers restrict / noalias.
bool has_noalias_params(const PrimFunc& f);
// The entry's other attributes: "tirc.num_inputs" (its leading parameters that
// are inputs) and "tirc.io_names" (';'-separated ONNX names in parameter order).
inline constexpr const char* kNumInputsAttr = "tirc.num_inputs";
inline constexpr const char* kIoNamesAttr = "tirc.io_names";
// The attribute when present and an integer, else nullopt.
std::optional<int64_t> entry_num_inputs(const PrimFunc& f);
// The names when the attribute is present (empty when absent); a present
// attribute that is not a string is an Error.
std::vector<std::string> entry_io_names(const PrimFunc& f);
// Present when the model's inputs had symbolic dimensions that were bound
// (ir/onnx/bind_dims.h): "tirc.io_dims", per parameter (';'-separated, in
// parameter order) its dimensions as declared (','-separated): a number for a
// static one, the dim_param, or "?" for an anonymous one; "batch,seq,32;batch,seq,16".
inline constexpr const char* kIoDimsAttr = "tirc.io_dims";
// Per parameter, its declared dimensions; empty when the attribute is absent.
// A present attribute that is not a string is an Error.
std::vector<std::vector<std::string>> entry_io_dims(const PrimFunc& f);

// The extents of buffer parameter b of the function named `func`; a symbolic
// extent is an Error naming both.
std::vector<int64_t> constant_shape(const Buffer& b, const std::string& func);
// One zero-filled NDArray per parameter of f after its first `num_inputs`: the
// arrays a model's entry writes its outputs to. Those parameters must be
// buffers; their shapes are constant_shape's (f is `name` in its module).
std::vector<NDArray> entry_output_arrays(const PrimFunc& f, size_t num_inputs,
                                         const std::string& name);

// Functions in the order they were added; names are unique.
class IRModule {
 public:
  void add(std::string name, PrimFunc func);  // replaces an existing function of that name
  const PrimFunc* find(std::string_view name) const;
  const PrimFunc& at(std::string_view name) const;  // throws Error when absent
  const std::vector<std::pair<std::string, PrimFunc>>& functions() const { return funcs_; }
  size_t size() const { return funcs_.size(); }
  bool empty() const { return funcs_.empty(); }

  // Named constant tensors (a model's weights) that AllocateConst statements bind.
  // Shared, never mutated: copies of a module share the bytes.
  void add_constant(std::string name, std::shared_ptr<const NDArray> value);  // replaces
  const NDArray* find_constant(std::string_view name) const;
  const std::map<std::string, std::shared_ptr<const NDArray>, std::less<>>& constants() const {
    return constants_;
  }

  // Module attributes (`I.module_attrs({...})`). "tirc.constants": the side file,
  // relative to the text file, that holds the constants (ir/text/constants_file.h).
  Annotations attrs;

 private:
  std::vector<std::pair<std::string, PrimFunc>> funcs_;
  std::map<std::string, std::shared_ptr<const NDArray>, std::less<>> constants_;
};

}  // namespace tirc
