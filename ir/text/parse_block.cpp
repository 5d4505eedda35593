// Blocks (axes, regions, T.init, block-level buffers) and buffer declarations.
#include "ir/arith/region.h"
#include "ir/text/parser_impl.h"

namespace tirc {

namespace {

// Pops the block off the parser's stack however parsing ends.
class BlockStackEntry {
 public:
  BlockStackEntry(std::vector<BlockBuilder*>& stack, BlockBuilder* b) : stack_(stack) {
    stack_.push_back(b);
  }
  ~BlockStackEntry() { stack_.pop_back(); }
  BlockStackEntry(const BlockStackEntry&) = delete;
  BlockStackEntry& operator=(const BlockStackEntry&) = delete;

 private:
  std::vector<BlockBuilder*>& stack_;
};

}  // namespace

Stmt Parser::parse_block(const Token& with_tok) {
  NestingGuard guard(*this, with_tok);
  saw_block_ = true;
  Token callee = peek(2);
  pos_ += 3;
  expect_op("(", "after T.block");
  BlockBuilder b;
  if (peek().kind == TokenKind::String) b.name = advance().text;
  while (accept_op(",")) {
    if (at_op(")")) break;
    Token key = expect_name("as a T.block argument");
    fail(key, "unknown argument '" + key.text + "' of T.block");
  }
  expect_op(")", "to close T.block(");
  Stmt body;
  {
    BlockStackEntry entry(blocks_, &b);
    body = parse_suite("block header", &b);
  }
  auto node = std::make_shared<BlockNode>();
  node->loc = loc(with_tok);
  node->name = b.name;
  node->iter_vars = b.iter_vars;
  node->alloc_buffers = b.alloc_buffers;
  node->match_buffers = b.match_buffers;
  if (b.annotations) node->annotations = *b.annotations;
  node->init = b.init;
  node->body = body;
  bool root_like = b.name == "root" && b.iter_vars.empty();
  if (b.reads) node->reads = *b.reads;
  if (b.writes) node->writes = *b.writes;
  if ((!b.reads || !b.writes) && !root_like) {
    AccessRegions inferred = at(with_tok, [&] { return infer_access_regions(*node); });
    if (!b.reads) node->reads = inferred.reads;
    if (!b.writes) node->writes = inferred.writes;
  }
  Block block = node;
  (void)callee;
  Stmt realize =
      at(with_tok, [&] { return make_block_realize(b.iter_values, b.predicate, block); });
  return with_loc(realize, loc(with_tok));
}

bool Parser::paren_is_tuple() const {
  int depth = 0;
  for (size_t i = pos_; i < toks_.size(); ++i) {
    const Token& t = toks_[i];
    if (t.kind != TokenKind::Op) {
      if (t.kind == TokenKind::Eof || t.kind == TokenKind::Newline) return false;
      continue;
    }
    if (t.text == "(" || t.text == "[" || t.text == "{")
      ++depth;
    else if (t.text == ")" || t.text == "]" || t.text == "}") {
      if (--depth == 0) return false;
    } else if (t.text == "," && depth == 1) {
      return true;
    }
  }
  return false;
}

Range Parser::parse_axis_dom(DataType value_type) {
  (void)value_type;
  const Token& start = peek();
  if (at_op("(") && paren_is_tuple()) {
    advance();
    Expr lo = expect_int_expr(parse_expr(), start, "axis domain");
    expect_op(",", "in the (min, stop) axis domain");
    const Token& hi_tok = peek();
    Expr hi = expect_int_expr(parse_expr(), hi_tok, "axis domain");
    accept_op(",");
    expect_op(")", "to close the (min, stop) axis domain");
    return Range::from_min_extent(lo, hi);  // extent fixed up by the caller once types are known
  }
  Expr extent = expect_int_expr(parse_expr(), start, "axis domain");
  return Range::from_min_extent(Expr(), extent);
}

void Parser::define_iter_var(const Token& name_tok, BlockBuilder& block, IterKind kind, Range dom,
                             Expr value) {
  for (const IterVar& iv : block.iter_vars)
    if (iv.var->name == name_tok.text)
      fail(name_tok, "block iteration variable '" + name_tok.text + "' is defined twice");
  if (scope_.defined_in_innermost(name_tok.text))
    fail(name_tok, "'" + name_tok.text + "' is already defined in this block");
  Var v = make_var(name_tok.text, value.dtype());
  scope_.define(name_tok.text, {v, nullptr});
  block.iter_vars.push_back(IterVar{v, std::move(dom), kind, {}});
  block.iter_values.push_back(std::move(value));
}

void Parser::parse_axis(const std::vector<Token>& targets, BlockBuilder& block) {
  pos_ += 3;  // T . axis
  expect_op(".", "after T.axis");
  Token kind_tok = expect_name("after 'T.axis.'");
  const std::string& k = kind_tok.text;
  if (k == "remap") {
    expect_op("(", "after T.axis.remap");
    const Token& kinds_tok = peek();
    if (kinds_tok.kind != TokenKind::String)
      fail(kinds_tok, "T.axis.remap needs a kinds string like \"SSR\"");
    std::string kinds = advance().text;
    expect_op(",", "after the T.axis.remap kinds");
    std::string close = at_op("[") ? "]" : ")";
    expect_op(close == "]" ? "[" : "(", "to start the T.axis.remap loop variable list");
    std::vector<Token> loop_toks;
    while (!at_op(close)) {
      loop_toks.push_back(expect_name("as a T.axis.remap loop variable"));
      if (!accept_op(",")) break;
    }
    expect_op(close, "to close the T.axis.remap loop variable list");
    accept_op(",");
    expect_op(")", "to close T.axis.remap(");
    if (kinds.size() != loop_toks.size())
      fail(kinds_tok, "T.axis.remap: " + std::to_string(kinds.size()) + " kinds but " +
                          std::to_string(loop_toks.size()) + " loop variables");
    if (kinds.size() != targets.size())
      fail(targets[0], "T.axis.remap defines " + std::to_string(kinds.size()) + " variables but " +
                           std::to_string(targets.size()) + " names are assigned");
    for (size_t i = 0; i < kinds.size(); ++i) {
      IterKind ik;
      if (kinds[i] == 'S')
        ik = IterKind::DataPar;
      else if (kinds[i] == 'R')
        ik = IterKind::Reduce;
      else
        fail(kinds_tok,
             std::string("unknown axis kind '") + kinds[i] + "' in T.axis.remap (expected S or R)");
      Var loop = lookup_var(loop_toks[i]);
      auto it = loop_ranges_.find(loop.get());
      if (it == loop_ranges_.end())
        fail(loop_toks[i], "T.axis.remap: '" + loop_toks[i].text + "' is not a loop variable");
      define_iter_var(targets[i], block, ik, it->second, loop);
    }
    return;
  }
  IterKind ik;
  if (k == "spatial" || k == "S")
    ik = IterKind::DataPar;
  else if (k == "reduce" || k == "R")
    ik = IterKind::Reduce;
  else if (k == "opaque")
    ik = IterKind::Opaque;
  else
    fail(kind_tok, "unknown axis kind T.axis." + k);
  if (targets.size() != 1)
    fail(targets[1], "T.axis." + k + " defines one variable but " + std::to_string(targets.size()) +
                         " names are assigned");
  expect_op("(", "after T.axis." + k);
  Token dom_tok = peek();
  Range dom = parse_axis_dom(DataType::int32());
  expect_op(",", "after the axis domain");
  Token value_tok = peek();
  Expr value = expect_int_expr(parse_expr(), value_tok, "axis binding");
  accept_op(",");
  expect_op(")", "to close T.axis." + k + "(");
  DataType t = value.dtype();
  Expr extent = adopt(dom.extent, t, dom_tok);
  if (dom.min) {
    Expr lo = adopt(dom.min, t, dom_tok), hi = extent;
    unify(lo, hi, dom_tok, "axis domain");
    auto a = as_const_int(lo), b = as_const_int(hi);
    dom = Range::from_min_extent(lo, a && b ? make_int(const_extent(*a, *b, dom_tok), lo.dtype())
                                            : make_binary_at(ExprKind::Sub, hi, lo, dom_tok));
  } else {
    dom = Range::from_min_extent(make_int(0, extent.dtype()), extent);
  }
  if (dom.extent.dtype() != t)
    fail(dom_tok, "axis domain has type " + dom.extent.dtype().str() +
                      " but its binding has type " + t.str());
  define_iter_var(targets[0], block, ik, dom, value);
}

BufferRegion Parser::parse_region() {
  Token name = expect_name("as a buffer region");
  Buffer buffer = lookup_buffer(name);
  if (!at_op("[")) return BufferRegion::full(buffer);
  std::vector<Range> region;
  parse_index_list(buffer, name, true, &region);
  return BufferRegion{buffer, region};
}

std::vector<BufferRegion> Parser::parse_region_args(const Token& callee) {
  expect_op("(", "after T." + callee.text);
  std::vector<BufferRegion> regions;
  bool list = accept_op("[");
  std::string close = list ? "]" : ")";
  while (!at_op(close)) {
    regions.push_back(parse_region());
    if (!accept_op(",")) break;
  }
  expect_op(close, "to close the region list");
  if (list) expect_op(")", "to close T." + callee.text + "(");
  return regions;
}

BufferArgs Parser::parse_buffer_args(const Token& callee, bool allow_data, std::string_view close,
                                     bool bind_vars) {
  BufferArgs args;
  bool have_shape = false;
  int positional = 0;
  std::string fname = "T." + callee.text;
  while (!at_op(close)) {
    if (peek().kind == TokenKind::Name && peek(1).is_op("=")) {
      Token key = advance();
      advance();
      const std::string& k = key.text;
      if (k == "shape") {
        args.shape = parse_shape("shape");
        have_shape = true;
      } else if (k == "dtype") {
        args.dtype = parse_dtype_string("for dtype=");
      } else if (k == "strides") {
        args.strides = parse_shape("stride", bind_vars);
      } else if (k == "elem_offset") {
        args.elem_offset = parse_int_or_declare("elem_offset", bind_vars);
      } else if (k == "scope") {
        if (peek().kind != TokenKind::String) fail(peek(), "scope= needs a string like \"shared\"");
        args.scope = advance().text;
      } else if (k == "align") {
        const Token& t = peek();
        int64_t a = expect_const_int(parse_expr(), t, "align");
        if (a < 0 || a > (1 << 20)) fail(t, "align must be between 0 and 1048576");
        args.align = static_cast<int>(a);
      } else if (k == "offset_factor") {
        const Token& t = peek();
        expect_const_int(parse_expr(), t, "offset_factor");
      } else if (k == "buffer_type") {
        if (peek().kind != TokenKind::String) fail(peek(), "buffer_type= needs a string");
        advance();
      } else if (k == "data" && allow_data) {
        // A handle: an allocation's variable or another buffer's `B.data`.
        Token v = peek();
        Expr e = parse_expr();
        if (!e.as<VarNode>() || !e.dtype().is_handle())
          fail(v, "data= needs a handle variable (an allocation or BUFFER.data), got " +
                      e.dtype().str());
        args.data = std::static_pointer_cast<const VarNode>(e.ptr());
      } else {
        fail(key, "unknown argument '" + k + "' of " + fname);
      }
    } else if (positional == 0) {
      args.shape = parse_shape("shape");
      have_shape = true;
      ++positional;
    } else if (positional == 1) {
      args.dtype = parse_dtype_string("for " + fname);
      ++positional;
    } else {
      fail(peek(), "too many positional arguments to " + fname);
    }
    if (!accept_op(",")) break;
  }
  expect_op(close, "to close " + fname + "(");
  if (!have_shape) fail(callee, fname + " needs a shape");
  if (!args.strides.empty() && args.strides.size() != args.shape.size())
    fail(callee, fname + ": strides has " + std::to_string(args.strides.size()) +
                     " entries but the shape has " + std::to_string(args.shape.size()) +
                     " dimensions");
  return args;
}

Buffer Parser::build_buffer(const std::string& name, const BufferArgs& args) {
  auto b = std::make_shared<BufferNode>();
  b->name = name;
  b->data = args.data ? args.data : make_var(name, DataType::handle());
  b->dtype = args.dtype;
  b->shape = args.shape;
  b->strides = args.strides;
  b->elem_offset = args.elem_offset;
  b->scope = args.scope;
  b->align = args.align;
  return b;
}

void Parser::define_buffer(const Token& name_tok, const Buffer& buffer) {
  if (scope_.defined_in_innermost(name_tok.text))
    fail(name_tok, "'" + name_tok.text + "' is already defined in this scope");
  scope_.define(name_tok.text, {nullptr, buffer});
}

void Parser::parse_match_buffer(const Token& name_tok, const Token& callee, BlockBuilder& block) {
  expect_op("(", "after T.match_buffer");
  if (block.is_function) {
    Token src = expect_name("as the T.match_buffer source (a handle parameter)");
    Param* param = nullptr;
    if (params_)
      for (Param& p : *params_)
        if (!p.buffer && p.var->name == src.text && p.var->dtype.is_handle()) param = &p;
    if (!param) fail(src, "T.match_buffer source '" + src.text + "' is not a handle parameter");
    const Binding* bound = scope_.lookup(src.text);
    if (!bound || bound->var != param->var)
      fail(src, "T.match_buffer source '" + src.text + "' is not a handle parameter");
    expect_op(",", "after the T.match_buffer source");
    Buffer buffer = build_buffer(name_tok.text, parse_buffer_args(callee, false, ")", true));
    param->buffer = buffer;
    define_buffer(name_tok, buffer);
    return;
  }
  BufferRegion source = parse_region();
  expect_op(",", "after the T.match_buffer source region");
  Buffer buffer = build_buffer(name_tok.text, parse_buffer_args(callee, false, ")", true));
  define_buffer(name_tok, buffer);
  block.match_buffers.push_back(MatchBufferRegion{buffer, source});
}

}  // namespace tirc
