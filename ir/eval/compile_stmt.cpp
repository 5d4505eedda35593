// Statements, blocks and scopes of storage.
#include <algorithm>
#include <cstring>

#include "ir/eval/compile.h"
#include "ir/eval/numeric.h"
#include "ir/intrinsic.h"

namespace tirc::eval {

namespace {

// Elements a view reaches: the storage it needs.
int64_t required_elems(const View& v) {
  int64_t last = v.offset;
  for (size_t d = 0; d < v.shape.size(); ++d) {
    if (v.shape[d] == 0) return 0;
    last += (v.shape[d] - 1) * v.strides[d];
  }
  return last + 1;
}

// Storage of one allocation site, poisoned, bound to a handle slot.
void allocate(Frame& f, int site, int handle, size_t bytes, DataType t) {
  std::vector<uint8_t>& storage = f.owned[site];
  storage.resize(bytes);
  poison(storage, t);
  f.handles[handle] = StorageRef{storage.data(), storage.size()};
  if (f.checker) f.checker->allocated(storage.data(), storage.size());
}

// The end of an allocation's scope (see RaceChecker::allocated).
void release(Frame& f, int site) {
  if (f.checker) f.checker->released(f.owned[site].data());
}

void bind_all(Frame& f, const std::vector<const ViewBinder*>& binders) {
  for (const ViewBinder* b : binders) b->bind(f);
}
void unbind_all(Frame& f, const std::vector<const ViewBinder*>& binders) {
  for (const ViewBinder* b : binders) f.views[b->view].bound = false;
}

struct SSeq final : CStmt {
  std::vector<CStmtPtr> seq;
  void exec(Frame& f) const override {
    for (const CStmtPtr& s : seq) s->exec(f);
  }
};

struct SFor final : CStmt {
  int slot;
  IExprPtr min, extent;
  CStmtPtr body;
  void exec(Frame& f) const override {
    const int64_t lo = min->eval(f, 0), hi = lo + extent->eval(f, 0);
    for (int64_t i = lo; i < hi; ++i) {
      f.ints[slot] = i;
      body->exec(f);
    }
  }
};

// Stores; `Checked` ones (checking mode) also tell the race checker.
template <bool Checked>
struct SStoreInt final : CStmt {
  Access access;
  int lanes;
  IExprPtr value;
  void exec(Frame& f) const override {
    for (int l = 0; l < lanes; ++l) {
      int64_t v = value->eval(f, l);
      numeric::store_int(access.elem, access.at<Checked>(f, l), v);
    }
  }
};

template <bool Checked>
struct SStoreFloat final : CStmt {
  Access access;
  int lanes;
  FExprPtr value;
  void exec(Frame& f) const override {
    for (int l = 0; l < lanes; ++l) {
      double v = value->eval(f, l);
      numeric::store_float(access.elem, access.at<Checked>(f, l), v);
    }
  }
};

template <bool Checked>
struct SStoreF32 final : CStmt {
  Access access;
  FExprPtr value;
  void exec(Frame& f) const override {
    float v = static_cast<float>(value->eval(f, 0));
    std::memcpy(access.at<Checked>(f, 0), &v, 4);
  }
};

// A loop whose iterations may run in any order or at once (parallel,
// vectorized, thread-bound), in checking mode: run through the race checker,
// which records each iteration's accesses and may permute the order.
struct SForChecked final : CStmt {
  int slot;
  IExprPtr min, extent;
  CStmtPtr body;
  CheckedLoop loop;
  void exec(Frame& f) const override {
    const int64_t lo = min->eval(f, 0);
    std::vector<int64_t> order;
    f.checker->enter(loop, extent->eval(f, 0), order);
    for (int64_t k : order) {
      f.ints[slot] = lo + k;
      f.checker->iteration(lo + k);
      body->exec(f);
    }
    f.checker->leave();
  }
};

struct SIf final : CStmt {
  IExprPtr cond;
  CStmtPtr then_case, else_case;
  void exec(Frame& f) const override {
    if (cond->eval(f, 0))
      then_case->exec(f);
    else if (else_case)
      else_case->exec(f);
  }
};

struct SLetInt final : CStmt {
  int slot, lanes;
  IExprPtr value;
  CStmtPtr body;
  void exec(Frame& f) const override {
    for (int l = 0; l < lanes; ++l) f.ints[slot + l] = value->eval(f, l);
    body->exec(f);
  }
};
struct SLetFloat final : CStmt {
  int slot, lanes;
  FExprPtr value;
  CStmtPtr body;
  void exec(Frame& f) const override {
    for (int l = 0; l < lanes; ++l) f.floats[slot + l] = value->eval(f, l);
    body->exec(f);
  }
};
struct SLetHandle final : CStmt {
  int slot, from;
  CStmtPtr body;
  void exec(Frame& f) const override {
    f.handles[slot] = f.handles[from];
    body->exec(f);
  }
};

struct SEvaluate final : CStmt {
  int lanes;
  IExprPtr ivalue;
  FExprPtr fvalue;
  void exec(Frame& f) const override {
    for (int l = 0; l < lanes; ++l) {
      if (ivalue) ivalue->eval(f, l);
      if (fvalue) fvalue->eval(f, l);
    }
  }
};

struct SAllocate final : CStmt {
  int handle, site;
  DataType dtype;
  std::vector<IExprPtr> extents;
  std::vector<const ViewBinder*> views;
  CStmtPtr body;
  void exec(Frame& f) const override {
    int64_t n = dtype.lanes();
    for (const IExprPtr& e : extents) {
      int64_t x = e->eval(f, 0);
      if (x < 0) throw Error("allocation with negative extent " + std::to_string(x));
      n *= x;
    }
    const StorageRef saved = f.handles[handle];
    allocate(f, site, handle, static_cast<size_t>(n) * static_cast<size_t>(dtype.bytes()), dtype);
    bind_all(f, views);
    body->exec(f);
    unbind_all(f, views);
    release(f, site);
    f.handles[handle] = saved;
  }
};

// Binds a handle to a module constant's bytes, read-only.
struct SAllocateConst final : CStmt {
  int handle;
  StorageRef storage;
  std::vector<const ViewBinder*> views;
  CStmtPtr body;
  void exec(Frame& f) const override {
    const StorageRef saved = f.handles[handle];
    f.handles[handle] = storage;
    bind_all(f, views);
    body->exec(f);
    unbind_all(f, views);
    f.handles[handle] = saved;
  }
};

struct SCallKernel final : CStmt {
  const ModuleLink* link;
  std::string callee, call;  // call: "call_kernel \"dense\"" with its location
  struct Arg {
    HExprPtr handle;
    IExprPtr ivalue;
    FExprPtr fvalue;
  };
  std::vector<Arg> args;
  void exec(Frame& f) const override {
    std::vector<KernelArg> values(args.size());
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i].handle) values[i].handle = args[i].handle->eval(f);
      if (args[i].ivalue) values[i].int_value = args[i].ivalue->eval(f, 0);
      if (args[i].fvalue) values[i].float_value = args[i].fvalue->eval(f, 0);
    }
    link->call(callee, values, call, f.checker);
  }
};

