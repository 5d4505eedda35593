#include "ir/text/lexer.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace tirc {

const char* to_string(TokenKind kind) {
  switch (kind) {
    case TokenKind::Name:
      return "name";
    case TokenKind::Int:
      return "integer";
    case TokenKind::Float:
      return "float";
    case TokenKind::String:
      return "string";
    case TokenKind::Op:
      return "operator";
    case TokenKind::Newline:
      return "end of line";
    case TokenKind::Indent:
      return "indent";
    case TokenKind::Dedent:
      return "dedent";
    case TokenKind::Eof:
      return "end of file";
  }
  return "?";
}

namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 when invalid.
size_t utf8_sequence_length(std::string_view s, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  if (c < 0x80) return 1;
  size_t len = 0;
  uint32_t cp = 0;
  if ((c & 0xE0) == 0xC0)
    len = 2, cp = c & 0x1F;
  else if ((c & 0xF0) == 0xE0)
    len = 3, cp = c & 0x0F;
  else if ((c & 0xF8) == 0xF0)
    len = 4, cp = c & 0x07;
  else
    return 0;
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  // Overlong encodings, surrogates and values past U+10FFFF are invalid.
  static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[len] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return 0;
  return len;
}

class Lexer {
 public:
  explicit Lexer(const SourceFile& file) : file_(file), src_(*file.text) {}

  std::vector<Token> run() {
    check_encoding();
    indents_.push_back(0);
    while (pos_ < src_.size()) {
      if (at_line_start_ && depth_ == 0) {
        if (!handle_indentation()) continue;
      }
      lex_one();
    }
    if (!at_line_start_) push(TokenKind::Newline, "", line_, col());
    while (indents_.size() > 1) {
      indents_.pop_back();
      push(TokenKind::Dedent, "", line_, col());
    }
    push(TokenKind::Eof, "", line_, col());
    return std::move(tokens_);
  }

 private:
  const SourceFile& file_;
  std::string_view src_;
  size_t pos_ = 0;
  int line_ = 1;
  size_t line_start_ = 0;
  int depth_ = 0;  // open brackets: newlines inside them join lines
  bool at_line_start_ = true;
  std::vector<int> indents_;
  std::vector<Token> tokens_;
  std::vector<Token> open_brackets_;

  int col() const { return static_cast<int>(pos_ - line_start_) + 1; }

  [[noreturn]] void fail(const std::string& msg, int line, int column) const {
    throw Error(msg, file_.at(line, column));
  }
  [[noreturn]] void fail_here(const std::string& msg) const { fail(msg, line_, col()); }

  void check_encoding() {
    int line = 1;
    size_t start = 0;
    for (size_t i = 0; i < src_.size();) {
      size_t len = utf8_sequence_length(src_, i);
      if (len == 0) fail("invalid UTF-8 byte in source", line, static_cast<int>(i - start) + 1);
      if (src_[i] == '\n') ++line, start = i + 1;
      i += len;
    }
  }

  void push(TokenKind kind, std::string text, int line, int column) {
    Token t;
    t.kind = kind;
    t.text = std::move(text);
    t.line = line;
    t.col = column;
    tokens_.push_back(std::move(t));
  }

  char cur(size_t ahead = 0) const {
    return pos_ + ahead < src_.size() ? src_[pos_ + ahead] : '\0';
  }
  bool more(size_t ahead = 0) const { return pos_ + ahead < src_.size(); }

  // Consumes a line break ("\n" or "\r\n") at pos_.
  void newline() {
    if (cur() == '\r') ++pos_;
    ++pos_;
    ++line_;
    line_start_ = pos_;
  }
  bool at_newline() const { return cur() == '\n' || (cur() == '\r' && cur(1) == '\n'); }

