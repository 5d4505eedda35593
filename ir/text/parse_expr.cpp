// Expressions: Python precedence, TVMScript literal typing, T.* intrinsics.
#include <cmath>
#include <limits>

#include "ir/intrinsic.h"
#include "ir/text/operators.h"
#include "ir/text/parser_impl.h"

namespace tirc {

namespace {

std::vector<const ExprNode*> children_of(const Expr& e) {
  std::vector<const ExprNode*> out;
  if (auto* b = e.as<BinaryNode>())
    out = {b->a.get(), b->b.get()};
  else if (auto* n = e.as<NotNode>())
    out = {n->a.get()};
  else if (auto* c = e.as<CastNode>())
    out = {c->value.get()};
  else if (auto* s = e.as<SelectNode>())
    out = {s->cond.get(), s->true_value.get(), s->false_value.get()};
  else if (auto* call = e.as<CallNode>())
    for (const Expr& a : call->args) out.push_back(a.get());
  else if (auto* r = e.as<RampNode>())
    out = {r->base.get(), r->stride.get()};
  else if (auto* bc = e.as<BroadcastNode>())
    out = {bc->value.get()};
  else if (auto* l = e.as<BufferLoadNode>())
    for (const Expr& i : l->indices) out.push_back(i.get());
  return out;
}

bool fits(int64_t v, DataType t) {
  if (t.is_bool()) return v == 0 || v == 1;
  if (t.bits() >= 64) return !t.is_uint() || v >= 0;
  if (t.is_uint()) return v >= 0 && v < (int64_t{1} << t.bits());
  int64_t half = int64_t{1} << (t.bits() - 1);
  return v >= -half && v < half;
}

bool is_immediate(const Expr& e) {
  return e.as<IntImmNode>() || e.as<FloatImmNode>();
}

}  // namespace

// ---- literal typing --------------------------------------------------------

Expr Parser::mark_literal(Expr e) {
  literals_.insert(e.get());
  keep_alive_.push_back(e);
  return e;
}

int Parser::depth_of(const Expr& e) const {
  auto it = depths_.find(e.get());
  return it == depths_.end() ? 1 : it->second;
}

Expr Parser::track_depth(Expr e, const Token& t) {
  int depth = 1;
  for (const ExprNode* c : children_of(e)) {
    auto it = depths_.find(c);
    depth = std::max(depth, 1 + (it == depths_.end() ? 1 : it->second));
  }
  if (depth > kMaxExprDepth) fail(t, "expression nesting too deep");
  if (depth > 1) {
    depths_[e.get()] = depth;
    keep_alive_.push_back(e);
  }
  return e;
}

Expr Parser::adopt(const Expr& e, DataType t, const Token& at_tok) {
  if (!is_literal(e) || e.dtype() == t || !t.is_scalar()) return e;
  if (auto* i = e.as<IntImmNode>()) {
    if (t.is_integer() || t.is_bool()) {
      if (!fits(i->value, t))
        fail(at_tok, "literal " + std::to_string(i->value) + " is out of range for " + t.str());
      return mark_literal(make_int(i->value, t));
    }
    if (t.is_float()) return mark_literal(make_float(static_cast<double>(i->value), t));
  } else if (auto* f = e.as<FloatImmNode>()) {
    if (t.is_float()) return mark_literal(make_float(f->value, t));
  }
  return e;
}

void Parser::unify(Expr& a, Expr& b, const Token& op, std::string_view op_name) {
  if (a.dtype() == b.dtype()) return;
  bool la = is_literal(a), lb = is_literal(b);
  if (lb && !la)
    b = adopt(b, a.dtype(), op);
  else if (la && !lb)
    a = adopt(a, b.dtype(), op);
  else if (la && lb) {
    // Two bare literals: an int meeting a float becomes a float.
    if (a.dtype().is_float())
      b = adopt(b, a.dtype(), op);
    else if (b.dtype().is_float())
      a = adopt(a, b.dtype(), op);
    else if (a.dtype().bits() < b.dtype().bits())
      a = adopt(a, b.dtype(), op);
    else
      b = adopt(b, a.dtype(), op);
  }
  if (a.dtype() != b.dtype())
    fail(op, "operands of " + std::string(op_name) + " have different types: " + a.dtype().str() +
                 " and " + b.dtype().str());
}

Expr Parser::make_binary_at(ExprKind kind, Expr a, Expr b, const Token& op) {
  std::string name = operator_spelling(kind, a ? a.dtype() : DataType::float32()).text;
  unify(a, b, op, name);
  DataType t = a.dtype();
  if (kind == ExprKind::And || kind == ExprKind::Or) {
    if (!t.is_bool()) fail(op, "operands of '" + name + "' must be bool, got " + t.str());
  } else if (kind < ExprKind::EQ && (t.is_bool() || t.is_handle())) {
    fail(op, "operator " + name + " is not defined for " + t.str() + " operands");
  }
  if ((kind == ExprKind::FloorDiv || kind == ExprKind::FloorMod || kind == ExprKind::Mod) &&
      t.is_float())
    fail(op, "operator " + name + " needs integer operands, got " + t.str());
  Expr result = at(op, [&] { return make_binary(kind, a, b); });
  return track_depth(result, op);
}

// ---- precedence levels -----------------------------------------------------

Parser::NestingGuard::NestingGuard(Parser& p, const Token& t) : p_(p) {
  if (++p_.nesting_ > kMaxNesting) {
    --p_.nesting_;
    p_.fail(t, "nesting too deep");
  }
}

Expr Parser::parse_expr() {
  NestingGuard guard(*this, peek());
  return parse_or();
}

Expr Parser::parse_or() {
  Expr lhs = parse_and();
  while (at_name("or")) {
    Token op = advance();
    lhs = make_binary_at(ExprKind::Or, lhs, parse_and(), op);
  }
  return lhs;
}

Expr Parser::parse_and() {
  Expr lhs = parse_not();
  while (at_name("and")) {
    Token op = advance();
    lhs = make_binary_at(ExprKind::And, lhs, parse_not(), op);
  }
  return lhs;
}

Expr Parser::parse_not() {
  if (!at_name("not")) return parse_comparison();
  Token op = advance();
  NestingGuard guard(*this, op);
  Expr a = parse_not();
  if (!a.dtype().is_bool()) fail(op, "operand of 'not' must be bool, got " + a.dtype().str());
  return track_depth(at(op, [&] { return make_not(a); }), op);
}

Expr Parser::parse_comparison() {
  static const std::pair<std::string_view, ExprKind> kOps[] = {
      {"==", ExprKind::EQ}, {"!=", ExprKind::NE}, {"<", ExprKind::LT},
      {"<=", ExprKind::LE}, {">", ExprKind::GT},  {">=", ExprKind::GE}};
  Expr lhs = parse_arith();
  for (auto [spelling, kind] : kOps) {
    if (!at_op(spelling)) continue;
    Token op = advance();
    Expr result = make_binary_at(kind, lhs, parse_arith(), op);
    for (auto [other, unused] : kOps)
      if (at_op(other)) fail(peek(), "chained comparisons are not supported; use 'and'");
    return result;
  }
  return lhs;
}

Expr Parser::parse_arith() {
  Expr lhs = parse_term();
  while (at_op("+") || at_op("-")) {
    Token op = advance();
    lhs = make_binary_at(op.text == "+" ? ExprKind::Add : ExprKind::Sub, lhs, parse_term(), op);
  }
  return lhs;
}

Expr Parser::parse_term() {
  Expr lhs = parse_unary();
  while (at_op("*") || at_op("/") || at_op("//") || at_op("%")) {
    Token op = advance();
    ExprKind kind = op.text == "*"    ? ExprKind::Mul
                    : op.text == "/"  ? ExprKind::Div
                    : op.text == "//" ? ExprKind::FloorDiv
                                      : ExprKind::FloorMod;
    lhs = make_binary_at(kind, lhs, parse_unary(), op);
  }
  return lhs;
}

Expr Parser::parse_unary() {
  if (!at_op("-") && !at_op("+")) return parse_postfix();
  Token op = advance();
  NestingGuard guard(*this, op);
  Expr a = parse_unary();
  if (op.text == "+") return a;
  if (is_literal(a)) {
    if (auto* i = a.as<IntImmNode>()) return mark_literal(make_int(-i->value, a.dtype()));
    if (auto* f = a.as<FloatImmNode>()) return mark_literal(make_float(-f->value, a.dtype()));
  }
  DataType t = a.dtype();
  if (!t.is_scalar() || !(t.is_integer() || t.is_float()))
    fail(op, "unary minus is not defined for " + t.str());
  if (t.is_uint()) fail(op, "unary minus of unsigned type " + t.str());
  Expr minus_one = t.is_float() ? make_float(-1.0, t) : make_int(-1, t);
  return track_depth(at(op, [&] { return make_binary(ExprKind::Mul, a, minus_one); }), op);
}

Expr Parser::parse_postfix() {
  Expr e = parse_primary();
  if (at_op("[") || at_op("(") || at_op("."))
    fail(peek(), "unexpected '" + peek().text + "' after expression");
  return e;
}

namespace {

bool is_keyword(const std::string& name) {
  static const std::unordered_set<std::string> kKeywords = {
      "and", "or",    "not",    "in",   "for",  "if",     "else", "elif",   "with",
      "def", "class", "return", "None", "pass", "lambda", "is",   "import", "from"};
  return kKeywords.count(name) > 0;
}

}  // namespace

Expr Parser::parse_primary() {
  const Token& t = peek();
  switch (t.kind) {
    case TokenKind::Int: {
      Token tok = advance();
      bool small = tok.int_value <= std::numeric_limits<int32_t>::max();
      return mark_literal(make_int(tok.int_value, small ? DataType::int32() : DataType::int64()));
    }
    case TokenKind::Float:
      return mark_literal(make_float(advance().float_value, DataType::float32()));
    case TokenKind::String:
      fail(t, "a string is not allowed here");
    case TokenKind::Name:
      break;
    default:
      if (t.is_op("(")) {
        advance();
        Expr e = parse_expr();
        if (at_op(",")) fail(peek(), "tuples are not expressions here");
        expect_op(")", "to close '('");
        return e;
      }
      fail(t, "expected an expression, found " + describe(t));
  }
  Token name = advance();
  if (name.text == "True" || name.text == "False") return make_bool(name.text == "True");
  if (name.text == "T" && at_op(".")) return parse_t_expr(name);
  if (is_keyword(name.text))
    fail(name, "expected an expression, found keyword '" + name.text + "'");
  const Binding* b = scope_.lookup(name.text);
  if (!b) fail(name, "undefined variable '" + name.text + "'");
  if (b->var) return b->var;
  if (at_op("[")) return parse_load(b->buffer, name);
  if (at_op(".")) {
    advance();
    const Token& attr = expect_name("after '.'");
    if (attr.text == "data") return b->buffer->data;
    fail(attr, "buffer '" + name.text + "' has no attribute '" + attr.text + "'");
  }
  fail(name, "buffer '" + name.text + "' used as a value; index it as " + name.text + "[...]");
}

// ---- buffers ---------------------------------------------------------------

std::vector<Expr> Parser::parse_index_list(const Buffer& buffer, const Token& name_tok,
                                           bool allow_slices, std::vector<Range>* region) {
  expect_op("[", "to index buffer");
  std::vector<Expr> indices;
  auto check_int = [&](const Expr& e, const Token& t) {
    if (!e.dtype().is_integer())
      fail(t, "index of buffer '" + buffer->name + "' must be an integer, got " + e.dtype().str());
  };
  if (at_op("(") && peek(1).is_op(")") && peek(2).is_op("]")) {
    pos_ += 2;  // `()`: zero indices
  } else {
    while (true) {
      const Token& start = peek();
      size_t dim = indices.size();
      Expr lo, hi;
      bool slice = false;
      if (!at_op(":")) {
        lo = parse_expr();
        check_int(lo, start);
      }
      if (at_op(":")) {
        if (!allow_slices)
          fail(peek(), "slices are only allowed in regions (T.reads, T.writes, T.match_buffer)");
        slice = true;
        advance();
        if (!at_op(",") && !at_op("]")) {
          const Token& hi_tok = peek();
          hi = parse_expr();
          check_int(hi, hi_tok);
        }
      }
      if (slice) {
        Expr extent_hint = dim < buffer->shape.size() ? buffer->shape[dim] : Expr(0);
        if (!lo) lo = make_int(0, hi ? hi.dtype() : extent_hint.dtype());
        if (!hi) {
          if (dim >= buffer->shape.size())
            fail(start, "slice past the last dimension of '" + buffer->name + "'");
          hi = buffer->shape[dim];
        }
        Token op = start;
        unify(lo, hi, op, ":");
        Expr extent;
        auto a = as_const_int(lo), b = as_const_int(hi);
        if (a && b)
          extent = make_int(const_extent(*a, *b, op), lo.dtype());
        else
          extent = make_binary_at(ExprKind::Sub, hi, lo, op);
        if (region) region->push_back(Range::from_min_extent(lo, extent));
        indices.push_back(lo);
      } else {
        if (region) region->push_back(Range::from_min_extent(lo, make_int(1, lo.dtype())));
        indices.push_back(lo);
      }
      if (!accept_op(",")) break;
      if (at_op("]")) break;
    }
  }
  expect_op("]", "to close the index list");
  if (indices.size() != buffer->ndim())
    fail(name_tok, "buffer '" + buffer->name + "' has " + std::to_string(buffer->ndim()) +
                       " dimensions but is indexed with " + std::to_string(indices.size()) +
                       " indices");
  return indices;
}

Expr Parser::parse_load(const Buffer& buffer, const Token& name_tok) {
  std::vector<Expr> indices = parse_index_list(buffer, name_tok, false, nullptr);
  return track_depth(at(name_tok, [&] { return make_load(buffer, indices); }), name_tok);
}

Var Parser::lookup_var(const Token& name_tok) {
  const Binding* b = scope_.lookup(name_tok.text);
  if (!b) fail(name_tok, "undefined variable '" + name_tok.text + "'");
  if (!b->var) fail(name_tok, "'" + name_tok.text + "' is a buffer, not a variable");
  return b->var;
}

Buffer Parser::lookup_buffer(const Token& name_tok) {
  const Binding* b = scope_.lookup(name_tok.text);
  if (!b) fail(name_tok, "undefined buffer '" + name_tok.text + "'");
  if (!b->buffer) fail(name_tok, "'" + name_tok.text + "' is a variable, not a buffer");
  return b->buffer;
}

// ---- T.* -------------------------------------------------------------------

DataType Parser::dtype_of_name(const Token& name_tok) const {
  auto t = DataType::parse(name_tok.text);
  if (!t || t->is_void()) fail(name_tok, "unknown dtype '" + name_tok.text + "'");
  return *t;
}

DataType Parser::parse_dtype_string(std::string_view context) {
  const Token& t = peek();
  if (t.kind != TokenKind::String)
    fail(t, "expected a dtype string " + std::string(context) + ", found " + describe(t));
  advance();
  auto dt = DataType::parse(t.text);
  if (!dt || dt->is_void()) fail(t, "unknown dtype '" + t.text + "'");
  return *dt;
}

std::vector<Expr> Parser::parse_call_args(const Token& callee, size_t min_args, size_t max_args) {
  expect_op("(", "after " + callee.text);
  std::vector<Expr> args;
  while (!at_op(")")) {
    args.push_back(parse_expr());
    if (!accept_op(",")) break;
  }
  expect_op(")", "to close the argument list of T." + callee.text);
  if (args.size() < min_args || args.size() > max_args) {
    std::string want = min_args == max_args
                           ? std::to_string(min_args)
                           : std::to_string(min_args) + " to " + std::to_string(max_args);
    fail(callee, "T." + callee.text + " takes " + want + " argument" + (max_args == 1 ? "" : "s") +
                     ", got " + std::to_string(args.size()));
  }
  return args;
}

Expr Parser::parse_typed_literal(const Token& name_tok, DataType t) {
  expect_op("(", "after T." + name_tok.text);
  if (at_op(")")) fail(peek(), "T." + name_tok.text + "() needs a value");
  Expr result;
  const Token& arg = peek();
  if (arg.kind == TokenKind::String) {
    advance();
    if (!t.is_float()) fail(arg, "T." + name_tok.text + " does not take a string");
    double v;
    if (arg.text == "inf")
      v = std::numeric_limits<double>::infinity();
    else if (arg.text == "-inf")
      v = -std::numeric_limits<double>::infinity();
    else if (arg.text == "nan")
      v = std::numeric_limits<double>::quiet_NaN();
    else
      fail(arg, "expected \"inf\", \"-inf\" or \"nan\", found \"" + arg.text + "\"");
    result = make_float(v, t);
  } else {
    Expr v = parse_expr();
    if (!t.is_scalar()) {
      result = at(name_tok, [&] { return make_cast(t, v); });
    } else if (is_literal(v) || (t.is_bool() && v.dtype().is_bool() && is_immediate(v))) {
      if (auto* i = v.as<IntImmNode>()) {
        if (t.is_float())
          result = make_float(static_cast<double>(i->value), t);
        else if (!fits(i->value, t))
          fail(arg, "literal " + std::to_string(i->value) + " is out of range for " + t.str());
        else
          result = make_int(i->value, t);
      } else if (auto* f = v.as<FloatImmNode>()) {
        if (!t.is_float()) fail(arg, "T." + name_tok.text + " needs an integer value, got a float");
        result = make_float(f->value, t);
      }
    } else if (v.dtype() == t) {
      result = v;
    } else {
      result = at(name_tok, [&] { return make_cast(t, v); });
    }
  }
  expect_op(")", "to close T." + name_tok.text + "(");
  return track_depth(result, name_tok);
}

Expr Parser::parse_t_expr(const Token& t_tok) {
  expect_op(".", "after T");
  Token name = expect_name("after 'T.'");
  const std::string& f = name.text;
  if (auto dt = DataType::parse(f); dt && !dt->is_void() && !dt->is_handle())
    return parse_typed_literal(name, *dt);
  (void)t_tok;
  auto binary_call = [&](ExprKind kind) {
    auto args = parse_call_args(name, 2, 2);
    return make_binary_at(kind, args[0], args[1], name);
  };
  // TVM prints an operator as a call of its node (T.Add(a, b), T.Mul(0, 137))
  // where the infix form would be folded when parsed back.
  static const std::unordered_map<std::string, ExprKind> kNodeCalls = {
      {"Add", ExprKind::Add}, {"Sub", ExprKind::Sub},
      {"Mul", ExprKind::Mul}, {"Div", ExprKind::Div},
      {"Mod", ExprKind::Mod}, {"FloorDiv", ExprKind::FloorDiv},
      {"Min", ExprKind::Min}, {"FloorMod", ExprKind::FloorMod},
      {"Max", ExprKind::Max}, {"EQ", ExprKind::EQ},
      {"NE", ExprKind::NE},   {"LT", ExprKind::LT},
      {"LE", ExprKind::LE},   {"GT", ExprKind::GT},
      {"GE", ExprKind::GE},   {"And", ExprKind::And},
      {"Or", ExprKind::Or}};
  if (auto it = kNodeCalls.find(f); it != kNodeCalls.end()) return binary_call(it->second);
  if (f == "Not") {
    auto args = parse_call_args(name, 1, 1);
    if (!args[0].dtype().is_bool())
      fail(name, "T.Not needs a bool argument, got " + args[0].dtype().str());
    return track_depth(at(name, [&] { return make_not(args[0]); }), name);
  }
  if (f == "min") return binary_call(ExprKind::Min);
  if (f == "max") return binary_call(ExprKind::Max);
  if (f == "truncdiv") return binary_call(ExprKind::Div);
  if (f == "truncmod") return binary_call(ExprKind::Mod);
  if (f == "floordiv") return binary_call(ExprKind::FloorDiv);
  if (f == "floormod") return binary_call(ExprKind::FloorMod);
  if (f == "Cast") {
    expect_op("(", "after T.Cast");
    DataType t = parse_dtype_string("as the first argument of T.Cast");
    expect_op(",", "after the dtype of T.Cast");
    Expr v = parse_expr();
    accept_op(",");
    expect_op(")", "to close T.Cast(");
    if (is_literal(v) && is_immediate(v) && t.is_scalar()) v = adopt(v, t, name);
    return track_depth(at(name, [&] { return make_cast(t, v); }), name);
  }
  const Intrinsic* intrinsic = find_intrinsic(f);
  const bool choice = intrinsic && intrinsic->rule == DtypeRule::Choice;
  if (f == "Select" || choice) {
    auto args = parse_call_args(name, 3, 3);
    if (!args[0].dtype().is_bool())
      fail(name, "condition of T." + f + " must be bool, got " + args[0].dtype().str());
    unify(args[1], args[2], name, "T." + f);
    Expr r = choice ? at(name, [&] { return make_call(args[1].dtype(), f, args); })
                    : at(name, [&] { return make_select(args[0], args[1], args[2]); });
    return track_depth(r, name);
  }
  if (f == "Ramp") {
    auto args = parse_call_args(name, 3, 3);
    unify(args[0], args[1], name, "T.Ramp");
    int64_t lanes = expect_const_int(args[2], name, "lanes of T.Ramp");
    if (lanes < 2 || lanes > 1024) fail(name, "T.Ramp lanes must be between 2 and 1024");
    return track_depth(
        at(name, [&] { return make_ramp(args[0], args[1], static_cast<int>(lanes)); }), name);
  }
  if (f == "Broadcast") {
    auto args = parse_call_args(name, 2, 2);
    int64_t lanes = expect_const_int(args[1], name, "lanes of T.Broadcast");
    if (lanes < 2 || lanes > 1024) fail(name, "T.Broadcast lanes must be between 2 and 1024");
    return track_depth(at(name, [&] { return make_broadcast(args[0], static_cast<int>(lanes)); }),
                       name);
  }
  if (!intrinsic) fail(name, "unknown function T." + f + " in an expression");
  if (intrinsic->id == IntrinsicId::CallKernel) return track_depth(parse_call_kernel(name), name);
  if (intrinsic->id == IntrinsicId::AddressOf) return track_depth(parse_address_of(name), name);
  const auto arity = static_cast<size_t>(intrinsic->arity);
  auto args = parse_call_args(name, arity, arity);
  DataType t;
  switch (intrinsic->rule) {
    case DtypeRule::FloatPredicate:
      t = DataType::boolean().with_lanes(args[0].dtype().lanes());
      break;
    case DtypeRule::WarpMatrix:
      t = DataType::int32();
      break;
    case DtypeRule::Condition:
      if (!args[0].dtype().is_bool())
        fail(name, "T." + f + " needs a bool argument, got " + args[0].dtype().str());
      t = args[0].dtype();
      break;
    default:
      if (arity == 2) unify(args[0], args[1], name, "T." + f);
      t = args[0].dtype();
      break;
  }
  return track_depth(at(name, [&] { return make_call(t, f, args); }), name);
}

Expr Parser::parse_call_kernel(const Token& callee) {
  expect_op("(", "after T.call_kernel");
  const Token& name_tok = peek();
  if (name_tok.kind != TokenKind::String)
    fail(name_tok,
         "T.call_kernel needs the callee's name as a string first, found " + describe(name_tok));
  std::string name = advance().text;
  std::vector<Expr> args;
  while (accept_op(",")) {
    if (at_op(")")) break;
    args.push_back(parse_expr());
  }
  expect_op(")", "to close the argument list of T.call_kernel");
  return at(callee, [&] { return make_call_kernel(name, args); });
}

Expr Parser::parse_address_of(const Token& callee) {
  expect_op("(", "after T.address_of");
  const Token& name_tok = peek();
  if (name_tok.kind != TokenKind::Name || !peek(1).is_op("["))
    fail(name_tok,
         "T.address_of takes one buffer element like buf[i], found " + describe(name_tok));
  advance();
  Buffer buffer = lookup_buffer(name_tok);
  Expr load = parse_load(buffer, name_tok);
  if (!at_op(")"))
    fail(peek(), "T.address_of takes one buffer element like buf[i], found " + describe(peek()) +
                     " after it");
  advance();
  return at(callee, [&] { return make_call(DataType::handle(), kAddressOf, {load}); });
}

int64_t Parser::const_extent(int64_t start, int64_t stop, const Token& t) const {
  int64_t extent = 0;
  if (__builtin_sub_overflow(stop, start, &extent)) fail(t, "range is too large");
  return extent;
}

int64_t Parser::expect_const_int(const Expr& e, const Token& t, std::string_view what) {
  auto* i = e.as<IntImmNode>();
  if (!i || e.dtype().is_bool()) fail(t, std::string(what) + " must be an integer constant");
  return i->value;
}

Expr Parser::expect_int_expr(Expr e, const Token& t, std::string_view what) {
  if (!e.dtype().is_integer() || !e.dtype().is_scalar())
    fail(t, std::string(what) + " must be an integer, got " + e.dtype().str());
  return e;
}

Expr Parser::parse_int_or_declare(std::string_view what, bool declare_free) {
  const Token& t = peek();
  const Token& next = peek(1);
  bool bare = t.kind == TokenKind::Name && (next.is_op(",") || next.is_op(")") || next.is_op("]"));
  if (declare_free && bare && t.text != "True" && t.text != "False" && !is_keyword(t.text) &&
      !scope_.lookup(t.text)) {
    Var v = make_var(t.text, DataType::int32());
    scope_.define(t.text, {v, nullptr});
    advance();
    return v;
  }
  return expect_int_expr(parse_expr(), t, what);
}

std::vector<Expr> Parser::parse_shape(std::string_view what, bool declare_free) {
  std::vector<Expr> shape;
  auto one = [&] { shape.push_back(parse_int_or_declare(what, declare_free)); };
  if (at_op("(") || at_op("[")) {
    std::string close = at_op("(") ? ")" : "]";
    advance();
    while (!at_op(close)) {
      one();
      if (!accept_op(",")) break;
    }
    expect_op(close, "to close the " + std::string(what) + " list");
  } else {
    one();
  }
  return shape;
}

// ---- annotations -----------------------------------------------------------

Expr Parser::parse_annotation_value() {
  const Token& t = peek();
  if (t.kind == TokenKind::String) return make_string(advance().text);
  if (at_op("[")) {
    NestingGuard guard(*this, t);
    advance();
    std::vector<Expr> elements;
    while (!at_op("]")) {
      elements.push_back(parse_annotation_value());
      if (!accept_op(",")) break;
    }
    expect_op("]", "to close the list");
    return make_annotation_list(std::move(elements));
  }
  Expr v = parse_expr();
  if (!is_immediate(v))
    fail(t, "annotation value must be a constant (integer, float, bool or string) or a list");
  return v;
}

Annotations Parser::parse_annotation_dict() {
  Annotations ann;
  expect_op("{", "to start an annotation dictionary");
  while (!at_op("}")) {
    const Token& key = peek();
    if (key.kind != TokenKind::String)
      fail(key, "annotation key must be a string, found " + describe(key));
    advance();
    expect_op(":", "after the annotation key");
    Expr v = parse_annotation_value();
    if (!ann.emplace(key.text, v).second)
      fail(key, "duplicate annotation key \"" + key.text + "\"");
    if (!accept_op(",")) break;
  }
  expect_op("}", "to close the annotation dictionary");
  return ann;
}

}  // namespace tirc