// Storage for a buffer declared with its own storage (block alloc_buffers,
// DeclBuffer over an unbound variable): sized from the buffer's layout.
struct OwnedBuffer {
  int site = 0;
  const ViewBinder* binder = nullptr;
  std::vector<const ViewBinder*> aliases;  // other buffers over the same storage

  void enter(Frame& f) const {
    f.handles[binder->handle] = StorageRef{};
    binder->bind(f);
    int64_t n = required_elems(f.views[binder->view]);
    allocate(f, site, binder->handle,
             static_cast<size_t>(n) * static_cast<size_t>(binder->dtype.bytes()), binder->dtype);
    binder->bind(f);
    bind_all(f, aliases);
  }
  void leave(Frame& f) const {
    f.views[binder->view].bound = false;
    unbind_all(f, aliases);
    release(f, site);
  }
};

struct SDeclBuffer final : CStmt {
  const ViewBinder* view = nullptr;    // over existing storage
  std::unique_ptr<OwnedBuffer> owned;  // or with its own
  CStmtPtr body;
  void exec(Frame& f) const override {
    if (owned)
      owned->enter(f);
    else
      view->bind(f);
    body->exec(f);
    if (owned)
      owned->leave(f);
    else
      f.views[view->view].bound = false;
  }
};

struct MatchBind {
  int view = 0, source = 0;
  std::string name, source_name;
  std::vector<IExprPtr> region_min, region_extent, shape;
  std::vector<int> stride_slots;  // int slots of stride variables to bind, -1 if none
  int offset_slot = -1;

