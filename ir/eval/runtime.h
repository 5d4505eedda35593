// The interpreter's executable form: a PrimFunc compiled once into a tree of
// small typed nodes whose variables and buffers are resolved to slots of a
// Frame, so running it does no map lookups and no shared_ptr traffic.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "ir/dtype.h"
#include "ir/error.h"
#include "ir/eval/race.h"

namespace tirc::eval {

// A module constant as the interpreter sees it.
struct NDArrayBytes {
  const uint8_t* data = nullptr;
  size_t bytes = 0;
  DataType dtype;
  int64_t elements = 0;
};

// Where an access or operation sits in the source program, for diagnostics.
struct Where {
  std::string block;  // innermost enclosing block; empty at function level
  SourceLoc loc;
  std::string describe() const;  // " in block \"C\"" or ""
};

// A buffer as seen at run time: its storage and concrete layout.
struct View {
  uint8_t* base = nullptr;
  int64_t storage_elems = 0;  // elements of this view's dtype the storage holds
  int64_t offset = 0;
  std::vector<int64_t> shape, strides;
  bool bound = false;
  bool read_only = false;  // over a module constant (T.allocate_const)
  size_t storage_bytes = 0;
};

// A handle's value: where its storage starts and how many bytes follow (a
// T.address_of points into the middle of some storage).
struct StorageRef {
  uint8_t* data = nullptr;
  size_t bytes = 0;
  bool read_only = false;
};

// Mutable state of one run. Slots are assigned at compile time.
struct Frame {
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::vector<StorageRef> handles;
  std::vector<View> views;
  std::vector<std::vector<uint8_t>> owned;  // storage of each allocation site
  RaceChecker* checker = nullptr;           // in checking mode only (see race.h)
};

// An expression of integer or bool type; `lane` selects the lane of a vector
// expression and is ignored by scalar ones.
struct IExpr {
  virtual ~IExpr() = default;
  virtual int64_t eval(Frame& f, int lane) const = 0;
};
// An expression of float type; results are already rounded to its dtype.
struct FExpr {
  virtual ~FExpr() = default;
  virtual double eval(Frame& f, int lane) const = 0;
};
struct CStmt {
  virtual ~CStmt() = default;
  virtual void exec(Frame& f) const = 0;
};
using IExprPtr = std::unique_ptr<IExpr>;
using FExprPtr = std::unique_ptr<FExpr>;
using CStmtPtr = std::unique_ptr<CStmt>;

// A load or store site: which view, the element type, the indices.
struct Access {
  int view = 0;
  DataType elem;
  std::string buffer_name;
  // Scope "shared": each GPU block has its own, so iterations of a blockIdx
  // loop never meet on it (schedule/iteration_conflict.h says why that holds).
  bool gpu_block_own = false;
  std::vector<IExprPtr> indices;
  const Where* where = nullptr;
  bool is_store = false;

  // Address of the element at `lane`, bounds-checked.
  uint8_t* address(Frame& f, int lane) const {
    View& v = f.views[view];
    if (!v.bound) [[unlikely]]
      unbound(f);
    int64_t flat = v.offset;
    const size_t n = indices.size();
    for (size_t d = 0; d < n; ++d) {
      int64_t i = indices[d]->eval(f, lane);
      if (i < 0 || i >= v.shape[d]) [[unlikely]]
        out_of_bounds(f, lane);
      flat += i * v.strides[d];
    }
    if (flat < 0 || flat >= v.storage_elems) [[unlikely]]
      out_of_bounds(f, lane);
    if (is_store && v.read_only) [[unlikely]]
      read_only_store(f, lane);
    return v.base + flat * elem.bytes();
  }

  // address(), and in a program compiled for checking mode (`Checked`), the
  // access noted by the race checker. A template so the normal program pays
  // nothing for the mode.
  template <bool Checked>
  uint8_t* at(Frame& f, int lane) const {
    uint8_t* p = address(f, lane);
    if constexpr (Checked) f.checker->note(*this, f, lane, p, is_store);
    return p;
  }

  // "C[1, 2]": the element at `lane`, for diagnostics.
  std::string element(Frame& f, int lane) const;

  [[noreturn]] void out_of_bounds(Frame& f, int lane) const;
  [[noreturn]] void read_only_store(Frame& f, int lane) const;
  [[noreturn]] void unbound(Frame& f) const;
};

// Computes a buffer's View from its expressions when its scope is entered.
struct ViewBinder {
  int view = 0;
  int handle = 0;  // the slot of the buffer's data variable
  std::string name;
  DataType dtype;
  std::vector<IExprPtr> shape, strides;
  IExprPtr elem_offset;  // null means 0

  void bind(Frame& f) const;
};

// Fills `bytes` with a value that shows up when read before written: NaN for
// floats, 0xA5 bytes otherwise.
void poison(std::vector<uint8_t>& bytes, DataType t);

struct ParamBinding {
  std::string name;
  bool is_buffer = false;
  DataType dtype;
  int slot = -1;  // scalar: int or float slot
  bool scalar_is_float = false;
  std::vector<int> handle_slots;  // buffer: Param.var and buffer->data
  std::vector<IExprPtr> shape;    // buffer: expected shape (after shape_vars are bound)
  std::vector<std::pair<int, int>> shape_vars;   // (dim, int slot) bound from the argument
  std::vector<std::pair<int, int>> stride_vars;  // (dim, int slot): the argument's compact stride
  std::vector<const ViewBinder*> views;          // owned by the Program
};

// An expression of handle type (a T.call_kernel argument): a handle variable
// or T.address_of(buf[i]).
struct HExpr {
  virtual ~HExpr() = default;
  virtual StorageRef eval(Frame& f) const = 0;
};
using HExprPtr = std::unique_ptr<HExpr>;

// One evaluated T.call_kernel argument: a handle for a buffer parameter, a
// scalar otherwise.
struct KernelArg {
  StorageRef handle;
  int64_t int_value = 0;
  double float_value = 0;
};

// What a function compiled for run_module reaches outside itself: the module's
// constants and the other functions. Implemented by run_module.
class ModuleLink {
 public:
  virtual ~ModuleLink() = default;
  // The constant's bytes; Error naming it when absent.
  virtual const NDArrayBytes& constant(const std::string& name) const = 0;
  // Runs `callee` with one argument per parameter; errors name `call`
  // ("call_kernel \"dense\"" and where it is). A caller in checking mode
  // passes its checker, so the callee's accesses count in the caller's loops.
  virtual void call(const std::string& callee, const std::vector<KernelArg>& args,
                    const std::string& call, RaceChecker* checker) const = 0;
};

struct Program {
  std::deque<Where> wheres;
  std::vector<std::unique_ptr<ViewBinder>> binders;
  std::vector<ParamBinding> params;
  CStmtPtr body;
  int num_ints = 0, num_floats = 0, num_handles = 0, num_views = 0, num_sites = 0;
};

}  // namespace tirc::eval
