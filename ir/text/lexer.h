// Splits TVMScript text into Python-like tokens, with INDENT/DEDENT produced
// from leading whitespace and NEWLINE ending each logical line.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/error.h"

namespace tirc {

enum class TokenKind : uint8_t { Name, Int, Float, String, Op, Newline, Indent, Dedent, Eof };

const char* to_string(TokenKind kind);

struct Token {
  TokenKind kind = TokenKind::Eof;
  std::string text;  // name, operator spelling, decoded string contents, or literal spelling
  int line = 0;
  int col = 0;
  int64_t int_value = 0;
  double float_value = 0;

  bool is_op(std::string_view op) const { return kind == TokenKind::Op && text == op; }
  bool is_name(std::string_view name) const { return kind == TokenKind::Name && text == name; }
};

// The shared file name and text every SourceLoc of one parse points into.
struct SourceFile {
  std::shared_ptr<const std::string> name;
  std::shared_ptr<const std::string> text;

  SourceLoc at(int line, int col) const { return SourceLoc{name, text, line, col}; }
};

// Tokenizes the whole file; throws tirc::Error at the first bad character.
// The result always ends with an Eof token.
std::vector<Token> tokenize(const SourceFile& file);

}  // namespace tirc