  void bind(Frame& f, const Where* where) const {
    const View& src = f.views[source];
    if (!src.bound)
      throw Error("match_buffer source " + source_name + " is not bound" + where->describe(),
                  where->loc);
    View& v = f.views[view];
    int64_t offset = src.offset;
    for (size_t d = 0; d < region_min.size(); ++d) {
      int64_t lo = region_min[d]->eval(f, 0), ext = region_extent[d]->eval(f, 0);
      if (lo < 0 || ext < 0 || lo + ext > src.shape[d])
        throw Error("match_buffer " + name + ": region [" + std::to_string(lo) + ", " +
                        std::to_string(lo + ext) + ") of dimension " + std::to_string(d) + " of " +
                        source_name + " is out of bounds" + where->describe(),
                    where->loc);
      offset += lo * src.strides[d];
    }
    const size_t skip = src.strides.size() - shape.size();
    v.base = src.base;
    v.storage_elems = src.storage_elems;
    v.offset = offset;
    v.shape.resize(shape.size());
    v.strides.assign(src.strides.begin() + static_cast<std::ptrdiff_t>(skip), src.strides.end());
    for (size_t d = 0; d < shape.size(); ++d) {
      v.shape[d] = shape[d]->eval(f, 0);
      if (stride_slots[d] >= 0) f.ints[stride_slots[d]] = v.strides[d];
    }
    if (offset_slot >= 0) f.ints[offset_slot] = offset;
    v.bound = true;
  }
};

struct SBlockRealize final : CStmt {
  const Where* where = nullptr;
  IExprPtr predicate;  // null when always true
  struct Iter {
    std::string name;
    int slot;
    IExprPtr value, min, extent;  // min/extent null when constant
    int64_t const_min = 0, const_extent = 0;
    bool reduce;
  };
  std::vector<Iter> iters;
  std::vector<std::unique_ptr<OwnedBuffer>> allocs;
  std::vector<MatchBind> matches;
  CStmtPtr init, body;

  void exec(Frame& f) const override {
    if (predicate && !predicate->eval(f, 0)) return;
    bool first_reduction_step = true;
    for (const Iter& it : iters) {
      const int64_t v = it.value->eval(f, 0);
      const int64_t lo = it.min ? it.min->eval(f, 0) : it.const_min;
      const int64_t ext = it.extent ? it.extent->eval(f, 0) : it.const_extent;
      if (v < lo || v >= lo + ext) [[unlikely]]
        throw Error("block \"" + where->block + "\": iter var " + it.name + " = " +
                        std::to_string(v) + " is outside its domain [" + std::to_string(lo) + ", " +
                        std::to_string(lo + ext) + ")",
                    where->loc);
      f.ints[it.slot] = v;
      if (it.reduce && v != lo) first_reduction_step = false;
    }
    for (const auto& a : allocs) a->enter(f);
    for (const MatchBind& m : matches) m.bind(f, where);
    if (init && first_reduction_step) init->exec(f);
    body->exec(f);
    for (const MatchBind& m : matches) f.views[m.view].bound = false;
    for (const auto& a : allocs) a->leave(f);
  }
};

class StmtCompiler {
 public:
  explicit StmtCompiler(CompileContext& cx) : cx_(cx) {}

  CStmtPtr compile(const Stmt& s) {
    if (!s) return std::make_unique<SSeq>();
    const Where* saved = cx_.where();
    if (s->loc.known()) cx_.set_where(cx_.push_where(saved ? saved->block : "", s->loc));
    CStmtPtr result = dispatch(s);
    cx_.set_where(saved);
    return result;
  }

