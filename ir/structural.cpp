// Structural equality, hashing and diffing share one canonical serialization:
// a program becomes a stream of tokens in which every variable and buffer is
// replaced by the number of its definition (or first use, when it is free).
// Two programs are equal exactly when their streams are, the hash is a hash
// of the stream, and the diff is the first token where streams part.
#include "ir/structural.h"

#include <bit>
#include <cstring>
#include <unordered_map>

namespace tirc {

namespace {

enum class Tag : uint8_t {
  Null,
  ExprKind,
  StmtKind,
  DType,
  Int,
  Float,
  Text,
  Count,
  VarDef,
  VarUse,
  BufDef,
  BufUse,
  Param,
  Func,
};

struct Token {
  Tag tag;
  int64_t value = 0;
  std::string text;

  bool operator==(const Token&) const = default;
};

std::string describe(const Token& t) {
  switch (t.tag) {
    case Tag::Null:
      return "nothing";
    case Tag::ExprKind:
      return to_string(static_cast<ExprKind>(t.value));
    case Tag::StmtKind:
      return to_string(static_cast<StmtKind>(t.value));
    case Tag::DType:
      return "type " + t.text;
    case Tag::Int:
      return "int " + std::to_string(t.value);
    case Tag::Float:
      return "float " + t.text;
    case Tag::Text:
      return "\"" + t.text + "\"";
    case Tag::Count:
      return std::to_string(t.value) + " items";
    case Tag::VarDef:
      return "definition of var #" + std::to_string(t.value);
    case Tag::VarUse:
      return "var #" + std::to_string(t.value) + " (" + t.text + ")";
    case Tag::BufDef:
      return "definition of buffer #" + std::to_string(t.value);
    case Tag::BufUse:
      return "buffer #" + std::to_string(t.value) + " (" + t.text + ")";
    case Tag::Param:
      return t.value ? "buffer parameter" : "scalar parameter";
    case Tag::Func:
      return "function " + t.text;
  }
  return "?";
}

class Serializer {
 public:
  explicit Serializer(bool track_paths) : track_paths_(track_paths) {}

  std::vector<Token> tokens;
  std::vector<std::string> paths;  // one per token when tracking

  void expr(const Expr& e) {
    if (!e) return emit(Tag::Null);
    emit(Tag::ExprKind, static_cast<int64_t>(e.kind()));
    dtype(e.dtype());
    switch (e.kind()) {
      case ExprKind::IntImm:
        return emit(Tag::Int, e.as<IntImmNode>()->value);
      case ExprKind::FloatImm: {
        double v = e.as<FloatImmNode>()->value;
        return emit(Tag::Float, std::bit_cast<int64_t>(v), std::to_string(v));
      }
      case ExprKind::StringImm:
        return text(e.as<StringImmNode>()->value);
      case ExprKind::Var:
        return use_var(e.as<VarNode>());
      case ExprKind::BufferLoad: {
        auto* n = e.as<BufferLoadNode>();
        use_buffer(n->buffer);
        return exprs(n->indices);
      }
      case ExprKind::Not:
        return expr(e.as<NotNode>()->a);
      case ExprKind::Cast:
        return expr(e.as<CastNode>()->value);
      case ExprKind::Select: {
        auto* n = e.as<SelectNode>();
        expr(n->cond);
        expr(n->true_value);
        return expr(n->false_value);
      }
      case ExprKind::Call: {
        auto* n = e.as<CallNode>();
        text(n->op);
        return exprs(n->args);
      }
      case ExprKind::Ramp: {
        auto* n = e.as<RampNode>();
        expr(n->base);
        expr(n->stride);
        return emit(Tag::Int, n->lanes);
      }
      case ExprKind::Broadcast: {
        auto* n = e.as<BroadcastNode>();
        expr(n->value);
        return emit(Tag::Int, n->lanes);
      }
      default: {
        auto* n = e.as<BinaryNode>();
        expr(n->a);
        return expr(n->b);
      }
    }
  }

