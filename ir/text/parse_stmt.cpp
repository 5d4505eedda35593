// Statements: suites, loops, if/else, stores, lets, allocations, T.* statements.
#include "ir/text/parser_impl.h"

namespace tirc {

namespace {

template <class N>
Stmt copy_with_loc(const Stmt& s, const SourceLoc& l) {
  auto n = std::make_shared<N>(*s.as<N>());
  n->loc = l;
  return n;
}

const std::unordered_set<std::string>& unsupported_keywords() {
  static const std::unordered_set<std::string> k = {
      "while", "return", "def",    "class",  "del",    "break", "continue", "try",
      "raise", "assert", "lambda", "global", "import", "from",  "yield",    "async"};
  return k;
}

}  // namespace

Stmt with_loc(const Stmt& s, const SourceLoc& l) {
  switch (s.kind()) {
    case StmtKind::BufferStore:
      return copy_with_loc<BufferStoreNode>(s, l);
    case StmtKind::For:
      return copy_with_loc<ForNode>(s, l);
    case StmtKind::BlockRealize:
      return copy_with_loc<BlockRealizeNode>(s, l);
    case StmtKind::IfThenElse:
      return copy_with_loc<IfThenElseNode>(s, l);
    case StmtKind::Evaluate:
      return copy_with_loc<EvaluateNode>(s, l);
    default:
      return s;
  }
}

Stmt Parser::parse_suite(std::string_view header, BlockBuilder* direct_block) {
  expect_op(":", "after " + std::string(header));
  NestingGuard guard(*this, peek());
  ScopeFrame frame(scope_);
  if (peek().kind != TokenKind::Newline) {
    // `for i in range(4): A[i] = 0`: one statement on the header line.
    std::vector<std::vector<Stmt>> segments(1);
    std::vector<Binder> binders;
    parse_statement(direct_block, segments.back(), binders, segments);
    return finish_binders(binders, segments);
  }
  advance();
  if (peek().kind != TokenKind::Indent)
    fail(peek(), "expected an indented block after " + std::string(header));
  advance();
  Stmt body = parse_statements(direct_block);
  if (peek().kind != TokenKind::Dedent)
    fail(peek(), "expected end of indented block, found " + describe(peek()));
  advance();
  return body;
}

Stmt Parser::parse_statements(BlockBuilder* direct_block) {
  std::vector<std::vector<Stmt>> segments(1);
  std::vector<Binder> binders;
  while (peek().kind != TokenKind::Dedent && peek().kind != TokenKind::Eof)
    parse_statement(direct_block, segments.back(), binders, segments);
  return finish_binders(binders, segments);
}

Stmt Parser::finish_binders(std::vector<Binder>& binders,
                            std::vector<std::vector<Stmt>>& segments) {
  binders_ -= static_cast<int>(binders.size());
  Stmt body = make_seq(segments.back());
  for (size_t i = binders.size(); i-- > 0;) {
    if (!body) body = make_evaluate(make_int(0));
    Binder& b = binders[i];
    std::shared_ptr<StmtNode> node;
    if (b.kind == StmtKind::LetStmt)
      node = std::make_shared<LetStmtNode>(b.var, b.value, body);
    else if (b.kind == StmtKind::Allocate)
      node = std::make_shared<AllocateNode>(b.var, b.dtype, b.extents, b.scope, body);
    else if (b.kind == StmtKind::AllocateConst)
      node = std::make_shared<AllocateConstNode>(b.var, b.dtype, b.extents, b.constant, body);
    else
      node = std::make_shared<DeclBufferNode>(b.buffer, body);
    node->loc = b.loc;
    std::vector<Stmt> seq = segments[i];
    seq.push_back(Stmt(node));
    body = make_seq(std::move(seq));
  }
  if (!body) body = make_evaluate(make_int(0));
  return body;
}

BlockBuilder& Parser::innermost_block(const Token& t, std::string_view what) {
  if (blocks_.empty()) fail(t, std::string(what) + " is only allowed inside a function or block");
  return *blocks_.back();
}

void Parser::parse_statement(BlockBuilder* direct_block, std::vector<Stmt>& out,
                             std::vector<Binder>& binders,
                             std::vector<std::vector<Stmt>>& segments) {
  const Token& t = peek();
  switch (t.kind) {
    case TokenKind::Indent:
      fail(t, "unexpected indentation");
    case TokenKind::Newline:
      advance();
      return;
    case TokenKind::String:  // a docstring
      advance();
      expect_newline("after the string");
      return;
    case TokenKind::Name:
      break;
    default:
      fail(t, "expected a statement, found " + describe(t));
  }
  SourceLoc here = loc(t);
  if (t.text == "for") {
    out.push_back(parse_for());
    return;
  }
  if (t.text == "if") {
    Token if_tok = advance();
    out.push_back(parse_if(if_tok));
    return;
  }
  if (t.text == "elif" || t.text == "else") fail(t, "'" + t.text + "' without a matching 'if'");
  if (t.text == "pass") {
    advance();
    expect_newline("after 'pass'");
    return;
  }
  if (t.text == "with") {
    Token with_tok = advance();
    if (at_t_attr("block")) {
      out.push_back(parse_block(with_tok));
      return;
    }
    if (at_t_attr("init")) {
      if (!direct_block || direct_block->is_function)
        fail(peek(2), "with T.init() must be directly inside a block");
      if (direct_block->init)
        fail(peek(2), "block '" + direct_block->name + "' has two T.init() sections");
      Token init_tok = peek(2);
      pos_ += 3;
      expect_op("(", "after T.init");
      expect_op(")", "after T.init(");
      Stmt init = parse_suite("with T.init()", nullptr);
      direct_block->init = init;
      return;
    }
    fail(peek(), "unsupported 'with' statement: expected T.block(...) or T.init()");
  }
  if (unsupported_keywords().count(t.text))
    fail(t, "'" + t.text + "' statements are not supported");
  if (t.text == "T" && peek(1).is_op(".")) {
    Stmt s = parse_t_statement(direct_block);
    if (s) out.push_back(with_loc(s, here));
    return;
  }
  if (peek(1).is_op("[")) {
    Token name = advance();
    out.push_back(with_loc(parse_store(name), here));
    return;
  }
  if (peek(1).is_op("=") || peek(1).is_op(":") || peek(1).is_op(",")) {
    size_t before = binders.size();
    parse_assignment(direct_block, out, binders);
    if (binders.size() != before) {
      if (++binders_ > kMaxBinders) fail(t, "too many nested declarations");
      segments.emplace_back();
    }
    return;
  }
  fail(t, "expected a statement, found " + describe(t));
}

Stmt Parser::parse_store(const Token& name_tok) {
  Buffer buffer = lookup_buffer(name_tok);
  std::vector<Expr> indices = parse_index_list(buffer, name_tok, false, nullptr);
  expect_op("=", "after the indexed buffer (a store)");
  const Token& value_tok = peek();
  Expr value = adopt(parse_expr(), buffer->dtype, value_tok);
  if (value.dtype().element_of() != buffer->dtype.element_of())
    fail(value_tok, "cannot store a " + value.dtype().str() + " value into buffer '" +
                        buffer->name + "' of type " + buffer->dtype.str());
  expect_newline("after the store");
  return at(name_tok, [&] { return make_store(buffer, value, indices); });
}

void Parser::parse_assignment(BlockBuilder* direct_block, std::vector<Stmt>& out,
                              std::vector<Binder>& binders) {
  (void)out;
  std::vector<Token> targets{advance()};
  while (accept_op(",")) targets.push_back(expect_name("as an assignment target"));
  const Token& first = targets[0];
  if (targets.size() == 1 && accept_op(":")) {
    // `x: T.int32 = value`, or as TVM 0.27 prints it `x: T.let[T.int32] = value`
    const bool tirx_let = at_t_attr("let");
    if (tirx_let) {
      pos_ += 3;
      expect_op("[", "after T.let");
      surface_ = Surface::tirx;
    }
    const Token& t_tok = peek();
    if (!t_tok.is_name("T") || !peek(1).is_op("."))
      fail(t_tok, "expected a type like T.int32 after ':'");
    pos_ += 2;
    Token type_tok = expect_name("after 'T.'");
    DataType t = dtype_of_name(type_tok);
    if (tirx_let) expect_op("]", "to close T.let[");
    expect_op("=", "after the type of '" + first.text + "'");
    const Token& value_tok = peek();
    Expr value = adopt(parse_expr(), t, value_tok);
    if (value.dtype() != t)
      fail(value_tok, "value of '" + first.text + "' has type " + value.dtype().str() +
                          " but is declared T." + t.str());
    expect_newline("after the let binding");
    if (scope_.defined_in_innermost(first.text))
      fail(first, "'" + first.text + "' is already defined in this scope");
    Var v = make_var(first.text, t);
    scope_.define(first.text, {v, nullptr});
    binders.push_back(Binder{StmtKind::LetStmt, loc(first), v, value, t, {}, {}, nullptr, {}});
    return;
  }
  expect_op("=", "after the assignment target");
  if (at_t_attr("axis")) {
    if (!direct_block || direct_block->is_function)
      fail(peek(2), "T.axis must be directly inside a block");
    parse_axis(targets, *direct_block);
    expect_newline("after the block axis");
    return;
  }
  if (targets.size() > 1) fail(targets[1], "only T.axis.remap can assign several names");
  auto define_checked = [&](const Binding& b) {
    if (scope_.defined_in_innermost(first.text))
      fail(first, "'" + first.text + "' is already defined in this scope");
    scope_.define(first.text, b);
  };
  if (at_t_attr("alloc_buffer")) {
    Token callee = peek(2);
    pos_ += 3;
    BlockBuilder& block = innermost_block(callee, "T.alloc_buffer");
    std::string close = at_op("[") ? "]" : ")";
    expect_op(close == "]" ? "[" : "(", "after T.alloc_buffer");
    Buffer buffer = build_buffer(first.text, parse_buffer_args(callee, false, close));
    define_buffer(first, buffer);
    block.alloc_buffers.push_back(buffer);
  } else if (at_t_attr("match_buffer")) {
    Token callee = peek(2);
    pos_ += 3;
    if (!direct_block)
      fail(callee, "T.match_buffer must be at the top of a function or directly inside a block");
    parse_match_buffer(first, callee, *direct_block);
  } else if (at_t_attr("allocate")) {
    Token callee = peek(2);
    pos_ += 3;
    expect_op("(", "after T.allocate");
    Binder b{StmtKind::Allocate,
             loc(first),
             make_var(first.text, DataType::handle()),
             {},
             DataType::float32(),
             {},
             "global",
             nullptr,
             {}};
    b.extents = parse_shape("allocation extent");
    if (accept_op(",") && !at_op(")")) {
      if (!peek(1).is_op("=")) {
        b.dtype = parse_dtype_string("for T.allocate");
        if (accept_op(",") && !at_op(")") && !peek(1).is_op("=")) {
          const Token& s = peek();
          if (s.kind != TokenKind::String) fail(s, "expected a storage scope string");
          b.scope = advance().text;
          accept_op(",");
        }
      }
      while (peek().kind == TokenKind::Name && peek(1).is_op("=")) {
        Token key = advance();
        advance();
        if (key.text == "scope" || key.text == "dtype") {
          if (key.text == "dtype") {
            b.dtype = parse_dtype_string("for dtype=");
          } else {
            const Token& s = peek();
            if (s.kind != TokenKind::String) fail(s, "expected a storage scope string");
            b.scope = advance().text;
          }
        } else {
          fail(key, "unknown argument '" + key.text + "' of T.allocate");
        }
        if (!accept_op(",")) break;
      }
    }
    expect_op(")", "to close T.allocate(");
    define_checked({b.var, nullptr});
    binders.push_back(std::move(b));
  } else if (at_t_attr("allocate_const")) {
    Token callee = peek(2);
    pos_ += 3;
    Binder b{StmtKind::AllocateConst,
             loc(first),
             make_var(first.text, DataType::handle()),
             {},
             DataType::float32(),
             {},
             {},
             nullptr,
             {}};
    parse_allocate_const(first, callee, b);
    define_checked({b.var, nullptr});
    binders.push_back(std::move(b));
  } else if (at_t_attr("decl_buffer")) {
    Token callee = peek(2);
    pos_ += 3;
    expect_op("(", "after T.decl_buffer");
    Buffer buffer = build_buffer(first.text, parse_buffer_args(callee, true, ")"));
    define_buffer(first, buffer);
    binders.push_back(
        Binder{StmtKind::DeclBuffer, loc(first), nullptr, {}, buffer->dtype, {}, {}, buffer, {}});
  } else if (at_t_attr("Buffer")) {
    // `A_1 = T.Buffer((16384,), data=A.data)`: a view over existing storage
    // (lowered IR prints flat buffers this way); it declares only a name.
    Token callee = peek(2);
    pos_ += 3;
    expect_op("(", "after T.Buffer");
    BufferArgs args = parse_buffer_args(callee, true, ")");
    if (!args.data)
      fail(callee, "T.Buffer in a function body needs data= (an allocation or BUFFER.data)");
    define_buffer(first, build_buffer(first.text, args));
  } else if (peek().is_name("T") && peek(1).is_op(".") && peek(2).kind == TokenKind::Name &&
             peek(3).is_op("(") && peek(4).is_op(")") && DataType::parse(peek(2).text)) {
    // `n = T.int32()`: a fresh symbolic variable.
    DataType t = dtype_of_name(peek(2));
    pos_ += 5;
    define_checked({make_var(first.text, t), nullptr});
  } else {
    Expr value = parse_expr();
    Var v = make_var(first.text, value.dtype());
    define_checked({v, nullptr});
    binders.push_back(
        Binder{StmtKind::LetStmt, loc(first), v, value, value.dtype(), {}, {}, nullptr, {}});
  }
  expect_newline("after the assignment");
}

Stmt Parser::parse_for() {
  Token for_tok = advance();
  std::vector<Token> vars{expect_name("as the loop variable")};
  while (accept_op(",")) vars.push_back(expect_name("as a loop variable"));
  if (!at_name("in"))
    fail(peek(), "expected 'in' after the loop variables, found " + describe(peek()));
  advance();
  ForKind kind = ForKind::Serial;
  std::string thread;
  Annotations ann;
  bool grid = false;
  Token callee = peek();
  std::string label;
  if (at_name("range")) {
    advance();
    label = "range";
  } else if (peek().is_name("T") && peek(1).is_op(".") && peek(2).kind == TokenKind::Name) {
    callee = peek(2);
    label = "T." + callee.text;
    const std::string& f = callee.text;
    if (f == "serial")
      kind = ForKind::Serial;
    else if (f == "parallel")
      kind = ForKind::Parallel;
    else if (f == "vectorized")
      kind = ForKind::Vectorized;
    else if (f == "unroll")
      kind = ForKind::Unrolled;
    else if (f == "thread_binding")
      kind = ForKind::ThreadBinding;
    else if (f == "grid")
      grid = true;
    else
      fail(callee, "unknown loop kind T." + f);
    pos_ += 3;
  } else {
    fail(peek(), "expected range(...), T.grid(...) or a T.serial-style loop after 'in', found " +
                     describe(peek()));
  }
  expect_op("(", "after " + label);
  std::vector<std::pair<Token, Expr>> args;
  bool have_thread = false;
  while (!at_op(")")) {
    if (peek().kind == TokenKind::Name && peek(1).is_op("=")) {
      Token key = advance();
      advance();
      if (key.text == "annotations" && !grid && label != "range") {
        ann = parse_annotation_dict();
      } else if (key.text == "thread" && kind == ForKind::ThreadBinding) {
        if (peek().kind != TokenKind::String)
          fail(peek(), "thread= needs a string like \"threadIdx.x\"");
        thread = advance().text;
        have_thread = true;
      } else {
        fail(key, "unknown argument '" + key.text + "' of " + label);
      }
    } else if (peek().kind == TokenKind::String && kind == ForKind::ThreadBinding) {
      thread = advance().text;
      have_thread = true;
    } else {
      Token at_tok = peek();
      Expr e = parse_expr();
      if (!e.dtype().is_integer() || !e.dtype().is_scalar())
        fail(at_tok, "loop bound must be an integer, got " + e.dtype().str());
      args.emplace_back(at_tok, e);
    }
    if (!accept_op(",")) break;
  }
  expect_op(")", "to close " + label + "(");
  if (kind == ForKind::ThreadBinding && !have_thread)
    fail(callee, "T.thread_binding needs thread=\"...\"");
  std::vector<Range> ranges;
  if (grid) {
    if (args.size() != vars.size())
      fail(callee, "T.grid has " + std::to_string(args.size()) + " extents but " +
                       std::to_string(vars.size()) + " loop variables");
    for (auto& [tok, e] : args) ranges.push_back(Range::from_min_extent(make_int(0, e.dtype()), e));
  } else {
    if (args.empty() || args.size() > 2)
      fail(callee, label + " takes 1 or 2 bounds, got " + std::to_string(args.size()));
    if (vars.size() != 1)
      fail(vars[1],
           label + " defines one loop variable but " + std::to_string(vars.size()) + " are given");
    if (args.size() == 1) {
      Expr e = args[0].second;
      ranges.push_back(Range::from_min_extent(make_int(0, e.dtype()), e));
    } else {
      Expr start = args[0].second, stop = args[1].second;
      unify(start, stop, args[1].first, label);
      auto a = as_const_int(start), b = as_const_int(stop);
      Expr extent = a && b ? make_int(const_extent(*a, *b, args[1].first), start.dtype())
                           : make_binary_at(ExprKind::Sub, stop, start, args[1].first);
      ranges.push_back(Range::from_min_extent(start, extent));
    }
  }
  ScopeFrame frame(scope_);
  std::vector<Var> loop_vars;
  for (size_t i = 0; i < vars.size(); ++i) {
    if (scope_.defined_in_innermost(vars[i].text))
      fail(vars[i], "loop variable '" + vars[i].text + "' is defined twice");
    Var v = make_var(vars[i].text, ranges[i].extent.dtype());
    scope_.define(vars[i].text, {v, nullptr});
    loop_ranges_[v.get()] = ranges[i];
    loop_vars.push_back(v);
  }
  Stmt body = parse_suite("for header", nullptr);
  for (size_t i = loop_vars.size(); i-- > 0;) {
    bool innermost_of_grid = i + 1 == loop_vars.size();
    body = at(for_tok, [&] {
      return make_for(loop_vars[i], ranges[i].min, ranges[i].extent, kind, body, thread,
                      innermost_of_grid ? ann : Annotations{});
    });
    body = with_loc(body, loc(i == 0 ? for_tok : vars[i]));
  }
  return body;
}

Stmt Parser::parse_if(const Token& if_tok) {
  NestingGuard guard(*this, if_tok);
  const Token& cond_tok = peek();
  Expr cond = parse_expr();
  if (!cond.dtype().is_bool())
    fail(cond_tok, "if condition must be bool, got " + cond.dtype().str());
  Stmt then_case = parse_suite("if condition", nullptr);
  Stmt else_case;
  if (at_name("elif")) {
    Token elif_tok = advance();
    else_case = parse_if(elif_tok);
  } else if (at_name("else")) {
    advance();
    else_case = parse_suite("else", nullptr);
  }
  return with_loc(at(if_tok, [&] { return make_if(cond, then_case, else_case); }), loc(if_tok));
}

Stmt Parser::parse_t_statement(BlockBuilder* direct_block) {
  Token callee = peek(2);
  if (callee.kind != TokenKind::Name) fail(callee, "expected a name after 'T.'");
  const std::string& f = callee.text;
  pos_ += 3;
  auto in_block = [&]() -> BlockBuilder& {
    if (!direct_block || direct_block->is_function)
      fail(callee, "T." + f + " must be directly inside a block");
    return *direct_block;
  };
  Stmt result;
  if (f == "evaluate") {
    auto args = parse_call_args(callee, 1, 1);
    result = make_evaluate(args[0]);
  } else if (f == "call_kernel") {
    result = make_evaluate(parse_call_kernel(callee));
  } else if (f == "func_attr") {
    if (!direct_block || !direct_block->is_function)
      fail(callee, "T.func_attr must be at the top of the function body");
    if (direct_block->annotations) fail(callee, "T.func_attr is given twice");
    expect_op("(", "after T.func_attr");
    direct_block->annotations = parse_annotation_dict();
    expect_op(")", "to close T.func_attr(");
  } else if (f == "block_attr") {
    BlockBuilder& b = in_block();
    if (b.annotations) fail(callee, "T.block_attr is given twice");
    expect_op("(", "after T.block_attr");
    b.annotations = parse_annotation_dict();
    expect_op(")", "to close T.block_attr(");
  } else if (f == "reads" || f == "writes") {
    BlockBuilder& b = in_block();
    auto& slot = f == "reads" ? b.reads : b.writes;
    if (slot) fail(callee, "T." + f + " is given twice");
    slot = parse_region_args(callee);
  } else if (f == "where") {
    BlockBuilder& b = in_block();
    if (b.predicate) fail(callee, "T.where is given twice");
    auto args = parse_call_args(callee, 1, 1);
    if (!args[0].dtype().is_bool())
      fail(callee, "T.where needs a bool condition, got " + args[0].dtype().str());
    b.predicate = args[0];
  } else {
    fail(callee, "unknown statement T." + f);
  }
  expect_newline("after T." + f + "(...)");
  return result;
}

}  // namespace tirc