 private:
  CStmtPtr dispatch(const Stmt& s) {
    switch (s.kind()) {
      case StmtKind::BufferStore:
        return store(*s.as<BufferStoreNode>());
      case StmtKind::For:
        return loop(*s.as<ForNode>());
      case StmtKind::Block: {
        auto* b = s.as<BlockNode>();
        if (!b->iter_vars.empty())
          throw Error("interpreter: block \"" + b->name + "\" appears without a BlockRealize",
                      s->loc);
        return block(*b, {}, {}, s->loc);
      }
      case StmtKind::BlockRealize: {
        auto* r = s.as<BlockRealizeNode>();
        return block(*r->block, r->iter_values, r->predicate, s->loc);
      }
      case StmtKind::Seq: {
        auto n = std::make_unique<SSeq>();
        for (const Stmt& c : s.as<SeqStmtNode>()->seq) n->seq.push_back(compile(c));
        return n;
      }
      case StmtKind::IfThenElse: {
        auto* i = s.as<IfThenElseNode>();
        auto n = std::make_unique<SIf>();
        n->cond = compile_int(cx_, i->cond);
        n->then_case = compile(i->then_case);
        if (i->else_case) n->else_case = compile(i->else_case);
        return n;
      }
      case StmtKind::LetStmt:
        return let(*s.as<LetStmtNode>());
      case StmtKind::Evaluate:
        return evaluate(*s.as<EvaluateNode>());
      case StmtKind::Allocate:
        return allocate_stmt(*s.as<AllocateNode>());
      case StmtKind::DeclBuffer:
        return decl_buffer(*s.as<DeclBufferNode>());
      case StmtKind::AllocateConst:
        return allocate_const(*s.as<AllocateConstNode>());
    }
    throw Error("interpreter: unknown statement kind", s->loc);
  }

  CStmtPtr store(const BufferStoreNode& s) {
    const Buffer& b = s.buffer;
    if (b->dtype.is_vector())
      throw Error("interpreter: buffer " + b->name + " has vector element type", s.loc);
    if (s.indices.size() != b->shape.size())
      throw Error("interpreter: buffer " + b->name + " has " + std::to_string(b->shape.size()) +
                      " dimensions but is stored with " + std::to_string(s.indices.size()) +
                      " indices",
                  s.loc);
    if (s.value.dtype().element_of() != b->dtype)
      throw Error("interpreter: store of " + s.value.dtype().str() + " into buffer " + b->name +
                      " of " + b->dtype.str(),
                  s.loc);
    Access a;
    a.view = cx_.view_for_access(b);
    a.elem = b->dtype;
    a.buffer_name = b->name;
    a.gpu_block_own = b->scope == "shared";
    a.where = cx_.where();
    a.is_store = true;
    for (const Expr& i : s.indices) a.indices.push_back(compile_int(cx_, i));
    // A scalar stored through vector indices is broadcast to every lane.
    int lanes = s.value.dtype().lanes();
    for (const Expr& i : s.indices) lanes = std::max(lanes, i.dtype().lanes());
    if (b->dtype.is_float()) {
      if (lanes == 1 && b->dtype == DataType::float32()) {
        return checked_or_not<SStoreF32>([&](auto& n) {
          n.access = std::move(a);
          n.value = compile_float(cx_, s.value);
        });
      }
      return checked_or_not<SStoreFloat>([&](auto& n) {
        n.access = std::move(a);
        n.lanes = lanes;
        n.value = compile_float(cx_, s.value);
      });
    }
    return checked_or_not<SStoreInt>([&](auto& n) {
      n.access = std::move(a);
      n.lanes = lanes;
      n.value = compile_int(cx_, s.value);
    });
  }

  // A Node<Checked> for the context's mode, filled in by `fill`.
  template <template <bool> class Node, class Fill>
  CStmtPtr checked_or_not(Fill fill) {
    if (cx_.checking) {
      auto n = std::make_unique<Node<true>>();
      fill(*n);
      return n;
    }
    auto n = std::make_unique<Node<false>>();
    fill(*n);
    return n;
  }

  static bool iterations_unordered(ForKind k) {
    return k == ForKind::Parallel || k == ForKind::Vectorized || k == ForKind::ThreadBinding;
  }

