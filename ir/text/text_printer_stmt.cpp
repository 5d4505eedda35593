// Statements, blocks and functions, four spaces per indentation level.
#include <unordered_set>

#include "ir/functor.h"
#include "ir/text/text_printer.h"

namespace tirc {

namespace {

bool prints_nothing(const Stmt& s) {
  if (!s) return true;
  if (auto* seq = s.as<SeqStmtNode>()) {
    for (const Stmt& child : seq->seq)
      if (!prints_nothing(child)) return false;
    return true;
  }
  return false;
}

bool is_true(const Expr& e) {
  return !e || is_const_int(e, 1);
}

// Structurally equal for what remap needs: the same node or the same constant.
bool same_extent(const Expr& a, const Expr& b) {
  if (a.same_as(b)) return true;
  auto* x = a.as<IntImmNode>();
  auto* y = b.as<IntImmNode>();
  return x && y && x->dtype == y->dtype && x->value == y->value;
}

// A loop that T.grid / range print without a loop kind.
bool is_plain_serial(const ForNode* f) {
  return f->loop_var && f->for_kind == ForKind::Serial && f->annotations.empty() &&
         is_const_int(f->min, 0);
}

class UsesVar : public ExprVisitor {
 public:
  explicit UsesVar(const std::vector<const ForNode*>& loops) : loops_(loops) {}
  bool found = false;

 protected:
  void visit_var(const VarNode* v) override {
    for (const ForNode* f : loops_)
      if (f->loop_var.get() == v) found = true;
  }

 private:
  const std::vector<const ForNode*>& loops_;
};

const char* loop_function(ForKind kind) {
  switch (kind) {
    case ForKind::Serial:
      return "T.serial";
    case ForKind::Parallel:
      return "T.parallel";
    case ForKind::Vectorized:
      return "T.vectorized";
    case ForKind::Unrolled:
      return "T.unroll";
    case ForKind::ThreadBinding:
      return "T.thread_binding";
  }
  return "T.serial";
}

const char* axis_function(IterKind kind) {
  switch (kind) {
    case IterKind::DataPar:
      return "T.axis.spatial";
    case IterKind::Reduce:
      return "T.axis.reduce";
    default:
      return "T.axis.opaque";
  }
}

bool is_root_block(const Stmt& body) {
  auto* realize = body.as<BlockRealizeNode>();
  if (!realize || !realize->block || !realize->iter_values.empty() || !is_true(realize->predicate))
    return false;
  const BlockNode& b = *realize->block;
  return b.name == "root" && b.iter_vars.empty() && b.reads.empty() && b.writes.empty() &&
         !b.init && b.annotations.empty() && b.match_buffers.empty();
}

// Buffers declared somewhere, buffers accessed (in first-access order) and
// storage variables bound by T.allocate.
class BufferUses : public StmtVisitor {
 public:
  std::unordered_set<const BufferNode*> declared;
  std::vector<Buffer> accessed;
  std::unordered_set<const VarNode*> allocated;

  void access(const Buffer& b) {
    if (b && seen_.insert(b.get()).second) accessed.push_back(b);
  }

 protected:
  void visit_load(const BufferLoadNode* n) override {
    access(n->buffer);
    StmtVisitor::visit_load(n);
  }
  void visit_store(const BufferStoreNode* n) override {
    access(n->buffer);
    StmtVisitor::visit_store(n);
  }
  void visit_region(const BufferRegion& r) override {
    access(r.buffer);
    StmtVisitor::visit_region(r);
  }
  void visit_block(const BlockNode* n) override {
    for (const Buffer& b : n->alloc_buffers) declared.insert(b.get());
    for (const MatchBufferRegion& m : n->match_buffers) declared.insert(m.buffer.get());
    StmtVisitor::visit_block(n);
  }
  void visit_decl_buffer(const DeclBufferNode* n) override {
    declared.insert(n->buffer.get());
    StmtVisitor::visit_decl_buffer(n);
  }
  void visit_allocate(const AllocateNode* n) override {
    allocated.insert(n->buffer_var.get());
    StmtVisitor::visit_allocate(n);
  }
  void visit_allocate_const(const AllocateConstNode* n) override {
    allocated.insert(n->buffer_var.get());
    StmtVisitor::visit_allocate_const(n);
  }