  void stmt(const Stmt& s) {
    if (!s) return emit(Tag::Null);
    emit(Tag::StmtKind, static_cast<int64_t>(s.kind()));
    switch (s.kind()) {
      case StmtKind::BufferStore: {
        auto* n = s.as<BufferStoreNode>();
        use_buffer(n->buffer);
        in("value", [&] { expr(n->value); });
        return exprs(n->indices);
      }
      case StmtKind::For: {
        auto* n = s.as<ForNode>();
        expr(n->min);
        expr(n->extent);
        define_var(n->loop_var);
        emit(Tag::Int, static_cast<int64_t>(n->for_kind));
        text(n->thread_tag);
        annotations(n->annotations);
        return in("For(" + n->loop_var->name + ")", [&] { stmt(n->body); });
      }
      case StmtKind::Block:
        return block(*s.as<BlockNode>());
      case StmtKind::BlockRealize: {
        auto* n = s.as<BlockRealizeNode>();
        exprs(n->iter_values);
        expr(n->predicate);
        return block(*n->block);
      }
      case StmtKind::Seq: {
        auto& seq = s.as<SeqStmtNode>()->seq;
        emit(Tag::Count, static_cast<int64_t>(seq.size()));
        for (size_t i = 0; i < seq.size(); ++i)
          in("seq[" + std::to_string(i) + "]", [&] { stmt(seq[i]); });
        return;
      }
      case StmtKind::IfThenElse: {
        auto* n = s.as<IfThenElseNode>();
        expr(n->cond);
        in("then", [&] { stmt(n->then_case); });
        return in("else", [&] { stmt(n->else_case); });
      }
      case StmtKind::LetStmt: {
        auto* n = s.as<LetStmtNode>();
        expr(n->value);
        define_var(n->var);
        return in("Let(" + n->var->name + ")", [&] { stmt(n->body); });
      }
      case StmtKind::Evaluate:
        return expr(s.as<EvaluateNode>()->value);
      case StmtKind::Allocate: {
        auto* n = s.as<AllocateNode>();
        exprs(n->extents);
        define_var(n->buffer_var);
        dtype(n->dtype);
        text(n->scope);
        return in("Allocate(" + n->buffer_var->name + ")", [&] { stmt(n->body); });
      }
      case StmtKind::AllocateConst: {
        auto* n = s.as<AllocateConstNode>();
        exprs(n->extents);
        define_var(n->buffer_var);
        dtype(n->dtype);
        text(n->constant);
        return in("AllocateConst(" + n->buffer_var->name + ")", [&] { stmt(n->body); });
      }
      case StmtKind::DeclBuffer: {
        auto* n = s.as<DeclBufferNode>();
        define_buffer(n->buffer);
        return in("DeclBuffer(" + (n->buffer ? n->buffer->name : std::string("?")) + ")",
                  [&] { stmt(n->body); });
      }
    }
  }

  void func(const PrimFunc& f) {
    if (!f) return emit(Tag::Null);
    emit(Tag::Func);
    emit(Tag::Count, static_cast<int64_t>(f->params.size()));
    for (const Param& p : f->params) {
      emit(Tag::Param, p.buffer ? 1 : 0);
      define_var(p.var);
      if (p.buffer) define_buffer(p.buffer);
    }
    annotations(f->attrs);
    in("body", [&] { stmt(f->body); });
  }

 private:
  void emit(Tag tag, int64_t value = 0, std::string t = {}) {
    tokens.push_back({tag, value, std::move(t)});
    if (track_paths_) paths.push_back(path_);
  }

  template <class F>
  void in(const std::string& component, F&& body) {
    if (!track_paths_) return body();
    size_t len = path_.size();
    path_ += (path_.empty() ? "" : "/") + component;
    body();
    path_.resize(len);
  }

  void text(const std::string& s) { emit(Tag::Text, 0, s); }
  void dtype(DataType t) { emit(Tag::DType, 0, t.str()); }

  void exprs(const std::vector<Expr>& es) {
    emit(Tag::Count, static_cast<int64_t>(es.size()));
    for (const Expr& e : es) expr(e);
  }

  void define_var(const Var& v) {
    if (!v) return emit(Tag::Null);
    int64_t id = next_var_++;
    vars_[v.get()] = id;
    emit(Tag::VarDef, id);
    dtype(v->dtype);
  }

  // Tokens of a use carry the name only for diff messages; equality ignores
  // it (see same_tokens) and so does the hash.
  void use_var(const VarNode* v) {
    auto it = vars_.find(v);
    if (it == vars_.end()) it = vars_.emplace(v, next_var_++).first;
    emit(Tag::VarUse, it->second, v->name);
  }

  void define_buffer(const Buffer& b) {
    if (!b) return emit(Tag::Null);
    int64_t id = next_buf_++;
    bufs_[b.get()] = id;
    emit(Tag::BufDef, id);
    buffer_structure(*b);
  }

  void buffer_structure(const BufferNode& b) {
    dtype(b.dtype);
    exprs(b.shape);
    exprs(b.strides);
    expr(b.elem_offset);
    text(b.scope);
    emit(Tag::Int, b.align);
    define_var(b.data);
  }

  void use_buffer(const Buffer& b) {
    if (!b) return emit(Tag::Null);
    auto it = bufs_.find(b.get());
    if (it == bufs_.end()) return define_buffer(b);  // free: matched on first use
    emit(Tag::BufUse, it->second, b->name);
  }

  void range(const Range& r) {
    expr(r.min);
    expr(r.extent);
  }

  void region(const BufferRegion& r) {
    use_buffer(r.buffer);
    emit(Tag::Count, static_cast<int64_t>(r.region.size()));
    for (const Range& x : r.region) range(x);
  }

  void annotations(const Annotations& ann) {
    emit(Tag::Count, static_cast<int64_t>(ann.size()));
    for (const auto& [key, value] : ann) {
      text(key);
      expr(value);
    }
  }