  CStmtPtr loop(const ForNode& s) {
    if (cx_.checking && iterations_unordered(s.for_kind)) {
      auto n = loop_parts<SForChecked>(s);
      n->loop = CheckedLoop{s.loop_var->name, s.for_kind, s.thread_tag, here(s.loc)};
      return n;
    }
    return loop_parts<SFor>(s);
  }

  template <class Node>
  std::unique_ptr<Node> loop_parts(const ForNode& s) {
    auto n = std::make_unique<Node>();
    n->min = compile_int(cx_, s.min);
    n->extent = compile_int(cx_, s.extent);
    const SlotInfo& slot = cx_.enter(s.loop_var);
    if (slot.kind != SlotInfo::Kind::Int || slot.lanes != 1)
      throw Error("interpreter: loop variable " + s.loop_var->name + " is not a scalar integer",
                  s.loc);
    n->slot = slot.index;
    n->body = compile(s.body);
    cx_.leave(s.loop_var);
    return n;
  }

  CStmtPtr let(const LetStmtNode& s) {
    const DataType t = s.var->dtype;
    if (t.is_handle()) {
      auto* from = s.value.as<VarNode>();
      if (!from || !from->dtype.is_handle())
        throw Error(
            "interpreter: handle let of " + s.var->name + " must bind another handle variable",
            s.loc);
      auto n = std::make_unique<SLetHandle>();
      n->from = cx_.lookup(from).index;
      n->slot = cx_.enter(s.var).index;
      n->body = compile(s.body);
      n->body = with_implicit_views(s.var, std::move(n->body));
      cx_.leave(s.var);
      return n;
    }
    if (t.is_float()) {
      auto n = std::make_unique<SLetFloat>();
      n->value = compile_float(cx_, s.value);
      const SlotInfo& slot = cx_.enter(s.var);
      n->slot = slot.index;
      n->lanes = slot.lanes;
      n->body = compile(s.body);
      cx_.leave(s.var);
      return n;
    }
    auto n = std::make_unique<SLetInt>();
    n->value = compile_int(cx_, s.value);
    const SlotInfo& slot = cx_.enter(s.var);
    n->slot = slot.index;
    n->lanes = slot.lanes;
    n->body = compile(s.body);
    cx_.leave(s.var);
    return n;
  }

  // Wraps body so views of undeclared buffers over `data` are bound first.
  CStmtPtr with_implicit_views(const Var& data, CStmtPtr body) {
    std::vector<const ViewBinder*> views = implicit_binders(data);
    if (views.empty()) return body;
    struct SBindViews final : CStmt {
      std::vector<const ViewBinder*> views;
      CStmtPtr body;
      void exec(Frame& f) const override {
        bind_all(f, views);
        body->exec(f);
        unbind_all(f, views);
      }
    };
    auto n = std::make_unique<SBindViews>();
    n->views = std::move(views);
    n->body = std::move(body);
    return n;
  }

  std::vector<const ViewBinder*> implicit_binders(const Var& data) {
    std::vector<const ViewBinder*> binders;
    for (const Buffer& b : cx_.take_implicit(data.get()))
      binders.push_back(cx_.make_binder(b, cx_.declare_view(b)));
    return binders;
  }

  SourceLoc here(const SourceLoc& loc) const {
    if (loc.known()) return loc;
    return cx_.where() ? cx_.where()->loc : SourceLoc{};
  }

  CStmtPtr call_kernel(const EvaluateNode& s, const std::string& callee) {
    if (!cx_.link)
      throw Error("interpreter: T.call_kernel(\"" + callee + "\") needs its module: use run_module",
                  here(s.loc));
    auto* c = s.value.as<CallNode>();
    auto n = std::make_unique<SCallKernel>();
    n->link = cx_.link;
    n->callee = callee;
    SourceLoc at = here(s.loc);
    n->call = "call_kernel \"" + callee + "\"";
    if (at.known())
      n->call += " at " + (at.file ? *at.file : std::string("<input>")) + ":" +
                 std::to_string(at.line) + ":" + std::to_string(at.col);
    for (size_t i = 1; i < c->args.size(); ++i) {
      const Expr& a = c->args[i];
      SCallKernel::Arg arg;
      if (a.dtype().is_handle())
        arg.handle = compile_handle(cx_, a);
      else if (a.dtype().is_float())
        arg.fvalue = compile_float(cx_, a);
      else
        arg.ivalue = compile_int(cx_, a);
      n->args.push_back(std::move(arg));
    }
    return n;
  }

