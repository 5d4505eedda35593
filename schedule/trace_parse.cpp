// Reading schedule scripts: traces as printed, or written by hand in the
// forms a TVM user writes (positional arguments, any variable names, a
// `def apply(sch):` wrapper).
#include <cmath>
#include <map>

#include "ir/text/lexer.h"
#include "schedule/trace_spec.h"

namespace tirc {

namespace {

using namespace trace_detail;

class ScriptParser {
 public:
  ScriptParser(std::string_view text, std::string_view filename)
      : file_{std::make_shared<const std::string>(filename),
              std::make_shared<const std::string>(text)} {}

  Trace run() {
    toks_ = tokenize(file_);
    reserve_canonical_ids();
    Trace trace;
    int def_depth = 0;
    while (peek().kind != TokenKind::Eof) {
      const Token& t = peek();
      if (t.kind == TokenKind::Newline) {
        advance();
      } else if (t.kind == TokenKind::Indent) {
        if (!after_def_) fail(t, "unexpected indent");
        after_def_ = false;
        ++def_depth;
        advance();
      } else if (t.kind == TokenKind::Dedent) {
        --def_depth;
        advance();
      } else if (after_def_) {
        fail(t, "expected an indented body after 'def'");
      } else if (t.is_name("from") || t.is_name("import") || t.is_name("return") ||
                 t.is_name("pass") || t.kind == TokenKind::String) {
        skip_line();
      } else if (t.is_name("def")) {
        parse_def();
      } else if (auto inst = parse_statement()) {
        trace.append(std::move(*inst));
      }
    }
    (void)def_depth;
    return trace;
  }

  const SourceFile& file() const { return file_; }

 private:
  SourceFile file_;
  std::vector<Token> toks_;
  size_t pos_ = 0;
  std::string receiver_ = "sch";
  bool after_def_ = false;
  std::map<std::string, TraceRV> names_;
  DefinedRVs defined_;
  int next_fresh_id_ = 0;