  void block(const BlockNode& b) {
    text(b.name);
    in("Block(" + b.name + ")", [&] {
      emit(Tag::Count, static_cast<int64_t>(b.iter_vars.size()));
      for (const IterVar& iv : b.iter_vars) {
        range(iv.dom);
        define_var(iv.var);
        emit(Tag::Int, static_cast<int64_t>(iv.kind));
        text(iv.thread_tag);
      }
      emit(Tag::Count, static_cast<int64_t>(b.alloc_buffers.size()));
      for (const Buffer& buf : b.alloc_buffers) define_buffer(buf);
      emit(Tag::Count, static_cast<int64_t>(b.match_buffers.size()));
      for (const MatchBufferRegion& m : b.match_buffers) {
        region(m.source);
        define_buffer(m.buffer);
      }
      in("reads", [&] {
        emit(Tag::Count, static_cast<int64_t>(b.reads.size()));
        for (const BufferRegion& r : b.reads) region(r);
      });
      in("writes", [&] {
        emit(Tag::Count, static_cast<int64_t>(b.writes.size()));
        for (const BufferRegion& r : b.writes) region(r);
      });
      annotations(b.annotations);
      in("init", [&] { stmt(b.init); });
      in("body", [&] { stmt(b.body); });
    });
  }

  bool track_paths_;
  std::string path_;
  std::unordered_map<const VarNode*, int64_t> vars_;
  std::unordered_map<const BufferNode*, int64_t> bufs_;
  int64_t next_var_ = 0, next_buf_ = 0;
};

// Uses record a name for messages; only their numbers take part.
bool same_token(const Token& a, const Token& b) {
  if (a.tag != b.tag || a.value != b.value) return false;
  if (a.tag == Tag::VarUse || a.tag == Tag::BufUse || a.tag == Tag::Float) return true;
  return a.text == b.text;
}

bool same_tokens(const std::vector<Token>& a, const std::vector<Token>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!same_token(a[i], b[i])) return false;
  return true;
}

size_t hash_tokens(const std::vector<Token>& ts) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 1099511628211ull;
  };
  for (const Token& t : ts) {
    mix(static_cast<uint64_t>(t.tag));
    mix(static_cast<uint64_t>(t.value));
    if (t.tag != Tag::VarUse && t.tag != Tag::BufUse && t.tag != Tag::Float)
      mix(std::hash<std::string>{}(t.text));
  }
  return static_cast<size_t>(h);
}

template <class T, class F>
std::vector<Token> serialize(const T& x, F member) {
  Serializer s(false);
  (s.*member)(x);
  return std::move(s.tokens);
}

}  // namespace

bool structural_equal(const Expr& a, const Expr& b) {
  return same_tokens(serialize(a, &Serializer::expr), serialize(b, &Serializer::expr));
}

bool structural_equal(const Stmt& a, const Stmt& b) {
  return same_tokens(serialize(a, &Serializer::stmt), serialize(b, &Serializer::stmt));
}

bool structural_equal(const PrimFunc& a, const PrimFunc& b) {
  return same_tokens(serialize(a, &Serializer::func), serialize(b, &Serializer::func));
}

// Module attributes and constants (by name, dtype, shape and bytes) are part
// of a module's identity.
static bool same_module_data(const IRModule& a, const IRModule& b) {
  if (a.attrs.size() != b.attrs.size() || a.constants().size() != b.constants().size())
    return false;
  for (const auto& [key, value] : a.attrs) {
    auto it = b.attrs.find(key);
    if (it == b.attrs.end() || !structural_equal(value, it->second)) return false;
  }
  for (const auto& [name, value] : a.constants()) {
    const NDArray* other = b.find_constant(name);
    if (!other || !value || !value->bitwise_equal(*other)) return false;
  }
  return true;
}

bool structural_equal(const IRModule& a, const IRModule& b) {
  if (a.size() != b.size() || !same_module_data(a, b)) return false;
  for (const auto& [name, f] : a.functions()) {
    const PrimFunc* g = b.find(name);
    if (!g || !structural_equal(f, *g)) return false;
  }
  return true;
}

size_t structural_hash(const Expr& e) {
  return hash_tokens(serialize(e, &Serializer::expr));
}
size_t structural_hash(const Stmt& s) {
  return hash_tokens(serialize(s, &Serializer::stmt));
}
size_t structural_hash(const PrimFunc& f) {
  return hash_tokens(serialize(f, &Serializer::func));
}

std::string structural_diff(const PrimFunc& a, const PrimFunc& b) {
  Serializer sa(true), sb(true);
  sa.func(a);
  sb.func(b);
  size_t n = std::min(sa.tokens.size(), sb.tokens.size());
  for (size_t i = 0; i < n; ++i) {
    if (same_token(sa.tokens[i], sb.tokens[i])) continue;
    std::string where = sa.paths[i].empty() ? "function" : sa.paths[i];
    return where + ": " + describe(sa.tokens[i]) + " vs " + describe(sb.tokens[i]);
  }
  if (sa.tokens.size() == sb.tokens.size()) return {};
  std::string where = n < sa.paths.size() ? sa.paths[n] : (n < sb.paths.size() ? sb.paths[n] : "");
  return (where.empty() ? "function" : where) + ": programs end at different places";
}

}  // namespace tirc