namespace tirc {

void Parser::parse_allocate_const(const Token& target, const Token& callee, Binder& b) {
  const std::string usage = "T.allocate_const(metadata[\"name\"], \"dtype\", [extents])";
  expect_op("(", "after T.allocate_const");
  if (!at_name("metadata") || !peek(1).is_op("["))
    fail(peek(), "expected metadata[\"name\"] as the first argument of " + usage + ", found " +
                     describe(peek()));
  advance();
  advance();
  const Token& name_tok = peek();
  if (name_tok.kind != TokenKind::String)
    fail(name_tok,
         "expected the constant's name as a string in metadata[...], found " + describe(name_tok));
  b.constant = advance().text;
  expect_op("]", "to close metadata[...]");
  if (known_constants_ && !constants_.count(b.constant))
    fail(name_tok, "unknown constant '" + b.constant + "' (the module has " +
                       std::to_string(constants_.size()) + " constant" +
                       (constants_.size() == 1 ? "" : "s") + ")");
  expect_op(",", "after metadata[...] in " + usage);
  b.dtype = parse_dtype_string("as the second argument of T.allocate_const");
  expect_op(",", "after the dtype in " + usage);
  if (!at_op("[") && !at_op("("))
    fail(peek(), "expected the extents list of " + usage + ", found " + describe(peek()));
  const Token& shape_tok = peek();
  b.extents = parse_shape("allocate_const extent");
  for (const Expr& e : b.extents) {
    auto v = as_const_int(e);
    if (!v || *v <= 0)
      fail(shape_tok,
           "extents of T.allocate_const '" + target.text + "' must be positive integer constants");
  }
  accept_op(",");
  expect_op(")", "to close T.allocate_const(");
  (void)callee;
}

}  // namespace tirc