  CStmtPtr allocate_const(const AllocateConstNode& s) {
    if (!cx_.link)
      throw Error("interpreter: T.allocate_const of constant '" + s.constant +
                      "' needs its module: use run_module",
                  here(s.loc));
    const NDArrayBytes& c = cx_.link->constant(s.constant);
    int64_t n_elems = 1;
    for (const Expr& e : s.extents) {
      auto v = as_const_int(e);
      if (!v || *v < 0)
        throw Error("interpreter: allocate_const " + s.buffer_var->name +
                        " needs constant non-negative extents",
                    here(s.loc));
      n_elems *= *v;
    }
    if (c.dtype != s.dtype || c.elements != n_elems)
      throw Error("interpreter: allocate_const " + s.buffer_var->name + ": constant '" +
                      s.constant + "' is " + std::to_string(c.elements) + " " + c.dtype.str() +
                      " elements, not " + std::to_string(n_elems) + " " + s.dtype.str(),
                  here(s.loc));
    auto n = std::make_unique<SAllocateConst>();
    const SlotInfo& slot = cx_.enter(s.buffer_var);
    if (slot.kind != SlotInfo::Kind::Handle)
      throw Error("interpreter: allocate_const variable " + s.buffer_var->name + " is not a handle",
                  here(s.loc));
    n->handle = slot.index;
    n->storage = StorageRef{const_cast<uint8_t*>(c.data), c.bytes, true};
    n->body = compile(s.body);
    n->views = implicit_binders(s.buffer_var);
    cx_.leave(s.buffer_var);
    return n;
  }

  CStmtPtr evaluate(const EvaluateNode& s) {
    if (const std::string* callee = call_kernel_callee(s.value)) return call_kernel(s, *callee);
    if (const Intrinsic* in = find_warp_matrix(s.value))
      return compile_warp_matrix(cx_, *s.value.as<CallNode>(), *in);
    auto n = std::make_unique<SEvaluate>();
    const DataType t = s.value.dtype();
    n->lanes = t.lanes();
    if (t.is_float())
      n->fvalue = compile_float(cx_, s.value);
    else if (t.is_integer() || t.is_bool())
      n->ivalue = compile_int(cx_, s.value);
    else if (auto* c = s.value.as<CallNode>())
      throw Error("interpreter: unknown intrinsic " + c->op + " of type " + t.str(), s.loc);
    else if (!s.value.as<StringImmNode>())
      throw Error("interpreter: cannot evaluate expression of type " + t.str(), s.loc);
    return n;
  }

  CStmtPtr allocate_stmt(const AllocateNode& s) {
    auto n = std::make_unique<SAllocate>();
    n->dtype = s.dtype;
    for (const Expr& e : s.extents) n->extents.push_back(compile_int(cx_, e));
    const SlotInfo& slot = cx_.enter(s.buffer_var);
    if (slot.kind != SlotInfo::Kind::Handle)
      throw Error("interpreter: allocated variable " + s.buffer_var->name + " is not a handle",
                  s.loc);
    n->handle = slot.index;
    n->site = cx_.new_site();
    n->body = compile(s.body);
    n->views = implicit_binders(s.buffer_var);
    cx_.leave(s.buffer_var);
    return n;
  }

  std::unique_ptr<OwnedBuffer> owned_buffer(const Buffer& b) {
    auto o = std::make_unique<OwnedBuffer>();
    o->site = cx_.new_site();
    o->binder = cx_.make_binder(b, cx_.declare_view(b));
    return o;
  }

  CStmtPtr decl_buffer(const DeclBufferNode& s) {
    const Buffer& b = s.buffer;
    auto n = std::make_unique<SDeclBuffer>();
    if (cx_.in_scope(b->data.get())) {
      n->view = cx_.make_binder(b, cx_.declare_view(b));
      n->body = compile(s.body);
      return n;
    }
    cx_.enter(b->data);
    n->owned = owned_buffer(b);
    n->body = compile(s.body);
    n->owned->aliases = implicit_binders(b->data);
    cx_.leave(b->data);
    return n;
  }

