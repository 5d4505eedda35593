// The recursive-descent parser behind parse_module/parse_expr, split across
// parse_expr.cpp (expressions), parse_stmt.cpp (statements), parse_block.cpp
// (blocks and buffers) and parser.cpp (functions and modules).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/function.h"
#include "ir/text/lexer.h"
#include "ir/text/parser.h"
#include "ir/text/scope.h"

namespace tirc {

// Everything a `with T.block(...)` collects before it becomes a BlockNode. The
// function body has one too (the implicit root block) with is_function = true.
struct BlockBuilder {
  bool is_function = false;
  std::string name;
  std::vector<IterVar> iter_vars;
  std::vector<Expr> iter_values;
  Expr predicate;
  std::optional<std::vector<BufferRegion>> reads, writes;
  std::vector<Buffer> alloc_buffers;
  std::vector<MatchBufferRegion> match_buffers;
  std::optional<Annotations> annotations;
  Stmt init;
};

// A statement that scopes over the rest of its suite (let, allocate,
// decl_buffer): its body is filled in when the suite ends.
struct Binder {
  StmtKind kind;
  SourceLoc loc;
  Var var;
  Expr value;
  DataType dtype;
  std::vector<Expr> extents;
  std::string scope;
  Buffer buffer;
  std::string constant;  // T.allocate_const's metadata["name"]
};

// Buffer constructor arguments shared by T.Buffer, T.alloc_buffer,
// T.match_buffer and T.decl_buffer.
struct BufferArgs {
  std::vector<Expr> shape;
  DataType dtype = DataType::float32();
  std::vector<Expr> strides;
  Expr elem_offset;
  std::string scope = "global";
  int align = 0;
  Var data;
};

class Parser {
 public:
  Parser(std::string_view text, std::string_view filename, ParseOptions options = {});

  IRModule parse_module();
  Expr parse_standalone_expr(const std::vector<Var>& scope);

  static constexpr int kMaxNesting = 200;
  static constexpr int kMaxExprDepth = 1000;
  static constexpr int kMaxBinders = 1000;

 private:
  void expect_t_attr(std::string_view name, std::string_view context);

 private:
  // ---- tokens (parser.cpp)
  const Token& peek(size_t ahead = 0) const;
  const Token& advance();
  bool at_op(std::string_view op) const { return peek().is_op(op); }
  bool at_name(std::string_view name) const { return peek().is_name(name); }
  bool accept_op(std::string_view op);
  const Token& expect_op(std::string_view op, std::string_view context);
  const Token& expect_name(std::string_view context);
  void expect_newline(std::string_view context);
  // `T . name` starting at the current token, without consuming.
  bool at_t_attr(std::string_view name, size_t ahead = 0) const;
  std::string describe(const Token& t) const;
  [[noreturn]] void fail(const Token& t, const std::string& message) const;
  SourceLoc loc(const Token& t) const { return file_.at(t.line, t.col); }
  // Runs f, giving any location-less error raised inside the location of t.
  template <class F>
  auto at(const Token& t, F&& f) -> decltype(f());

  class NestingGuard {
   public:
    NestingGuard(Parser& p, const Token& t);
    ~NestingGuard() { --p_.nesting_; }
    NestingGuard(const NestingGuard&) = delete;
    NestingGuard& operator=(const NestingGuard&) = delete;

   private:
    Parser& p_;
  };

  // ---- expressions (parse_expr.cpp)
  Expr parse_expr();
  Expr parse_or();
  Expr parse_and();
  Expr parse_not();
  Expr parse_comparison();
  Expr parse_arith();
  Expr parse_term();
  Expr parse_unary();
  Expr parse_postfix();
  Expr parse_primary();
  Expr parse_t_expr(const Token& t_tok);
  Expr parse_typed_literal(const Token& name_tok, DataType t);
  // After `T.call_kernel`: ("callee", args...).
  Expr parse_call_kernel(const Token& callee);
  // After `T.address_of`: (buf[i, ...]).
  Expr parse_address_of(const Token& callee);
  std::vector<Expr> parse_call_args(const Token& callee, size_t min_args, size_t max_args);
  Expr parse_load(const Buffer& buffer, const Token& name_tok);
  std::vector<Expr> parse_index_list(const Buffer& buffer, const Token& name_tok, bool allow_slices,
                                     std::vector<Range>* region);
  Expr make_binary_at(ExprKind kind, Expr a, Expr b, const Token& op);
  // Unifies the types of a and b when one is a bare literal; errors at op otherwise.
  void unify(Expr& a, Expr& b, const Token& op, std::string_view op_name);
  // The literal e converted to t, or e unchanged when it is not a literal.
  Expr adopt(const Expr& e, DataType t, const Token& at_tok);
  Expr mark_literal(Expr e);
  bool is_literal(const Expr& e) const { return literals_.count(e.get()) > 0; }
  Expr track_depth(Expr e, const Token& t);
  int depth_of(const Expr& e) const;
  DataType parse_dtype_string(std::string_view context);
  DataType dtype_of_name(const Token& name_tok) const;
  Expr parse_annotation_value();
  Annotations parse_annotation_dict();
  Expr expect_int_expr(Expr e, const Token& t, std::string_view what);
  // stop - start of constant bounds, rejecting overflow.
  int64_t const_extent(int64_t start, int64_t stop, const Token& t) const;
  int64_t expect_const_int(const Expr& e, const Token& t, std::string_view what);
  // A (list of) integer expression(s). With declare_free, an entry that is a
  // bare name defined nowhere declares a fresh int32 variable of that name in
  // the current scope (T.match_buffer's strides=, which binds it).
  std::vector<Expr> parse_shape(std::string_view what, bool declare_free = false);
  Expr parse_int_or_declare(std::string_view what, bool declare_free);
  Var lookup_var(const Token& name_tok);
  Buffer lookup_buffer(const Token& name_tok);

