#include "ir/stmt.h"

namespace tirc {

Expr make_annotation_list(std::vector<Expr> elements) {
  return make_call(DataType::handle(), kAnnotationList, std::move(elements));
}

const std::vector<Expr>* annotation_list_elements(const Expr& e) {
  auto* call = e.as<CallNode>();
  return call && call->op == kAnnotationList ? &call->args : nullptr;
}

const char* to_string(StmtKind kind) {
  switch (kind) {
    case StmtKind::BufferStore:
      return "BufferStore";
    case StmtKind::For:
      return "For";
    case StmtKind::Block:
      return "Block";
    case StmtKind::BlockRealize:
      return "BlockRealize";
    case StmtKind::Seq:
      return "SeqStmt";
    case StmtKind::IfThenElse:
      return "IfThenElse";
    case StmtKind::LetStmt:
      return "LetStmt";
    case StmtKind::Evaluate:
      return "Evaluate";
    case StmtKind::Allocate:
      return "Allocate";
    case StmtKind::DeclBuffer:
      return "DeclBuffer";
    case StmtKind::AllocateConst:
      return "AllocateConst";
  }
  return "?";
}

const char* to_string(ForKind kind) {
  switch (kind) {
    case ForKind::Serial:
      return "serial";
    case ForKind::Parallel:
      return "parallel";
    case ForKind::Vectorized:
      return "vectorized";
    case ForKind::Unrolled:
      return "unroll";
    case ForKind::ThreadBinding:
      return "thread_binding";
  }
  return "?";
}

const char* kind_in_prose(ForKind kind) {
  switch (kind) {
    case ForKind::Serial:
      return "serial";
    case ForKind::Parallel:
      return "parallel";
    case ForKind::Vectorized:
      return "vectorized";
    case ForKind::Unrolled:
      return "unrolled";
    case ForKind::ThreadBinding:
      return "thread-bound";
  }
  return "?";
}

Stmt make_store(Buffer buffer, Expr value, std::vector<Expr> indices) {
  if (!buffer) throw Error("store to a null buffer");
  if (!value) throw Error("store of a null value to " + buffer->name);
  for (const Expr& i : indices)
    if (!i || !i.dtype().is_integer())
      throw Error("store to " + buffer->name + " with a non-integer index");
  return std::make_shared<const BufferStoreNode>(std::move(buffer), std::move(value),
                                                 std::move(indices));
}

Stmt make_for(Var var, Expr min, Expr extent, ForKind kind, Stmt body, std::string thread_tag,
              Annotations annotations) {
  if (!var || !min || !extent || !body) throw Error("incomplete for loop");
  return std::make_shared<const ForNode>(std::move(var), std::move(min), std::move(extent), kind,
                                         std::move(body), std::move(thread_tag),
                                         std::move(annotations));
}

Stmt make_seq(std::vector<Stmt> stmts) {
  std::vector<Stmt> flat;
  for (Stmt& s : stmts) {
    if (!s) continue;
    if (auto* seq = s.as<SeqStmtNode>())
      flat.insert(flat.end(), seq->seq.begin(), seq->seq.end());
    else
      flat.push_back(std::move(s));
  }
  if (flat.size() == 1) return flat[0];
  return std::make_shared<const SeqStmtNode>(std::move(flat));
}

Stmt make_if(Expr cond, Stmt then_case, Stmt else_case) {
  if (!cond || !cond.dtype().is_bool()) throw Error("if condition is not bool");
  return std::make_shared<const IfThenElseNode>(std::move(cond), std::move(then_case),
                                                std::move(else_case));
}

Stmt make_evaluate(Expr value) {
  return std::make_shared<const EvaluateNode>(std::move(value));
}

namespace {

// The loop `loop` with the given fields; its source location kept.
Stmt rebuilt_loop(const ForNode& loop, Var var, Expr min, Expr extent, ForKind kind, Stmt body,
                  std::string thread_tag, Annotations annotations) {
  auto n =
      std::make_shared<ForNode>(std::move(var), std::move(min), std::move(extent), kind,
                                std::move(body), std::move(thread_tag), std::move(annotations));
  n->loc = loop.loc;
  return n;
}

}  // namespace

Stmt with_header(const ForNode& loop, Var var, Expr min, Expr extent, Stmt body) {
  return rebuilt_loop(loop, std::move(var), std::move(min), std::move(extent), loop.for_kind,
                      std::move(body), loop.thread_tag, loop.annotations);
}

Stmt with_body(const ForNode& loop, Stmt body) {
  return with_header(loop, loop.loop_var, loop.min, loop.extent, std::move(body));
}

Stmt with_kind(const ForNode& loop, ForKind kind, std::string thread_tag) {
  return rebuilt_loop(loop, loop.loop_var, loop.min, loop.extent, kind, loop.body,
                      std::move(thread_tag), loop.annotations);
}

Stmt with_annotations(const ForNode& loop, Annotations annotations) {
  return rebuilt_loop(loop, loop.loop_var, loop.min, loop.extent, loop.for_kind, loop.body,
                      loop.thread_tag, std::move(annotations));
}

namespace {

// The realize `realize` with the given fields; its source location kept.
Stmt rebuilt_realize(const BlockRealizeNode& realize, Expr predicate, Block block) {
  auto n = std::make_shared<BlockRealizeNode>(realize.iter_values, std::move(predicate),
                                              std::move(block));
  n->loc = realize.loc;
  return n;
}

}  // namespace

Stmt with_block(const BlockRealizeNode& realize, Block block) {
  return rebuilt_realize(realize, realize.predicate, std::move(block));
}

Stmt with_predicate(const BlockRealizeNode& realize, Expr predicate) {
  return rebuilt_realize(realize, std::move(predicate), realize.block);
}

// A block's copy constructor keeps its location: copy, then change a field.

Block with_body(const BlockNode& block, Stmt body) {
  auto n = std::make_shared<BlockNode>(block);
  n->body = std::move(body);
  return n;
}

Block with_init(const BlockNode& block, Stmt init) {
  auto n = std::make_shared<BlockNode>(block);
  n->init = std::move(init);
  return n;
}

Block with_annotations(const BlockNode& block, Annotations annotations) {
  auto n = std::make_shared<BlockNode>(block);
  n->annotations = std::move(annotations);
  return n;
}

Block with_reads_writes(const BlockNode& block, std::vector<BufferRegion> reads,
                        std::vector<BufferRegion> writes) {
  auto n = std::make_shared<BlockNode>(block);
  n->reads = std::move(reads);
  n->writes = std::move(writes);
  return n;
}

Stmt make_block_realize(std::vector<Expr> iter_values, Expr predicate, Block block) {
  if (!block) throw Error("block realize of a null block");
  if (iter_values.size() != block->iter_vars.size())
    throw Error("block " + block->name + " has " + std::to_string(block->iter_vars.size()) +
                " iteration variables but " + std::to_string(iter_values.size()) + " bound values");
  if (!predicate) predicate = make_bool(true);
  return std::make_shared<const BlockRealizeNode>(std::move(iter_values), std::move(predicate),
                                                  std::move(block));
}

}  // namespace tirc