  // Measures the indentation of a new logical line and emits INDENT/DEDENT.
  // Returns false when the line was blank or a comment (already consumed).
  bool handle_indentation() {
    int width = 0;
    while (more() && (cur() == ' ' || cur() == '\t' || cur() == '\f')) {
      if (cur() == '\t') fail_here("tab character in indentation (use spaces)");
      if (cur() == ' ') ++width;
      ++pos_;
    }
    if (!more()) return false;
    if (cur() == '#') {
      while (more() && !at_newline()) ++pos_;
      if (more()) newline();
      return false;
    }
    if (at_newline()) {
      newline();
      return false;
    }
    at_line_start_ = false;
    if (width > indents_.back()) {
      indents_.push_back(width);
      push(TokenKind::Indent, "", line_, col());
    } else {
      while (width < indents_.back()) {
        indents_.pop_back();
        push(TokenKind::Dedent, "", line_, col());
      }
      if (width != indents_.back())
        fail_here("unindent does not match any outer indentation level");
    }
    return true;
  }

  static bool is_name_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  }
  static bool is_digit(char c) { return c >= '0' && c <= '9'; }

  void lex_one() {
    char c = cur();
    int start_col = col();
    if (c == ' ' || c == '\t' || c == '\f') {
      ++pos_;
      return;
    }
    if (c == '#') {
      while (more() && !at_newline()) ++pos_;
      return;
    }
    if (at_newline()) {
      if (depth_ == 0) {
        push(TokenKind::Newline, "", line_, start_col);
        at_line_start_ = true;
      }
      newline();
      return;
    }
    if (c == '\r') fail_here("carriage return not followed by a line feed");
    if (c == '\\') {
      if (cur(1) == '\n' || (cur(1) == '\r' && cur(2) == '\n')) {
        ++pos_;
        newline();
        return;
      }
      fail_here("unexpected '\\' outside a string");
    }
    if (c == '\0') fail_here("NUL byte in source");
    if (is_name_start(c)) return lex_name();
    if (is_digit(c) || (c == '.' && is_digit(cur(1)))) return lex_number();
    if (c == '"' || c == '\'') return lex_string();
    lex_operator();
  }

  void lex_name() {
    int start_col = col();
    size_t start = pos_;
    while (more() && (is_name_start(cur()) || is_digit(cur()))) ++pos_;
    push(TokenKind::Name, std::string(src_.substr(start, pos_ - start)), line_, start_col);
  }

  void lex_number() {
    int start_col = col();
    size_t start = pos_;
    bool is_float = false;
    while (is_digit(cur())) ++pos_;
    if (cur() == '.') {
      is_float = true;
      ++pos_;
      while (is_digit(cur())) ++pos_;
    }
    if (cur() == 'e' || cur() == 'E') {
      size_t save = pos_;
      ++pos_;
      if (cur() == '+' || cur() == '-') ++pos_;
      if (!is_digit(cur())) {
        (void)save;
        fail("malformed exponent in number", line_, start_col);
      }
      while (is_digit(cur())) ++pos_;
      is_float = true;
    }
    if (is_name_start(cur()))
      fail_here("invalid character '" + std::string(1, cur()) + "' in number");
    std::string spelling(src_.substr(start, pos_ - start));
    Token t;
    t.line = line_;
    t.col = start_col;
    t.text = spelling;
    if (is_float) {
      errno = 0;
      char* end = nullptr;
      double v = std::strtod(spelling.c_str(), &end);
      if (std::isinf(v) || errno == ERANGE) {
        // Underflow to zero is harmless; only overflow is rejected.
        if (std::isinf(v) || std::fabs(v) > 1.0)
          fail("float literal " + spelling + " is out of range", line_, start_col);
      }
      t.kind = TokenKind::Float;
      t.float_value = v;
    } else {
      if (spelling.size() > 1 && spelling[0] == '0' &&
          spelling.find_first_not_of('0') != std::string::npos)
        fail("leading zeros in integer literal " + spelling, line_, start_col);
      int64_t v = 0;
      auto [p, ec] = std::from_chars(spelling.data(), spelling.data() + spelling.size(), v);
      if (ec != std::errc() || p != spelling.data() + spelling.size())
        fail("integer literal " +
                 (spelling.size() > 40 ? spelling.substr(0, 40) + "..." : spelling) +
                 " is too large",
             line_, start_col);
      t.kind = TokenKind::Int;
      t.int_value = v;
    }
    tokens_.push_back(std::move(t));
  }

  void lex_string() {
    int start_line = line_;
    int start_col = col();
    char quote = cur();
    bool triple = cur(1) == quote && cur(2) == quote;
    pos_ += triple ? 3 : 1;
    std::string value;
    while (true) {
      if (!more()) fail("unterminated string literal", start_line, start_col);
      char c = cur();
      if (c == quote) {
        if (!triple) {
          ++pos_;
          break;
        }
        if (cur(1) == quote && cur(2) == quote) {
          pos_ += 3;
          break;
        }
      }
      if (at_newline()) {
        if (!triple) fail("unterminated string literal", start_line, start_col);
        value += '\n';
        newline();
        continue;
      }
      if (c == '\0') fail_here("NUL byte in string literal");
      if (c == '\\') {
        ++pos_;
        if (!more()) fail("unterminated string literal", start_line, start_col);
        char e = cur();
        if (at_newline()) {  // escaped line break: joins lines
          newline();
          continue;
        }
        ++pos_;
        switch (e) {
          case 'n':
            value += '\n';
            break;
          case 't':
            value += '\t';
            break;
          case 'r':
            value += '\r';
            break;
          case '0':
            value += '\0';
            break;
          case '\\':
            value += '\\';
            break;
          case '\'':
            value += '\'';
            break;
          case '"':
            value += '"';
            break;
          case 'x': {
            int v = 0;
            for (int k = 0; k < 2; ++k) {
              char h = cur();
              int d = is_digit(h)              ? h - '0'
                      : (h >= 'a' && h <= 'f') ? h - 'a' + 10
                      : (h >= 'A' && h <= 'F') ? h - 'A' + 10
                                               : -1;
              if (d < 0) fail_here("invalid \\x escape in string literal");
              v = v * 16 + d;
              ++pos_;
            }
            value += static_cast<char>(v);
            break;
          }
          default:
            fail(std::string("unknown escape sequence '\\") + e + "' in string literal", line_,
                 col() - 2);
        }
        continue;
      }
      value += c;
      ++pos_;
    }
    push(TokenKind::String, std::move(value), start_line, start_col);
  }

  void lex_operator() {
    static constexpr std::string_view kTwo[] = {"//", "==", "!=", "<=", ">=", "->", "**"};
    static constexpr std::string_view kOne = "+-*/%<>=()[]{},:.@";
    int start_col = col();
    std::string_view rest = src_.substr(pos_);
    for (std::string_view op : kTwo)
      if (rest.starts_with(op)) {
        pos_ += 2;
        push(TokenKind::Op, std::string(op), line_, start_col);
        return;
      }
    char c = cur();
    if (kOne.find(c) == std::string_view::npos) {
      unsigned char u = static_cast<unsigned char>(c);
      if (u < 0x20 || u >= 0x7F) fail_here("unexpected character (byte 0x" + hex(u) + ")");
      fail_here(std::string("unexpected character '") + c + "'");
    }
    ++pos_;
    push(TokenKind::Op, std::string(1, c), line_, start_col);
    if (c == '(' || c == '[' || c == '{') {
      ++depth_;
      open_brackets_.push_back(tokens_.back());
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth_ == 0) fail("unmatched '" + std::string(1, c) + "'", line_, start_col);
      char open = open_brackets_.back().text[0];
      char want = open == '(' ? ')' : open == '[' ? ']' : '}';
      if (c != want)
        fail("closing '" + std::string(1, c) + "' does not match '" + std::string(1, open) +
                 "' at line " + std::to_string(open_brackets_.back().line),
             line_, start_col);
      open_brackets_.pop_back();
      --depth_;
    }
    if (depth_ > 200) fail("nesting too deep", line_, start_col);
  }

  static std::string hex(unsigned char u) {
    const char* digits = "0123456789ABCDEF";
    return {digits[u >> 4], digits[u & 15]};
  }

 public:
  void finish_check() const {
    if (!open_brackets_.empty()) {
      const Token& t = open_brackets_.back();
      fail("'" + t.text + "' was never closed", t.line, t.col);
    }
  }
};

}  // namespace

std::vector<Token> tokenize(const SourceFile& file) {
  Lexer lexer(file);
  std::vector<Token> tokens = lexer.run();
  lexer.finish_check();
  return tokens;
}

}  // namespace tirc