  // ---- statements (parse_stmt.cpp)
  // `:` then an indented block (or one statement on the same line).
  Stmt parse_suite(std::string_view header, BlockBuilder* direct_block);
  Stmt parse_statements(BlockBuilder* direct_block);
  // Parses one statement; returns false if it produced nothing to add.
  void parse_statement(BlockBuilder* direct_block, std::vector<Stmt>& out,
                       std::vector<Binder>& binders, std::vector<std::vector<Stmt>>& segments);
  Stmt parse_for();
  Stmt parse_if(const Token& if_tok);
  void parse_assignment(BlockBuilder* direct_block, std::vector<Stmt>& out,
                        std::vector<Binder>& binders);
  Stmt parse_store(const Token& name_tok);
  Stmt parse_t_statement(BlockBuilder* direct_block);
  Stmt finish_binders(std::vector<Binder>& binders, std::vector<std::vector<Stmt>>& segments);
  BlockBuilder& innermost_block(const Token& t, std::string_view what);

  // ---- blocks and buffers (parse_block.cpp)
  Stmt parse_block(const Token& with_tok);
  void parse_axis(const std::vector<Token>& targets, BlockBuilder& block);
  void define_iter_var(const Token& name_tok, BlockBuilder& block, IterKind kind, Range dom,
                       Expr value);
  std::vector<BufferRegion> parse_region_args(const Token& callee);
  BufferRegion parse_region();
  Range parse_axis_dom(DataType value_type);
  // After the opening bracket (and a match_buffer source): shape, dtype and
  // keywords up to and including `close`. With bind_vars (T.match_buffer), a
  // bare undefined name as a stride or elem_offset declares a fresh int32
  // variable that the match binds to the view's value.
  BufferArgs parse_buffer_args(const Token& callee, bool allow_data, std::string_view close,
                               bool bind_vars = false);
  bool paren_is_tuple() const;
  Buffer build_buffer(const std::string& name, const BufferArgs& args);
  void define_buffer(const Token& name_tok, const Buffer& buffer);
  void parse_match_buffer(const Token& name_tok, const Token& callee, BlockBuilder& block);

  // ---- functions (parser.cpp)
  void adopt_tirx_words();
  void skip_imports();
  void parse_decorator(std::string_view ns, std::string_view name);
  // The function and the token of its name.
  std::pair<Token, PrimFunc> parse_function();
  std::vector<Param> parse_params();
  // `I.module_attrs({...})` at the top of the class body; loads the side file.
  void parse_module_attrs(IRModule& module);
  // After `= T.allocate_const`: (metadata["name"], "dtype", [extents]).
  void parse_allocate_const(const Token& target, const Token& callee, Binder& b);

  SourceFile file_;
  ParseOptions options_;
  // Constants T.allocate_const may name; checked only when known_constants_.
  std::map<std::string, std::shared_ptr<const NDArray>, std::less<>> constants_;
  bool known_constants_ = false;
  std::vector<Token> toks_;
  size_t pos_ = 0;
  int nesting_ = 0;
  int binders_ = 0;
  Scope scope_;
  std::vector<BlockBuilder*> blocks_;
  bool saw_block_ = false;
  Surface surface_ = Surface::classic;
  std::unordered_map<const VarNode*, Range> loop_ranges_;
  // Handle parameters that a function-level T.match_buffer may bind.
  std::vector<Param>* params_ = nullptr;
  std::unordered_set<const ExprNode*> literals_;
  std::unordered_map<const ExprNode*, int> depths_;
  std::vector<Expr> keep_alive_;  // keeps the keys of literals_/depths_ unique
};

// A copy of s (a fresh node) carrying the source location l.
Stmt with_loc(const Stmt& s, const SourceLoc& l);

template <class F>
auto Parser::at(const Token& t, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Error& e) {
    if (e.loc().known()) throw;
    throw Error(e.message(), loc(t));
  } catch (const std::exception& e) {
    throw Error(e.what(), loc(t));
  }
}

}  // namespace tirc