 private:
  std::unordered_set<const BufferNode*> seen_;
};

}  // namespace

void TextPrinter::collect_aliases(const PrimFunc& f) {
  BufferUses uses;
  for (const Param& p : f->params)
    if (p.buffer) uses.declared.insert(p.buffer.get());
  uses.visit(f->body);
  for (const Buffer& b : uses.accessed) {
    if (uses.declared.count(b.get()) || !b->data) continue;
    // Storage not bound by an allocation is printed at the function's top.
    const VarNode* key = uses.allocated.count(b->data.get()) ? b->data.get() : nullptr;
    aliases_[key].push_back(b);
  }
}

void TextPrinter::print_aliases(const VarNode* data, int indent) {
  auto it = aliases_.find(data);
  if (it == aliases_.end()) return;
  for (const Buffer& b : it->second) {
    std::string ref = data_reference(b->data.get());
    std::string rhs = "T.Buffer(" + shape(b->shape);
    if (b->dtype != DataType::float32()) rhs += ", " + quote(b->dtype.str());
    if (!ref.empty()) rhs += ", data=" + ref;
    rhs += buffer_tail(b).substr(quote(b->dtype.str()).size()) + ")";
    define_buffer(b);
    line(indent, buffer_name(b) + " = " + rhs);
  }
}

void TextPrinter::line(int indent, std::string_view text) {
  out_.append(static_cast<size_t>(indent) * 4, ' ');
  out_ += text;
  out_ += '\n';
}

void TextPrinter::print_body(const Stmt& s, int indent) {
  if (prints_nothing(s))
    line(indent, "T.evaluate(0)");  // Python needs a statement; this one does nothing
  else
    print_stmt(s, indent);
}

const ForNode* TextPrinter::enclosing_loop(const VarNode* v) const {
  for (auto it = loops_.rbegin(); it != loops_.rend(); ++it)
    if ((*it)->loop_var.get() == v) return *it;
  return nullptr;
}

void TextPrinter::define_buffer(const Buffer& b) {
  if (!b) return;
  names_.define(b.get(), b->name);
  if (b->data) data_owner_.emplace(b->data.get(), b);
}

std::string TextPrinter::data_reference(const VarNode* data) const {
  if (const std::string* name = names_.find(data)) return *name;
  if (auto it = data_owner_.find(data); it != data_owner_.end())
    return buffer_name(it->second) + ".data";
  return {};
}

std::string TextPrinter::shape(const std::vector<Expr>& dims) {
  if (dims.size() == 1) return std::string("(").append(expr(dims[0]).text).append(",)");
  return std::string("(").append(args(dims)).append(")");
}

std::string TextPrinter::buffer_tail(const Buffer& b) {
  std::string out = quote(b->dtype.str());
  if (!b->strides.empty()) out += ", strides=" + shape(b->strides);
  if (b->elem_offset && !is_const_int(b->elem_offset, 0))
    out += ", elem_offset=" + expr(b->elem_offset).text;
  if (b->scope != "global") out += ", scope=" + quote(b->scope);
  if (b->align != 0) out += ", align=" + std::to_string(b->align);
  return out;
}

std::string TextPrinter::region(const BufferRegion& r) {
  std::string out = buffer_name(r.buffer) + "[";
  if (r.region.empty()) out += "()";
  for (size_t i = 0; i < r.region.size(); ++i) {
    const Range& range = r.region[i];
    if (i) out += ", ";
    if (is_const_int(range.extent, 1))
      out += expr(range.min).text;
    else
      out += expr(range.min).text + ":" + stop_of(range.min, range.extent);
  }
  return out + "]";
}

void TextPrinter::print_alloc_buffer(const Buffer& b, int indent) {
  if (!b) return;
  define_buffer(b);
  line(indent, buffer_name(b) + " = " + t_word("alloc_buffer") + "(" + shape(b->shape) + ", " +
                   buffer_tail(b) + ")");
}

void TextPrinter::print_stmt(const Stmt& s, int indent) {
  if (!s) return;
  switch (s.kind()) {
    case StmtKind::BufferStore: {
      auto* n = s.as<BufferStoreNode>();
      std::string idx = n->indices.empty() ? "()" : args(n->indices);
      line(indent, buffer_name(n->buffer) + "[" + idx + "] = " + expr(n->value).text);
      return;
    }
    case StmtKind::For:
      print_for(s.as<ForNode>(), indent);
      return;
    case StmtKind::Block:
      print_block(s.as<BlockNode>(), {}, Expr(), indent);
      return;
    case StmtKind::BlockRealize: {
      auto* n = s.as<BlockRealizeNode>();
      if (n->block) print_block(n->block.get(), n->iter_values, n->predicate, indent);
      return;
    }
    case StmtKind::Seq:
      for (const Stmt& child : s.as<SeqStmtNode>()->seq) print_stmt(child, indent);
      return;
    case StmtKind::IfThenElse: {
      auto* n = s.as<IfThenElseNode>();
      line(indent, "if " + expr(n->cond).text + ":");
      print_body(n->then_case, indent + 1);
      if (n->else_case) {
        line(indent, "else:");
        print_body(n->else_case, indent + 1);
      }
      return;
    }
    case StmtKind::LetStmt: {
      auto* n = s.as<LetStmtNode>();
      std::string value = expr(n->value).text;
      std::string type = n->var ? "T." + n->var->dtype.str() : "T.int32";
      if (surface_ == Surface::tirx) type = "T.let[" + type + "]";
      std::string name = n->var ? names_.define(n->var.get(), n->var->name) : "None";
      line(indent, name + ": " + type + " = " + value);
      print_body(n->body, indent);
      return;
    }
    case StmtKind::Evaluate: {
      const Expr& v = s.as<EvaluateNode>()->value;
      // A kernel call is a statement of its own, as in Python.
      if (call_kernel_callee(v))
        line(indent, expr(v).text);
      else
        line(indent, "T.evaluate(" + expr(v).text + ")");
      return;
    }
    case StmtKind::AllocateConst: {
      auto* n = s.as<AllocateConstNode>();
      std::string rhs = "T.allocate_const(metadata[" + quote(n->constant) + "], " +
                        quote(n->dtype.str()) + ", [" + args(n->extents) + "])";
      std::string name =
          n->buffer_var ? names_.define(n->buffer_var.get(), n->buffer_var->name) : "None";
      line(indent, name + " = " + rhs);
      if (n->buffer_var) print_aliases(n->buffer_var.get(), indent);
      print_body(n->body, indent);
      return;
    }
    case StmtKind::Allocate: {
      auto* n = s.as<AllocateNode>();
      std::string rhs = "T.allocate([" + args(n->extents) + "], " + quote(n->dtype.str()) + ", " +
                        quote(n->scope) + ")";
      std::string name =
          n->buffer_var ? names_.define(n->buffer_var.get(), n->buffer_var->name) : "None";
      line(indent, name + " = " + rhs);
      if (n->buffer_var) print_aliases(n->buffer_var.get(), indent);
      print_body(n->body, indent);
      return;
    }
    case StmtKind::DeclBuffer: {
      auto* n = s.as<DeclBufferNode>();
      if (n->buffer) {
        const Buffer& b = n->buffer;
        std::string rhs = "T.decl_buffer(" + shape(b->shape) + ", " + quote(b->dtype.str());
        std::string data = b->data ? data_reference(b->data.get()) : std::string();
        if (!data.empty()) rhs += ", data=" + data;
        std::string tail = buffer_tail(b).substr(quote(b->dtype.str()).size());
        define_buffer(b);
        line(indent, buffer_name(b) + " = " + rhs + tail + ")");
      }
      print_body(n->body, indent);
      return;
    }
  }
}

void TextPrinter::print_for(const ForNode* f, int indent) {
  std::vector<const ForNode*> nest{f};
  if (is_plain_serial(f)) {
    // Grow the perfect nest while each inner extent is independent of the outer loops.
    while (auto* inner = nest.back()->body.as<ForNode>()) {
      if (!is_plain_serial(inner)) break;
      UsesVar uses(nest);
      uses.visit(inner->extent);
      if (uses.found) break;
      nest.push_back(inner);
    }
  }

  std::string header;
  if (nest.size() > 1) {
    std::vector<Expr> extents;
    for (const ForNode* loop : nest) extents.push_back(loop->extent);
    std::string grid = "T.grid(" + args(extents) + ")";
    std::string vars;
    for (size_t i = 0; i < nest.size(); ++i)
      vars += (i ? ", " : "") + names_.define(nest[i]->loop_var.get(), nest[i]->loop_var->name);
    header = "for " + vars + " in " + grid + ":";
  } else {
    std::string bounds = is_const_int(f->min, 0)
                             ? expr(f->extent).text
                             : expr(f->min).text + ", " + stop_of(f->min, f->extent);
    std::string call;
    if (f->for_kind == ForKind::Serial && f->annotations.empty()) {
      call = "range(" + bounds + ")";
    } else {
      call = std::string(loop_function(f->for_kind)) + "(" + bounds;
      if (f->for_kind == ForKind::ThreadBinding) call += ", thread=" + quote(f->thread_tag);
      if (!f->annotations.empty()) call += ", annotations=" + annotations(f->annotations);
      call += ")";
    }
    std::string name = f->loop_var ? names_.define(f->loop_var.get(), f->loop_var->name) : "v";
    header = "for " + name + " in " + call + ":";
  }
  line(indent, header);
  loops_.insert(loops_.end(), nest.begin(), nest.end());
  print_body(nest.back()->body, indent + 1);
  loops_.resize(loops_.size() - nest.size());
}

void TextPrinter::print_block_axes(const BlockNode* b, const std::vector<Expr>& values,
                                   int indent) {
  size_t n = b->iter_vars.size();
  auto value_of = [&](size_t i) { return i < values.size() ? values[i] : Expr(); };
  auto remappable = [&](size_t i) {
    const IterVar& iv = b->iter_vars[i];
    if (!iv.var || (iv.kind != IterKind::DataPar && iv.kind != IterKind::Reduce)) return false;
    auto* v = value_of(i).as<VarNode>();
    const ForNode* loop = v ? enclosing_loop(v) : nullptr;
    return loop && is_const_int(loop->min, 0) && is_const_int(iv.dom.min, 0) &&
           same_extent(iv.dom.extent, loop->extent);
  };
  for (size_t i = 0; i < n;) {
    size_t end = i;
    while (end < n && remappable(end)) ++end;
    if (end - i >= 2) {
      std::string lhs, kinds, loops;
      for (size_t k = i; k < end; ++k) {
        const IterVar& iv = b->iter_vars[k];
        lhs += (k > i ? ", " : "") + names_.define(iv.var.get(), iv.var->name);
        kinds += iv.kind == IterKind::Reduce ? 'R' : 'S';
        if (k > i) loops += ", ";
        loops += expr(value_of(k)).text;
      }
      line(indent, lhs + " = T.axis.remap(" + quote(kinds) + ", [" + loops + "])");
      i = end;
      continue;
    }
    const IterVar& iv = b->iter_vars[i];
    std::string dom;
    if (is_const_int(iv.dom.min, 0))
      dom = expr(iv.dom.extent).text;
    else
      dom.append("(")
          .append(expr(iv.dom.min).text)
          .append(", ")
          .append(stop_of(iv.dom.min, iv.dom.extent))
          .append(")");
    std::string value = expr(value_of(i)).text;
    std::string name = iv.var ? names_.define(iv.var.get(), iv.var->name) : "v";
    line(indent, name + " = " + axis_function(iv.kind) + "(" + dom + ", " + value + ")");
    ++i;
  }
}

std::string TextPrinter::t_word(std::string_view classic) const {
  return "T." + std::string(surface_word(classic, surface_));
}

void TextPrinter::print_block(const BlockNode* b, const std::vector<Expr>& values,
                              const Expr& predicate, int indent) {
  line(indent, "with " + t_word("block") + "(" + quote(b->name) + "):");
  int in = indent + 1;
  print_block_axes(b, values, in);
  // Buffers the block declares are named before its reads/writes may mention them.
  for (const Buffer& buf : b->alloc_buffers) define_buffer(buf);
  for (const MatchBufferRegion& m : b->match_buffers) define_buffer(m.buffer);
  if (!is_true(predicate)) line(in, "T.where(" + expr(predicate).text + ")");
  auto regions = [&](const std::vector<BufferRegion>& rs) {
    std::string out;
    for (size_t i = 0; i < rs.size(); ++i) out += (i ? ", " : "") + region(rs[i]);
    return out;
  };
  line(in, "T.reads(" + regions(b->reads) + ")");
  line(in, "T.writes(" + regions(b->writes) + ")");
  if (!b->annotations.empty())
    line(in, t_word("block_attr") + "(" + annotations(b->annotations) + ")");
  for (const Buffer& buf : b->alloc_buffers) print_alloc_buffer(buf, in);
  for (const MatchBufferRegion& m : b->match_buffers) {
    if (!m.buffer) continue;
    line(in, buffer_name(m.buffer) + " = T.match_buffer(" + region(m.source) + ", " +
                 shape(m.buffer->shape) + ", " + buffer_tail(m.buffer) + ")");
  }
  if (b->init) {
    line(in, "with T.init():");
    print_body(b->init, in + 1);
  }
  print_body(b->body, in);
}

void TextPrinter::print_function(const PrimFunc& f, std::string_view name, int indent) {
  // TVM 0.27 marks the functions that hold blocks.
  line(indent, surface_ == Surface::tirx && f && is_root_block(f->body) ? "@T.prim_func(s_tir=True)"
                                                                        : "@T.prim_func");
  if (!f) {
    line(indent, "def " + NameTable::sanitize(name) + "():");
    line(indent + 1, "T.evaluate(0)");
    return;
  }
  for (const Param& p : f->params) {
    if (p.buffer)
      define_buffer(p.buffer);
    else if (p.var)
      names_.define(p.var.get(), p.var->name);
  }
  std::string params;
  for (const Param& p : f->params) {
    std::string param;
    if (p.buffer)
      param = buffer_name(p.buffer) + ": T.Buffer(" + shape(p.buffer->shape) + ", " +
              buffer_tail(p.buffer) + ")";
    else if (p.var)
      param = var_name(p.var.get()) + ": T." + p.var->dtype.str();
    else
      continue;
    params += (params.empty() ? "" : ", ") + param;
  }
  line(indent, "def " + NameTable::sanitize(name) + "(" + params + "):");
  int in = indent + 1;
  if (!f->attrs.empty()) line(in, "T.func_attr(" + annotations(f->attrs) + ")");
  collect_aliases(f);
  print_aliases(nullptr, in);
  if (is_root_block(f->body)) {
    const BlockNode& root = *f->body.as<BlockRealizeNode>()->block;
    line(in, "# with " + t_word("block") + "(\"root\"):");
    for (const Buffer& buf : root.alloc_buffers) print_alloc_buffer(buf, in);
    print_body(root.body, in);
  } else {
    print_body(f->body, in);
  }
}

}  // namespace tirc
