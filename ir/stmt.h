// Statements of TensorIR, including blocks. Immutable and shared like Expr.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/buffer.h"
#include "ir/expr.h"

namespace tirc {

enum class StmtKind : uint8_t {
  BufferStore,
  For,
  Block,
  BlockRealize,
  Seq,
  IfThenElse,
  LetStmt,
  Evaluate,
  Allocate,
  DeclBuffer,
  AllocateConst,
};

const char* to_string(StmtKind kind);

// Ordered key -> value map for loop, block and function attributes. Values are
// immediates (int, float, bool, string) or lists of them
// (make_annotation_list).
using Annotations = std::map<std::string, Expr>;

// A list value of an annotation, as TVM writes `"layout_free_buffers": [1]`
// or `"buffer_dim_align": [[0, 2, 16, 3]]`: a handle-typed call of
// kAnnotationList whose arguments are the elements (immediates or lists).
inline constexpr const char* kAnnotationList = "tirc.annotation_list";
Expr make_annotation_list(std::vector<Expr> elements);
// The elements when `e` is such a list, else nullptr.
const std::vector<Expr>* annotation_list_elements(const Expr& e);

class StmtNode {
 public:
  virtual ~StmtNode() = default;
  const StmtKind kind;
  SourceLoc loc;  // where the statement was parsed from; not part of its identity

 protected:
  explicit StmtNode(StmtKind k) : kind(k) {}
};

class Stmt {
 public:
  Stmt() = default;
  template <class T>
  requires std::derived_from<T, StmtNode> Stmt(std::shared_ptr<const T> node)
      : node_(std::move(node)) {}
  template <class T>
  requires std::derived_from<T, StmtNode> Stmt(std::shared_ptr<T> node) : node_(std::move(node)) {}

  const StmtNode* get() const { return node_.get(); }
  const StmtNode* operator->() const { return node_.get(); }
  explicit operator bool() const { return node_ != nullptr; }
  const std::shared_ptr<const StmtNode>& ptr() const { return node_; }
  StmtKind kind() const { return node_->kind; }
  bool same_as(const Stmt& other) const { return node_ == other.node_; }

  template <class T>
  const T* as() const {
    return node_ && node_->kind == T::kKind ? static_cast<const T*>(node_.get()) : nullptr;
  }

 private:
  std::shared_ptr<const StmtNode> node_;
};

struct BufferStoreNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::BufferStore;
  BufferStoreNode(Buffer b, Expr v, std::vector<Expr> i)
      : StmtNode(kKind), buffer(std::move(b)), value(std::move(v)), indices(std::move(i)) {}
  const Buffer buffer;
  const Expr value;
  const std::vector<Expr> indices;
};

enum class ForKind : uint8_t { Serial, Parallel, Vectorized, Unrolled, ThreadBinding };
const char* to_string(ForKind kind);
// The kind in prose, for messages: "serial", "parallel", "vectorized",
// "unrolled", "thread-bound".
const char* kind_in_prose(ForKind kind);

struct ForNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::For;
  ForNode(Var v, Expr mn, Expr ext, ForKind k, Stmt b, std::string tag = {}, Annotations ann = {})
      : StmtNode(kKind),
        loop_var(std::move(v)),
        min(std::move(mn)),
        extent(std::move(ext)),
        for_kind(k),
        body(std::move(b)),
        thread_tag(std::move(tag)),
        annotations(std::move(ann)) {}
  const Var loop_var;
  const Expr min, extent;
  const ForKind for_kind;
  const Stmt body;
  const std::string thread_tag;  // "threadIdx.x" etc. for ThreadBinding
  const Annotations annotations;
};

// A block: an isolated computation with named iteration variables, declared
// reads and writes, and an optional init run on the first reduction step.
struct BlockNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Block;
  BlockNode() : StmtNode(kKind) {}
  std::string name;
  std::vector<IterVar> iter_vars;
  std::vector<BufferRegion> reads;
  std::vector<BufferRegion> writes;
  std::vector<Buffer> alloc_buffers;
  std::vector<MatchBufferRegion> match_buffers;
  Annotations annotations;
  Stmt init;  // may be null
  Stmt body;
};
using Block = std::shared_ptr<const BlockNode>;

// A block together with the values bound to its iteration variables.
struct BlockRealizeNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::BlockRealize;
  BlockRealizeNode(std::vector<Expr> v, Expr p, Block b)
      : StmtNode(kKind), iter_values(std::move(v)), predicate(std::move(p)), block(std::move(b)) {}
  const std::vector<Expr> iter_values;
  const Expr predicate;  // bool; true when there is no T.where
  const Block block;
};

