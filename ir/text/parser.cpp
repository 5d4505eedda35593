// Functions, modules and the public entry points of the parser.
#include "ir/text/parser.h"

#include <filesystem>

#include "ir/text/constants_file.h"
#include "ir/text/parser_impl.h"

namespace tirc {

Parser::Parser(std::string_view text, std::string_view filename, ParseOptions options)
    : file_{std::make_shared<const std::string>(filename),
            std::make_shared<const std::string>(text)},
      options_(options) {
  if (options_.constants) {
    constants_ = *options_.constants;
    known_constants_ = true;
  }
}

// ---- tokens ----------------------------------------------------------------

const Token& Parser::peek(size_t ahead) const {
  size_t i = pos_ + ahead;
  return i < toks_.size() ? toks_[i] : toks_.back();
}

const Token& Parser::advance() {
  const Token& t = peek();
  if (pos_ + 1 < toks_.size()) ++pos_;
  return t;
}

bool Parser::accept_op(std::string_view op) {
  if (!at_op(op)) return false;
  advance();
  return true;
}

std::string Parser::describe(const Token& t) const {
  switch (t.kind) {
    case TokenKind::Name:
      return "'" + t.text + "'";
    case TokenKind::Op:
      return "'" + t.text + "'";
    case TokenKind::Int:
    case TokenKind::Float:
      return "number " + t.text;
    case TokenKind::String:
      return "a string";
    case TokenKind::Newline:
      return "end of line";
    case TokenKind::Indent:
      return "indentation";
    case TokenKind::Dedent:
      return "end of the indented block";
    case TokenKind::Eof:
      return "end of file";
  }
  return "?";
}

void Parser::fail(const Token& t, const std::string& message) const {
  throw Error(message, loc(t));
}

const Token& Parser::expect_op(std::string_view op, std::string_view context) {
  if (!at_op(op))
    fail(peek(), "expected '" + std::string(op) + "' " + std::string(context) + ", found " +
                     describe(peek()));
  return advance();
}

const Token& Parser::expect_name(std::string_view context) {
  if (peek().kind != TokenKind::Name)
    fail(peek(), "expected a name " + std::string(context) + ", found " + describe(peek()));
  return advance();
}

void Parser::expect_newline(std::string_view context) {
  if (peek().kind == TokenKind::Newline) {
    advance();
    return;
  }
  fail(peek(), "expected end of line " + std::string(context) + ", found " + describe(peek()));
}

bool Parser::at_t_attr(std::string_view name, size_t ahead) const {
  return peek(ahead).is_name("T") && peek(ahead + 1).is_op(".") && peek(ahead + 2).is_name(name);
}

void Parser::expect_t_attr(std::string_view name, std::string_view context) {
  if (!at_t_attr(name))
    fail(peek(), "expected T." + std::string(name) + " " + std::string(context) + ", found " +
                     describe(peek()));
  pos_ += 3;
}

// ---- files -----------------------------------------------------------------

// The TIRx surface's own words (T.sblock, ...) become their classic words
// here, so the rest of the parser knows one spelling; the surface is noted.
void Parser::adopt_tirx_words() {
  for (size_t i = 0; i + 2 < toks_.size(); ++i) {
    if (!toks_[i].is_name("T") || !toks_[i + 1].is_op(".") || toks_[i + 2].kind != TokenKind::Name)
      continue;
    if (auto classic = classic_word(toks_[i + 2].text)) {
      toks_[i + 2].text = std::string(*classic);
      surface_ = Surface::tirx;
    }
  }
}

void Parser::skip_imports() {
  while (at_name("from") || at_name("import")) {
    while (peek().kind != TokenKind::Newline && peek().kind != TokenKind::Eof) advance();
    if (peek().kind == TokenKind::Newline) advance();
  }
}

// `@ns.name` or `@ns.name(...)` (keyword arguments such as private=True are
// accepted and ignored), then the end of the line.
void Parser::parse_decorator(std::string_view ns, std::string_view name) {
  expect_op("@", "to start a decorator");
  const Token& n = peek();
  if (!n.is_name(ns) || !peek(1).is_op(".") || !peek(2).is_name(name))
    fail(n, "expected @" + std::string(ns) + "." + std::string(name));
  pos_ += 3;
  if (accept_op("(")) {
    while (!at_op(")")) {
      Token key = expect_name("as a decorator argument");
      expect_op("=", "after the decorator argument name");
      if (peek().kind == TokenKind::String) {
        advance();
      } else {
        Expr v = parse_expr();
        // TVM 0.27 marks TensorIR (block-based) functions so.
        if (key.text == "s_tir" && is_const_int(v, 1)) surface_ = Surface::tirx;
      }
      if (!accept_op(",")) break;
    }
    expect_op(")", "to close the decorator arguments");
  }
  expect_newline("after the decorator");
}

std::vector<Param> Parser::parse_params() {
  expect_op("(", "after the function name");
  struct Raw {
    Token name;
    size_t annotation;
  };
  std::vector<Raw> raws;
  while (!at_op(")")) {
    Token name = expect_name("as a parameter");
    if (!at_op(":")) fail(name, "parameter '" + name.text + "' needs a type annotation");
    advance();
    raws.push_back({name, pos_});
    // Skip the annotation for now: scalar parameters are defined first so
    // buffer shapes may name them wherever they appear.
    int depth = 0;
    while (true) {
      const Token& t = peek();
      if (t.kind == TokenKind::Eof || t.kind == TokenKind::Newline)
        fail(t, "unterminated parameter list");
      if (depth == 0 && (t.is_op(",") || t.is_op(")"))) break;
      if (t.is_op("(") || t.is_op("[") || t.is_op("{")) ++depth;
      if (t.is_op(")") || t.is_op("]") || t.is_op("}")) --depth;
      advance();
    }
    if (!accept_op(",")) break;
  }
  expect_op(")", "to close the parameter list");
  size_t end = pos_;
  std::vector<Param> params(raws.size());
  auto define = [&](const Token& name, Binding b) {
    if (scope_.defined_in_innermost(name.text))
      fail(name, "duplicate parameter '" + name.text + "'");
    scope_.define(name.text, std::move(b));
  };
  for (size_t i = 0; i < raws.size(); ++i) {
    pos_ = raws[i].annotation;
    bool scalar = at_name("T") && peek(1).is_op(".") && peek(2).kind == TokenKind::Name &&
                  (peek(3).is_op(",") || peek(3).is_op(")"));
    if (!scalar) continue;
    DataType t = dtype_of_name(peek(2));
    params[i] = Param{make_var(raws[i].name.text, t), nullptr};
    define(raws[i].name, {params[i].var, nullptr});
  }
  for (size_t i = 0; i < raws.size(); ++i) {
    if (params[i].var) continue;
    pos_ = raws[i].annotation;
    if (!at_t_attr("Buffer"))
      fail(peek(), "expected T.Buffer(...) or a scalar type like T.int32 for parameter '" +
                       raws[i].name.text + "'");
    Token callee = peek(2);
    pos_ += 3;
    std::string close = at_op("[") ? "]" : ")";
    expect_op(close == "]" ? "[" : "(", "after T.Buffer");
    Buffer buffer = build_buffer(raws[i].name.text, parse_buffer_args(callee, false, close));
    params[i] = Param{buffer->data, buffer};
    define(raws[i].name, {nullptr, buffer});
  }
  pos_ = end;
  return params;
}

void Parser::parse_module_attrs(IRModule& module) {
  Token callee = peek(2);
  pos_ += 3;
  if (!module.attrs.empty() || !module.empty())
    fail(callee, "I.module_attrs must come once, before the first function");
  expect_op("(", "after I.module_attrs");
  const Token& dict_tok = peek();
  module.attrs = parse_annotation_dict();
  expect_op(")", "to close I.module_attrs(");
  expect_newline("after I.module_attrs(...)");
  auto it = module.attrs.find(kConstantsAttr);
  if (it == module.attrs.end() || !options_.load_constants) return;
  auto* file = it->second.as<StringImmNode>();
  if (!file) fail(dict_tok, std::string("\"") + kConstantsAttr + "\" must be a file name string");
  namespace fs = std::filesystem;
  fs::path path = file->value;
  if (path.is_relative()) path = fs::path(*file_.name).parent_path() / path;
  std::vector<std::pair<std::string, std::shared_ptr<const NDArray>>> loaded;
  try {
    loaded = read_constants_file(path.string());
  } catch (const Error& e) {
    fail(dict_tok, "cannot load the module's constants: " + e.message());
  }
  for (auto& [name, value] : loaded) constants_[name] = std::move(value);
  known_constants_ = true;
}

std::pair<Token, PrimFunc> Parser::parse_function() {
  parse_decorator("T", "prim_func");
  if (!at_name("def")) fail(peek(), "expected 'def' after @T.prim_func, found " + describe(peek()));
  advance();
  Token name = expect_name("after 'def'");
  ScopeFrame frame(scope_);
  std::vector<Param> params = parse_params();
  if (accept_op("->")) {
    if (at_name("None"))
      advance();
    else
      expect_t_attr("handle", "or None as the return type");
  }
  BlockBuilder root;
  root.is_function = true;
  saw_block_ = false;
  params_ = &params;
  blocks_ = {&root};
  Stmt body = parse_suite("the function signature", &root);
  blocks_.clear();
  params_ = nullptr;
  auto* realize = body.as<BlockRealizeNode>();
  bool explicit_root =
      realize && realize->block->name == "root" && realize->block->iter_vars.empty();
  if ((saw_block_ && !explicit_root) || !root.alloc_buffers.empty()) {
    auto block = std::make_shared<BlockNode>();
    block->name = "root";
    block->alloc_buffers = root.alloc_buffers;
    block->body = body;
    body = make_block_realize({}, make_bool(true), block);
  }
  Annotations attrs = root.annotations ? *root.annotations : Annotations{};
  return {name, make_prim_func(std::move(params), std::move(body), std::move(attrs))};
}

IRModule Parser::parse_module() {
  try {
    toks_ = tokenize(file_);
    adopt_tirx_words();
    skip_imports();
    IRModule module;
    if (at_op("@") && peek(1).is_name("I")) {
      parse_decorator("I", "ir_module");
      if (!at_name("class"))
        fail(peek(), "expected 'class' after @I.ir_module, found " + describe(peek()));
      advance();
      expect_name("as the module name");
      if (accept_op("(")) expect_op(")", "after 'class Module('");
      expect_op(":", "after the class name");
      expect_newline("after 'class Module:'");
      if (peek().kind != TokenKind::Indent) fail(peek(), "expected an indented class body");
      advance();
      while (peek().kind != TokenKind::Dedent && peek().kind != TokenKind::Eof) {
        if (peek().kind == TokenKind::String) {  // class docstring
          advance();
          expect_newline("after the docstring");
          continue;
        }
        if (at_name("I") && peek(1).is_op(".") && peek(2).is_name("module_attrs")) {
          parse_module_attrs(module);
          continue;
        }
        auto [name, func] = parse_function();
        if (module.find(name.text))
          fail(name, "function '" + name.text + "' is defined twice in the module");
        module.add(name.text, func);
      }
      if (module.empty()) fail(peek(), "module has no functions");
      if (peek().kind == TokenKind::Dedent) advance();
    } else if (at_op("@")) {
      auto [name, func] = parse_function();
      module.add(name.text, func);
    } else {
      fail(peek(), "expected @T.prim_func or @I.ir_module, found " + describe(peek()));
    }
    if (peek().kind != TokenKind::Eof)
      fail(peek(), "unexpected " + describe(peek()) + " after the end of the " +
                       std::string(module.size() > 1 ? "module" : "function"));
    for (auto& [name, value] : constants_) module.add_constant(name, value);
    if (options_.surface) *options_.surface = surface_;
    return module;
  } catch (const Error& e) {
    if (e.loc().known() || toks_.empty()) throw;
    throw Error(e.message(), loc(peek()));
  } catch (const std::exception& e) {
    if (toks_.empty()) throw Error(e.what(), file_.at(1, 1));
    throw Error(e.what(), loc(peek()));
  }
}

Expr Parser::parse_standalone_expr(const std::vector<Var>& scope) {
  try {
    toks_ = tokenize(file_);
    for (const Var& v : scope)
      if (v) scope_.define(v->name, {v, nullptr});
    Expr e = parse_expr();
    if (peek().kind == TokenKind::Newline) advance();
    if (peek().kind != TokenKind::Eof)
      fail(peek(), "unexpected " + describe(peek()) + " after the expression");
    return e;
  } catch (const Error& e) {
    if (e.loc().known() || toks_.empty()) throw;
    throw Error(e.message(), loc(peek()));
  } catch (const std::exception& e) {
    if (toks_.empty()) throw Error(e.what(), file_.at(1, 1));
    throw Error(e.what(), loc(peek()));
  }
}

IRModule parse_module(std::string_view text, std::string_view filename) {
  return Parser(text, filename).parse_module();
}

IRModule parse_module(std::string_view text, std::string_view filename,
                      const ParseOptions& options) {
  return Parser(text, filename, options).parse_module();
}

Expr parse_expr(std::string_view text, const std::vector<Var>& scope, std::string_view filename) {
  return Parser(text, filename).parse_standalone_expr(scope);
}

}  // namespace tirc