  const Token& peek(size_t ahead = 0) const {
    return toks_[std::min(pos_ + ahead, toks_.size() - 1)];
  }
  const Token& advance() {
    const Token& t = peek();
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  [[noreturn]] void fail(const Token& t, const std::string& msg) const {
    throw Error(msg, file_.at(t.line, t.col));
  }
  std::string describe(const Token& t) const {
    switch (t.kind) {
      case TokenKind::Name:
      case TokenKind::Op:
        return "'" + t.text + "'";
      default:
        return to_string(t.kind);
    }
  }
  const Token& expect_op(std::string_view op) {
    if (!peek().is_op(op))
      fail(peek(), "expected '" + std::string(op) + "', found " + describe(peek()));
    return advance();
  }
  void skip_line() {
    while (peek().kind != TokenKind::Newline && peek().kind != TokenKind::Eof) advance();
  }
  void expect_line_end() {
    if (peek().kind != TokenKind::Newline && peek().kind != TokenKind::Eof)
      fail(peek(), "unexpected " + describe(peek()) + " after the statement");
  }

  // Names written as printed (b0, l12, v3) keep their numbers; other names
  // are numbered after the largest of those.
  static std::optional<TraceRV> canonical(const std::string& name) {
    if (name.size() < 2 || name.size() > 10 || (name[0] != 'b' && name[0] != 'l' && name[0] != 'v'))
      return std::nullopt;
    if (name[1] == '0' && name.size() > 2) return std::nullopt;
    for (size_t i = 1; i < name.size(); ++i)
      if (name[i] < '0' || name[i] > '9') return std::nullopt;
    return TraceRV{name[0], std::stoi(name.substr(1))};
  }
  void reserve_canonical_ids() {
    for (const Token& t : toks_)
      if (t.kind == TokenKind::Name)
        if (auto rv = canonical(t.text)) next_fresh_id_ = std::max(next_fresh_id_, rv->id + 1);
  }
  TraceRV bind(const std::string& name, char kind) {
    TraceRV rv{kind, -1};
    auto c = canonical(name);
    if (c && c->kind == kind && !defined_.count({kind, c->id})) {
      rv.id = c->id;
    } else {
      rv.id = next_fresh_id_++;
    }
    defined_.insert({rv.kind, rv.id});
    names_[name] = rv;
    return rv;
  }

  // def apply(sch): -- the body's statements are the script; the first
  // parameter names the schedule.
  void parse_def() {
    advance();
    if (peek().kind != TokenKind::Name) fail(peek(), "expected a function name after 'def'");
    advance();
    expect_op("(");
    if (peek().kind == TokenKind::Name) receiver_ = peek().text;
    while (!peek().is_op(")")) {
      if (peek().kind == TokenKind::Eof || peek().kind == TokenKind::Newline)
        fail(peek(), "expected ')'");
      advance();
    }
    advance();
    while (!peek().is_op(":")) {
      if (peek().kind == TokenKind::Eof || peek().kind == TokenKind::Newline)
        fail(peek(), "expected ':'");
      advance();
    }
    advance();
    expect_line_end();
    after_def_ = true;
  }

  // Index of the top-level '=' of the statement starting at pos_, if any.
  std::optional<size_t> find_assignment() const {
    int depth = 0;
    for (size_t k = pos_; k < toks_.size(); ++k) {
      const Token& t = toks_[k];
      if (t.kind == TokenKind::Newline || t.kind == TokenKind::Eof) return std::nullopt;
      if (t.is_op("(") || t.is_op("[") || t.is_op("{")) ++depth;
      if (t.is_op(")") || t.is_op("]") || t.is_op("}")) --depth;
      if (depth == 0 && t.is_op("=")) return k;
    }
    return std::nullopt;
  }

  struct Targets {
    std::vector<Token> names;
    bool list = false;  // `a, = ...`, `a, b = ...`, `(a, b) = ...`
  };

  Targets parse_targets(size_t eq) {
    Targets out;
    bool paren = false;
    if (peek().is_op("(")) {
      paren = true;
      advance();
    }
    while (pos_ < eq) {
      if (peek().is_op(")") && paren) {
        advance();
        paren = false;
        continue;
      }
      if (peek().kind != TokenKind::Name)
        fail(peek(), "expected a variable name, found " + describe(peek()));
      out.names.push_back(advance());
      if (peek().is_op(",")) {
        out.list = true;
        advance();
      } else if (pos_ < eq && !(peek().is_op(")") && paren)) {
        fail(peek(), "expected ',' or '=', found " + describe(peek()));
      }
    }
    if (paren) fail(peek(), "expected ')'");
    if (out.names.empty()) fail(peek(), "expected a variable name before '='");
    if (out.names.size() > 1) out.list = true;
    advance();  // '='
    return out;
  }

  struct Arg {
    std::optional<Token> key;
    Token at;  // where the value starts
    TraceValue value;
  };

  std::optional<Instruction> parse_statement() {
    const Token start = peek();
    Targets targets;
    if (auto eq = find_assignment()) {
      targets = parse_targets(*eq);
      // `sch = tir.Schedule(mod)`: the schedule itself is given.
      if (targets.names.size() == 1 && !targets.list && targets.names[0].text == receiver_) {
        skip_line();
        return std::nullopt;
      }
    }
    if (!peek().is_name(receiver_))
      fail(peek(),
           "expected a call '" + receiver_ + ".<primitive>(...)', found " + describe(peek()));
    advance();
    expect_op(".");
    if (peek().kind != TokenKind::Name)
      fail(peek(), "expected a primitive name after '" + receiver_ + ".'");
    const Token kind_tok = advance();
    const InstructionKind* spec = find_primitive(kind_tok.text);
    if (!spec) fail(kind_tok, "unknown schedule primitive '" + kind_tok.text + "'");
    const Token open = expect_op("(");
    std::vector<Arg> args;
    bool seen_keyword = false;
    while (!peek().is_op(")")) {
      Arg arg{std::nullopt, peek(), {}};
      if (peek().kind == TokenKind::Name && peek(1).is_op("=")) {
        arg.key = advance();
        advance();
        seen_keyword = true;
      } else if (seen_keyword) {
        fail(peek(), "positional argument after keyword arguments");
      }
      arg.at = peek();
      arg.value = parse_value(0);
      args.push_back(std::move(arg));
      if (peek().is_op(",")) {
        advance();
      } else if (!peek().is_op(")")) {
        fail(peek(), "expected ',' or ')', found " + describe(peek()));
      }
    }
    advance();
    expect_line_end();

    Instruction inst;
    inst.kind = spec->name;
    inst.line = start.line;
    inst.col = start.col;
    bind_arguments(*spec, kind_tok, open, args, inst);
    bind_outputs(*spec, kind_tok, targets, inst);
    return inst;
  }

  void bind_arguments(const InstructionKind& spec, const Token& kind_tok, const Token& open,
                      std::vector<Arg>& args, Instruction& inst) {
    const std::string& kind = inst.kind;
    std::vector<std::optional<std::pair<Token, TraceValue>>> slots(spec.params.size());
    size_t next_param = 0;
    using Pos = InstructionKind::Positional;
    for (Arg& arg : args) {
      if (!arg.key) {
        if (spec.positional == Pos::Loops) {
          // sch.reorder([l1, l2]) is the same as sch.reorder(l1, l2).
          if (auto* list = std::get_if<TraceList>(&arg.value.v); list && args.size() == 1) {
            for (TraceValue& v : *list) {
              if (auto why = check_positional(spec, v, defined_)) fail(arg.at, kind + ": " + *why);
              inst.positional.push_back(v);
            }
            continue;
          }
          if (auto why = check_positional(spec, arg.value, defined_))
            fail(arg.at, kind + ": " + *why);
          inst.positional.push_back(arg.value);
          continue;
        }
        if (spec.positional == Pos::Scope && inst.positional.empty()) {
          if (auto why = check_positional(spec, arg.value, defined_))
            fail(arg.at, kind + ": " + *why);
          inst.positional.push_back(arg.value);
          continue;
        }
        if (next_param >= spec.params.size())
          fail(arg.at, kind + " takes " +
                           std::to_string(spec.params.size() + (spec.positional == Pos::Scope)) +
                           " argument" +
                           (spec.params.size() + (spec.positional == Pos::Scope) == 1 ? "" : "s") +
                           " but more were given");
        slots[next_param] = std::pair{arg.at, arg.value};
        ++next_param;
        continue;
      }
      const std::string& key = arg.key->text;
      if (spec.positional == Pos::Scope && key == "block_or_loop") {
        if (!inst.positional.empty())
          fail(*arg.key, kind + ": got multiple values for 'block_or_loop'");
        if (auto why = check_positional(spec, arg.value, defined_))
          fail(arg.at, kind + ": " + *why);
        inst.positional.push_back(arg.value);
        continue;
      }
      size_t p = 0;
      while (p < spec.params.size() && key != spec.params[p].name) ++p;
      if (p == spec.params.size()) fail(*arg.key, kind + " has no parameter '" + key + "'");
      if (slots[p]) fail(*arg.key, kind + ": got multiple values for '" + key + "'");
      slots[p] = std::pair{arg.at, arg.value};
    }
    if (spec.positional == Pos::Scope && inst.positional.empty())
      fail(open, kind + ": missing argument 'block_or_loop'");
    if (spec.positional == Pos::Loops && inst.positional.empty())
      fail(open, kind + ": expects at least one loop");
    for (size_t p = 0; p < spec.params.size(); ++p) {
      const ParamSpec& param = spec.params[p];
      if (!slots[p]) {
        if (param.required)
          fail(open, kind + ": missing argument '" + std::string(param.name) + "'");
        continue;
      }
      auto& [at, value] = *slots[p];
      if (auto why = check_value(param.type, value, defined_))
        fail(at, kind + ": " + std::string(param.name) + " " + *why);
      inst.keywords.emplace_back(param.name, std::move(value));
    }
    (void)kind_tok;
  }

  void bind_outputs(const InstructionKind& spec, const Token& kind_tok, const Targets& targets,
                    Instruction& inst) {
    const std::string& kind = inst.kind;
    inst.list_output = spec.outputs == Outputs::List;
    if (targets.names.empty()) return;
    const Token& first = targets.names.front();
    if (spec.outputs == Outputs::None) fail(first, kind + " returns nothing");
    if (spec.outputs == Outputs::One && targets.list)
      fail(first, kind + " returns one value: write '" + first.text + " = " + receiver_ + "." +
                      kind + "(...)'");
    if (spec.outputs == Outputs::List && !targets.list)
      fail(first, kind + " returns a list: write '" + first.text + ", = " + receiver_ + "." + kind +
                      "(...)'");
    std::optional<size_t> expected = spec.expected_outputs(inst);
    if (expected && *expected != targets.names.size())
      fail(first, kind + " gives " + std::to_string(*expected) + " values but " +
                      std::to_string(targets.names.size()) + " names are bound");
    for (const Token& t : targets.names) {
      if (t.text == receiver_) fail(t, "cannot rebind '" + receiver_ + "'");
      inst.outputs.push_back(bind(t.text, spec.output_kind));
    }
    (void)kind_tok;
  }

  TraceValue parse_value(int depth) {
    if (depth > 64) fail(peek(), "value nested too deeply");
    const Token& t = peek();
    switch (t.kind) {
      case TokenKind::Int:
        advance();
        return TraceValue(t.int_value);
      case TokenKind::Float:
        advance();
        return TraceValue(t.float_value);
      case TokenKind::String:
        advance();
        return TraceValue(t.text);
      case TokenKind::Name:
        return parse_name_value();
      default:
        break;
    }
    if (t.is_op("-") && (peek(1).kind == TokenKind::Int || peek(1).kind == TokenKind::Float)) {
      advance();
      const Token& n = advance();
      if (n.kind == TokenKind::Int) return TraceValue(-n.int_value);
      return TraceValue(-n.float_value);
    }
    if (t.is_op("[")) {
      advance();
      TraceList items;
      while (!peek().is_op("]")) {
        items.push_back(parse_value(depth + 1));
        if (peek().is_op(",")) {
          advance();
        } else if (!peek().is_op("]")) {
          fail(peek(), "expected ',' or ']', found " + describe(peek()));
        }
      }
      advance();
      return TraceValue(std::move(items));
    }
    if (t.is_op("(")) {
      advance();
      TraceValue::Tuple tuple;
      bool comma = false;
      while (!peek().is_op(")")) {
        tuple.items.push_back(parse_value(depth + 1));
        if (peek().is_op(",")) {
          comma = true;
          advance();
        } else if (!peek().is_op(")")) {
          fail(peek(), "expected ',' or ')', found " + describe(peek()));
        }
      }
      advance();
      if (tuple.items.size() == 1 && !comma) return tuple.items[0];
      return TraceValue(std::move(tuple));
    }
    fail(t, "expected a value, found " + describe(t));
  }

  TraceValue parse_name_value() {
    const Token t = advance();
    if (t.text == "None") return TraceValue(nullptr);
    if (t.text == "True") return TraceValue(true);
    if (t.text == "False") return TraceValue(false);
    if (t.text == "lambda") return parse_lambda(t);
    if (t.text == "float" && peek().is_op("(")) {
      advance();
      const Token s = advance();
      double v = 0;
      if (s.kind == TokenKind::String && s.text == "inf")
        v = HUGE_VAL;
      else if (s.kind == TokenKind::String && s.text == "-inf")
        v = -HUGE_VAL;
      else if (s.kind == TokenKind::String && s.text == "nan")
        v = std::nan("");
      else
        fail(s, "expected \"inf\", \"-inf\" or \"nan\"");
      expect_op(")");
      return TraceValue(v);
    }
    auto it = names_.find(t.text);
    if (it == names_.end()) fail(t, "undefined name '" + t.text + "'");
    return TraceValue(it->second);
  }

  // The lambda runs to the ',' or closing bracket that ends the argument.
  TraceValue parse_lambda(const Token& lambda) {
    int depth = 0;
    bool in_body = false;
    while (true) {
      const Token& t = peek();
      if (t.kind == TokenKind::Newline || t.kind == TokenKind::Eof) break;
      if (!in_body && t.is_op(":")) in_body = true;
      if (t.is_op("(") || t.is_op("[") || t.is_op("{")) ++depth;
      if (t.is_op(")") || t.is_op("]") || t.is_op("}")) {
        if (depth == 0) break;
        --depth;
      }
      if (depth == 0 && in_body && t.is_op(",")) break;
      advance();
    }
    const std::string& text = *file_.text;
    size_t from = offset(lambda.line, lambda.col);
    size_t to = peek().kind == TokenKind::Eof ? text.size() : offset(peek().line, peek().col);
    auto map = std::make_shared<const IndexMap>(parse_index_map(
        std::string_view(text).substr(from, to - from), file_.at(lambda.line, lambda.col)));
    return TraceValue(std::shared_ptr<const IndexMap>(map));
  }

  size_t offset(int line, int col) const {
    const std::string& text = *file_.text;
    size_t pos = 0;
    for (int l = 1; l < line; ++l) {
      size_t nl = text.find('\n', pos);
      if (nl == std::string::npos) return text.size();
      pos = nl + 1;
    }
    return std::min(text.size(), pos + static_cast<size_t>(col - 1));
  }
};

}  // namespace

Trace Trace::parse(std::string_view text, std::string_view filename) {
  ScriptParser parser(text, filename);
  Trace trace = parser.run();
  trace.source_name_ = parser.file().name;
  trace.source_text_ = parser.file().text;
  return trace;
}

}  // namespace tirc