struct SeqStmtNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Seq;
  explicit SeqStmtNode(std::vector<Stmt> s) : StmtNode(kKind), seq(std::move(s)) {}
  const std::vector<Stmt> seq;
};

struct IfThenElseNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::IfThenElse;
  IfThenElseNode(Expr c, Stmt t, Stmt e)
      : StmtNode(kKind), cond(std::move(c)), then_case(std::move(t)), else_case(std::move(e)) {}
  const Expr cond;
  const Stmt then_case;
  const Stmt else_case;  // may be null
};

struct LetStmtNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::LetStmt;
  LetStmtNode(Var v, Expr val, Stmt b)
      : StmtNode(kKind), var(std::move(v)), value(std::move(val)), body(std::move(b)) {}
  const Var var;
  const Expr value;
  const Stmt body;
};

struct EvaluateNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Evaluate;
  explicit EvaluateNode(Expr v) : StmtNode(kKind), value(std::move(v)) {}
  const Expr value;
};

// Allocates storage for `buffer_var` (a handle) for the duration of body.
struct AllocateNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Allocate;
  AllocateNode(Var v, DataType t, std::vector<Expr> e, std::string s, Stmt b)
      : StmtNode(kKind),
        buffer_var(std::move(v)),
        dtype(t),
        extents(std::move(e)),
        scope(std::move(s)),
        body(std::move(b)) {}
  const Var buffer_var;
  const DataType dtype;
  const std::vector<Expr> extents;
  const std::string scope;
  const Stmt body;
};

// Binds `buffer_var` (a handle) to read-only storage holding the bytes of the
// module constant named `constant` (IRModule::constants(): a model's weights)
// for the duration of body. Printed `w = T.allocate_const(metadata["name"],
// "float32", [64, 3, 3, 3])`; dtype and extents must match the constant.
struct AllocateConstNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::AllocateConst;
  AllocateConstNode(Var v, DataType t, std::vector<Expr> e, std::string c, Stmt b)
      : StmtNode(kKind),
        buffer_var(std::move(v)),
        dtype(t),
        extents(std::move(e)),
        constant(std::move(c)),
        body(std::move(b)) {}
  const Var buffer_var;
  const DataType dtype;
  const std::vector<Expr> extents;
  const std::string constant;
  const Stmt body;
};

// Declares a buffer view over existing storage (buffer->data) for body.
struct DeclBufferNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::DeclBuffer;
  DeclBufferNode(Buffer b, Stmt bd) : StmtNode(kKind), buffer(std::move(b)), body(std::move(bd)) {}
  const Buffer buffer;
  const Stmt body;
};

// ---- construction helpers ---------------------------------------------------

Stmt make_store(Buffer buffer, Expr value, std::vector<Expr> indices);
Stmt make_for(Var var, Expr min, Expr extent, ForKind kind, Stmt body, std::string thread_tag = {},
              Annotations annotations = {});
// One statement as is; several as a SeqStmt; nested SeqStmts are flattened.
Stmt make_seq(std::vector<Stmt> stmts);
Stmt make_if(Expr cond, Stmt then_case, Stmt else_case = {});
Stmt make_evaluate(Expr value);
Stmt make_block_realize(std::vector<Expr> iter_values, Expr predicate, Block block);

// ---- copies with some fields changed -----------------------------------------
// Every other field, and the source location, is kept (and shared): the one
// way rewrites rebuild a loop, a block or a block realize.

Stmt with_body(const ForNode& loop, Stmt body);
Stmt with_kind(const ForNode& loop, ForKind kind, std::string thread_tag = {});
Stmt with_annotations(const ForNode& loop, Annotations annotations);
// A new loop variable, range and body; kind, thread tag and annotations kept.
Stmt with_header(const ForNode& loop, Var var, Expr min, Expr extent, Stmt body);
Stmt with_block(const BlockRealizeNode& realize, Block block);
Stmt with_predicate(const BlockRealizeNode& realize, Expr predicate);
Block with_body(const BlockNode& block, Stmt body);
Block with_init(const BlockNode& block, Stmt init);
Block with_annotations(const BlockNode& block, Annotations annotations);
Block with_reads_writes(const BlockNode& block, std::vector<BufferRegion> reads,
                        std::vector<BufferRegion> writes);

}  // namespace tirc