  CStmtPtr block(const BlockNode& b, const std::vector<Expr>& values, const Expr& predicate,
                 const SourceLoc& loc) {
    if (values.size() != b.iter_vars.size())
      throw Error("interpreter: block \"" + b.name + "\" has " +
                      std::to_string(b.iter_vars.size()) + " iter vars but " +
                      std::to_string(values.size()) + " values",
                  loc);
    const Where* saved = cx_.where();
    const SourceLoc& at = b.loc.known() ? b.loc
                          : loc.known() ? loc
                          : saved       ? saved->loc
                                        : SourceLoc{};
    auto n = std::make_unique<SBlockRealize>();
    // Values and the predicate belong to the enclosing scope.
    if (predicate && !is_const_int(predicate, 1)) n->predicate = compile_int(cx_, predicate);
    for (size_t k = 0; k < values.size(); ++k) {
      const IterVar& iv = b.iter_vars[k];
      SBlockRealize::Iter it;
      it.name = iv.var->name;
      it.value = compile_int(cx_, values[k]);
      auto lo = as_const_int(iv.dom.min), ext = as_const_int(iv.dom.extent);
      if (lo && ext) {
        it.const_min = *lo;
        it.const_extent = *ext;
      } else {
        it.min = compile_int(cx_, iv.dom.min);
        it.extent = compile_int(cx_, iv.dom.extent);
      }
      it.reduce = iv.kind == IterKind::Reduce;
      it.slot = 0;
      n->iters.push_back(std::move(it));
    }
    cx_.set_where(cx_.push_where(b.name, at));
    n->where = cx_.where();
    for (size_t k = 0; k < values.size(); ++k) {
      const SlotInfo& slot = cx_.enter(b.iter_vars[k].var);
      if (slot.kind != SlotInfo::Kind::Int || slot.lanes != 1)
        throw Error(
            "interpreter: iter var " + b.iter_vars[k].var->name + " is not a scalar integer", at);
      n->iters[k].slot = slot.index;
    }
    for (const Buffer& a : b.alloc_buffers) {
      cx_.enter(a->data);
      n->allocs.push_back(owned_buffer(a));
    }
    std::vector<Var> entered;
    for (const MatchBufferRegion& m : b.match_buffers) n->matches.push_back(match(m, entered));
    if (b.init) n->init = compile(b.init);
    n->body = compile(b.body);
    for (const Var& v : entered) cx_.leave(v);
    for (size_t k = 0; k < b.alloc_buffers.size(); ++k) {
      n->allocs[k]->aliases = implicit_binders(b.alloc_buffers[k]->data);
      cx_.leave(b.alloc_buffers[k]->data);
    }
    for (const IterVar& iv : b.iter_vars) cx_.leave(iv.var);
    cx_.set_where(saved);
    return n;
  }

  MatchBind match(const MatchBufferRegion& m, std::vector<Var>& entered) {
    const Buffer& b = m.buffer;
    const Buffer& src = m.source.buffer;
    const Where* w = cx_.where();
    if (b->dtype != src->dtype)
      throw Error("interpreter: match_buffer " + b->name + " has type " + b->dtype.str() +
                      " but its source " + src->name + " has " + src->dtype.str() + w->describe(),
                  w->loc);
    if (m.source.region.size() != src->shape.size() || b->shape.size() > src->shape.size())
      throw Error("interpreter: match_buffer " + b->name + " does not fit the region of " +
                      src->name + w->describe(),
                  w->loc);
    MatchBind mb;
    mb.name = b->name;
    mb.source_name = src->name;
    mb.source = cx_.view_for_access(src);
    mb.view = cx_.declare_view(b);
    for (const Range& r : m.source.region) {
      mb.region_min.push_back(compile_int(cx_, r.min));
      mb.region_extent.push_back(compile_int(cx_, r.extent));
    }
    // Symbolic strides and offset of the matched buffer take the view's values.
    auto bind_var = [&](const Expr& e) -> int {
      auto* v = e ? e.as<VarNode>() : nullptr;
      if (!v || cx_.in_scope(v)) return -1;
      Var var = std::static_pointer_cast<const VarNode>(e.ptr());
      entered.push_back(var);
      return cx_.enter(var).index;
    };
    for (size_t d = 0; d < b->shape.size(); ++d)
      mb.stride_slots.push_back(b->strides.empty() ? -1 : bind_var(b->strides[d]));
    mb.offset_slot = bind_var(b->elem_offset);
    for (const Expr& e : b->shape) mb.shape.push_back(compile_int(cx_, e));
    return mb;
  }

