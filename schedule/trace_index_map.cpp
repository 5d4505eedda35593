// Index maps written as Python lambdas: `lambda i, j: (i // 16, j, i % 16)`.
#include "ir/text/lexer.h"
#include "ir/text/parser.h"
#include "schedule/trace_spec.h"

namespace tirc::trace_detail {

namespace {

// Byte offset of a token's position in `text`.
size_t offset_of(std::string_view text, int line, int col) {
  size_t pos = 0;
  for (int l = 1; l < line; ++l) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) return text.size();
    pos = nl + 1;
  }
  return std::min(text.size(), pos + static_cast<size_t>(col - 1));
}

// Moves an error found in a piece of text to where that piece starts in the
// enclosing source.
[[noreturn]] void rethrow_at(const Error& e, const SourceLoc& base, int line = 1, int col = 1) {
  if (!base.known()) throw Error("index map: " + e.message());
  SourceLoc loc = base;
  int el = e.loc().known() ? e.loc().line : 1;
  int ec = e.loc().known() ? e.loc().col : 1;
  // First shift into the piece (line, col), then the piece into the source.
  int l = line + el - 1;
  int c = el == 1 ? col + ec - 1 : ec;
  loc.line = base.line + l - 1;
  loc.col = l == 1 ? base.col + c - 1 : c;
  throw Error(e.message(), loc);
}

}  // namespace

IndexMap parse_index_map(std::string_view text, const SourceLoc& base) {
  SourceFile file{std::make_shared<const std::string>("<index map>"),
                  std::make_shared<const std::string>(text)};
  std::vector<Token> toks;
  try {
    toks = tokenize(file);
  } catch (const Error& e) {
    rethrow_at(e, base);
  }
  auto fail = [&](const Token& t, const std::string& msg) {
    rethrow_at(Error(msg, file.at(t.line, t.col)), base);
  };
  size_t i = 0;
  if (!toks[i].is_name("lambda")) fail(toks[i], "expected 'lambda' for an index map");
  ++i;
  IndexMap map;
  while (!toks[i].is_op(":")) {
    if (toks[i].kind != TokenKind::Name)
      fail(toks[i], "expected a parameter name of the index map");
    for (const Var& p : map.params)
      if (p->name == toks[i].text) fail(toks[i], "duplicate parameter '" + toks[i].text + "'");
    map.params.push_back(make_var(toks[i].text, DataType::int32()));
    ++i;
    if (toks[i].is_op(",")) {
      ++i;
    } else if (!toks[i].is_op(":")) {
      fail(toks[i], "expected ',' or ':' in the index map's parameters");
    }
  }
  ++i;
  size_t body = i;
  size_t end = body;
  while (toks[end].kind != TokenKind::Newline && toks[end].kind != TokenKind::Eof) ++end;
  if (end == body) fail(toks[body], "the index map has no body");
  auto piece = [&](size_t from, size_t to) {
    size_t a = offset_of(text, toks[from].line, toks[from].col);
    size_t b = offset_of(text, toks[to].line, toks[to].col);
    if (toks[to].kind == TokenKind::Newline || toks[to].kind == TokenKind::Eof) b = text.size();
    return std::string(text.substr(a, b - a));
  };
  auto parse_piece = [&](size_t from, size_t to) {
    if (from == to) fail(toks[from], "expected an expression");
    try {
      return parse_expr(piece(from, to), map.params);
    } catch (const Error& e) {
      rethrow_at(e, base, toks[from].line, toks[from].col);
    }
  };
  // A parenthesized tuple spanning the whole body gives several results.
  bool tuple = false;
  if (toks[body].is_op("(")) {
    int depth = 0;
    size_t close = body;
    for (size_t k = body; k < end; ++k) {
      if (toks[k].is_op("(") || toks[k].is_op("[")) ++depth;
      if (toks[k].is_op(")") || toks[k].is_op("]")) --depth;
      if (depth == 0) {
        close = k;
        break;
      }
    }
    bool has_comma = false;
    depth = 0;
    for (size_t k = body + 1; k < close; ++k) {
      if (toks[k].is_op("(") || toks[k].is_op("[")) ++depth;
      if (toks[k].is_op(")") || toks[k].is_op("]")) --depth;
      if (depth == 0 && toks[k].is_op(",")) has_comma = true;
    }
    tuple = close + 1 == end && (has_comma || close == body + 1);
    if (tuple) {
      size_t start = body + 1;
      depth = 0;
      for (size_t k = body + 1; k <= close; ++k) {
        if (toks[k].is_op("(") || toks[k].is_op("[")) ++depth;
        if (k < close && (toks[k].is_op(")") || toks[k].is_op("]"))) --depth;
        if ((depth == 0 && toks[k].is_op(",")) || k == close) {
          if (k == close && start == k) break;  // trailing comma or ()
          map.results.push_back(parse_piece(start, k));
          start = k + 1;
        }
      }
    }
  }
  if (!tuple) map.results.push_back(parse_piece(body, end));
  if (map.results.empty()) fail(toks[body], "the index map has no results");
  return map;
}

}  // namespace tirc::trace_detail