  CompileContext& cx_;
};

}  // namespace

CStmtPtr compile_stmt(CompileContext& cx, const Stmt& s) {
  return StmtCompiler(cx).compile(s);
}

std::unique_ptr<Program> compile_program(const PrimFunc& f, const ModuleLink* link, bool checking) {
  if (!f) throw Error("interpreter: null function");
  auto program = std::make_unique<Program>();
  CompileContext cx(*program);
  cx.link = link;
  cx.checking = checking;
  std::vector<Var> entered;
  // Scalars enter scope first so buffer shapes may refer to any of them.
  for (const Param& p : f->params)
    if (!p.buffer && p.var) {
      cx.enter(p.var);
      entered.push_back(p.var);
    }
  for (const Param& p : f->params) {
    ParamBinding pb;
    if (!p.buffer) {
      if (!p.var) throw Error("interpreter: parameter without variable or buffer");
      const SlotInfo& s = cx.lookup(p.var.get());
      if (s.kind == SlotInfo::Kind::Handle || s.lanes != 1)
        throw Error("interpreter: scalar parameter " + p.var->name + " has unsupported type " +
                    p.var->dtype.str());
      pb.name = p.var->name;
      pb.dtype = p.var->dtype;
      pb.slot = s.index;
      pb.scalar_is_float = s.kind == SlotInfo::Kind::Float;
      program->params.push_back(std::move(pb));
      continue;
    }
    const Buffer& b = p.buffer;
    pb.name = b->name;
    pb.is_buffer = true;
    pb.dtype = b->dtype;
    for (const Var& v : {p.var, b->data}) {
      if (!v || cx.in_scope(v.get())) continue;
      if (!v->dtype.is_handle())
        throw Error("interpreter: data variable of parameter " + b->name + " is not a handle");
      pb.handle_slots.push_back(cx.enter(v).index);
      entered.push_back(v);
    }
    for (size_t d = 0; d < b->shape.size(); ++d) {
      auto* v = b->shape[d].as<VarNode>();
      if (v && !cx.in_scope(v)) {
        Var var = std::static_pointer_cast<const VarNode>(b->shape[d].ptr());
        pb.shape_vars.emplace_back(static_cast<int>(d), cx.enter(var).index);
        entered.push_back(var);
      }
    }
    // A symbolic stride (T.match_buffer(h, ..., strides=(ld, 1))) takes the
    // argument's: arrays are compact, row-major.
    for (size_t d = 0; d < b->strides.size(); ++d) {
      auto* v = b->strides[d].as<VarNode>();
      if (v && !cx.in_scope(v)) {
        Var var = std::static_pointer_cast<const VarNode>(b->strides[d].ptr());
        pb.stride_vars.emplace_back(static_cast<int>(d), cx.enter(var).index);
        entered.push_back(var);
      }
    }
    for (const Expr& e : b->shape) pb.shape.push_back(compile_int(cx, e));
    pb.views.push_back(cx.make_binder(b, cx.declare_view(b)));
    program->params.push_back(std::move(pb));
  }
  program->body = compile_stmt(cx, f->body);
  // Buffers over parameter storage that the function never declared.
  size_t k = 0;
  for (const Param& p : f->params) {
    ParamBinding& pb = program->params[k++];
    if (!p.buffer) continue;
    for (const Var& v : {p.var, p.buffer->data}) {
      if (!v) continue;
      for (const Buffer& b : cx.take_implicit(v.get()))
        pb.views.push_back(cx.make_binder(b, cx.declare_view(b)));
    }
  }
  if (cx.has_pending_implicit())
    throw Error("interpreter: buffer " + cx.pending_implicit_name() +
                " is accessed but its storage is never bound");
  for (const Var& v : entered) cx.leave(v);
  return program;
}

}  // namespace tirc::eval
