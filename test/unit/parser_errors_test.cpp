// Every parser diagnostic: the message and the exact line:col it points at.
#include <catch2/catch.hpp>

#include <string>

#include "ir/text/parser.h"

using namespace tirc;

namespace {

struct ErrorCase {
  const char* name;
  std::string body;  // function body lines, or a whole file when whole_file
  const char* message;
  int line;
  int col;
  bool whole_file = false;
};

const std::string kHeader =
    "@T.prim_func\n"
    "def f(A: T.Buffer((8, 8), \"float32\"), n: T.int32, a: T.handle):\n";

// Inside the loop nest `for i, j in T.grid(8, 8): with T.block("b"):` the
// block body starts on line 5 at column 13.
const std::string kBlock =
    "    for i, j in T.grid(8, 8):\n"
    "        with T.block(\"b\"):\n";

std::string text_of(const ErrorCase& c) {
  return c.whole_file ? c.body : kHeader + c.body;
}

void check_error(const ErrorCase& c) {
  std::string text = text_of(c);
  try {
    parse_module(text, "t.tir");
    FAIL("no error for: " << text);
  } catch (const Error& e) {
    INFO(e.render());
    CHECK(e.message().find(c.message) != std::string::npos);
    CHECK(e.loc().line == c.line);
    CHECK(e.loc().col == c.col);
    CHECK(*e.loc().file == "t.tir");
  }
}

}  // namespace

TEST_CASE("parser errors: statements and scoping", "[parser]") {
  const ErrorCase cases[] = {
      {"undefined variable", "    A[0, 0] = k\n", "undefined variable 'k'", 3, 15},
      {"too many indices", "    A[0, 0, 1] = 1.0\n",
       "buffer 'A' has 2 dimensions but is indexed with 3 indices", 3, 5},
      {"missing colon", "    for i in range(8)\n        A[i, 0] = 1.0\n",
       "expected ':' after for header", 3, 22},
      {"unknown dtype", "    B = T.alloc_buffer((8,), \"float31\")\n", "unknown dtype 'float31'", 3,
       30},
      {"remap count", kBlock + "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j])\n",
       "T.axis.remap: 3 kinds but 2 loop variables", 5, 39},
      {"operand types", "    x: T.float32 = A[0, 0] + n\n",
       "operands of + have different types: float32 and int32", 3, 28},
      {"iter var twice",
       kBlock + "            vi = T.axis.spatial(8, i)\n            vi = T.axis.spatial(8, j)\n",
       "block iteration variable 'vi' is defined twice", 6, 13},
      {"store type", "    A[0, 0] = n\n",
       "cannot store a int32 value into buffer 'A' of type float32", 3, 15},
      {"if not bool", "    if n:\n        A[0, 0] = 1.0\n", "if condition must be bool, got int32",
       3, 8},
      {"else without if", "    else:\n        A[0, 0] = 1.0\n", "'else' without a matching 'if'", 3,
       5},
      {"undefined buffer", "    B[0] = 1.0\n", "undefined buffer 'B'", 3, 5},
      {"reads outside block", "    T.reads(A[0, 0])\n", "T.reads must be directly inside a block",
       3, 7},
      {"grid count", "    for i, j in T.grid(8):\n        A[i, j] = 1.0\n",
       "T.grid has 1 extents but 2 loop variables", 3, 19},
      {"unknown T function", "    A[0, 0] = T.foo(1.0)\n",
       "unknown function T.foo in an expression", 3, 17},
      {"argument count", "    A[0, 0] = T.exp(1.0, 2.0)\n", "T.exp takes 1 argument, got 2", 3, 17},
      {"let type", "    x: T.int32 = 1.5\n",
       "value of 'x' has type float32 but is declared T.int32", 3, 18},
      {"init outside block", "    with T.init():\n        A[0, 0] = 1.0\n",
       "with T.init() must be directly inside a block", 3, 12},
      {"axis outside block", "    vi = T.axis.spatial(8, 0)\n",
       "T.axis must be directly inside a block", 3, 12},
      {"remap non-loop", kBlock + "            vi = T.axis.remap(\"S\", [n])\n",
       "T.axis.remap: 'n' is not a loop variable", 5, 37},
      {"remap kind", kBlock + "            vi, vj = T.axis.remap(\"SX\", [i, j])\n",
       "unknown axis kind 'X' in T.axis.remap", 5, 35},
      {"match_buffer source", "    B = T.match_buffer(n, (8,))\n",
       "T.match_buffer source 'n' is not a handle parameter", 3, 24},
      {"unknown loop kind", "    for i in T.foo(8):\n        A[i, 0] = 1.0\n",
       "unknown loop kind T.foo", 3, 16},
      {"redefinition", "    x: T.int32 = 1\n    x: T.int32 = 2\n",
       "'x' is already defined in this scope", 4, 5},
      {"buffer as value", "    A[0, 0] = A\n", "buffer 'A' used as a value; index it as A[...]", 3,
       15},
      {"float index", "    A[0, 1.5] = 1.0\n",
       "index of buffer 'A' must be an integer, got float32", 3, 10},
      {"string as value", "    A[0, 0] = \"x\"\n", "a string is not allowed here", 3, 15},
      {"thread binding without thread",
       "    for t in T.thread_binding(8):\n        A[t, 0] = 1.0\n",
       "T.thread_binding needs thread=", 3, 16},
      {"loop var out of scope",
       "    for i in range(8):\n        A[i, 0] = 1.0\n    A[i, 0] = 2.0\n",
       "undefined variable 'i'", 5, 7},
      {"iter var out of scope",
       kBlock + "            vi = T.axis.spatial(8, i)\n            A[vi, 0] = 1.0\n        A[vi, "
                "0] = 2.0\n",
       "undefined variable 'vi'", 7, 11},
      {"reads given twice", kBlock + "            T.reads(A[0, 0])\n            T.reads(A[0, 0])\n",
       "T.reads is given twice", 6, 15},
      {"unknown buffer argument", "    B = T.alloc_buffer((8,), \"float32\", colour=1)\n",
       "unknown argument 'colour' of T.alloc_buffer", 3, 41},
      {"unsupported statement", "    while n < 3:\n        A[0, 0] = 1.0\n",
       "'while' statements are not supported", 3, 5},
      {"unknown statement", "    T.frobnicate(1)\n", "unknown statement T.frobnicate", 3, 7},
      {"where not bool", kBlock + "            T.where(i)\n",
       "T.where needs a bool condition, got int32", 5, 15},
      {"range overflow",
       "    for i in range(-9223372036854775807, 9223372036854775807):\n        T.evaluate(i)\n",
       "range is too large", 3, 42},
      {"alloc_buffer stride undefined",
       "    B = T.alloc_buffer((8, 8), \"float32\", strides=(lda, 1))\n",
       "undefined variable 'lda'", 3, 52},
      {"match_buffer stride expression undefined",
       kBlock + "            B = T.match_buffer(A[0:8, 0:8], (8, 8), strides=(lda * 2, 1))\n",
       "undefined variable 'lda'", 5, 62},
      {"match_buffer variable out of scope",
       kBlock + "            B = T.match_buffer(A[0:8, 0:8], (8, 8), strides=(lda, 1))\n"
                "        A[0, 0] = T.Cast(\"float32\", lda)\n",
       "undefined variable 'lda'", 6, 37},
      {"T.Buffer parameter stride undefined",
       "@T.prim_func\ndef f(A: T.Buffer((8, 8), \"float32\", strides=(lda, 1))):\n"
       "    A[0, 0] = 1.0\n",
       "undefined variable 'lda'", 2, 47, true},
      {"func_attr in loop", "    for i in range(8):\n        T.func_attr({\"a\": 1})\n",
       "T.func_attr must be at the top of the function body", 4, 11},
  };
  for (const ErrorCase& c : cases) DYNAMIC_SECTION(c.name) {
      check_error(c);
    }
}

TEST_CASE("parser errors: lexical", "[parser]") {
  const ErrorCase cases[] = {
      {"huge integer", "    A[0, 0] = 99999999999999999999\n",
       "integer literal 99999999999999999999 is too large", 3, 15},
      {"NUL byte", std::string("    A[0, 0] = \0\n", 16), "NUL byte in source", 3, 15},
      {"invalid UTF-8", "    A[0, 0] = \xff\n", "invalid UTF-8 byte in source", 3, 15},
      {"tab indentation", "\tA[0, 0] = 1.0\n", "tab character in indentation", 3, 1},
      {"bad unindent", "    for i in range(8):\n        A[i, 0] = 1.0\n      A[0, 0] = 1.0\n",
       "unindent does not match any outer indentation level", 5, 7},
      {"unterminated string", "    B = T.alloc_buffer((8,), \"float32)\n",
       "unterminated string literal", 3, 30},
      {"unknown escape", "    T.func_attr({\"a\": \"b\\q\"})\n", "unknown escape sequence '\\q'", 3,
       25},
      {"unmatched paren", "    A[0, 0] = 1.0)\n", "unmatched ')'", 3, 18},
      {"unclosed paren", "    A[0, 0] = (1.0\n", "'(' was never closed", 3, 15},
      {"stray character", "    A[0, 0] = 1.0 $ 2\n", "unexpected character '$'", 3, 19},
      {"malformed exponent", "    A[0, 0] = 1e+\n", "malformed exponent in number", 3, 15},
  };
  for (const ErrorCase& c : cases) DYNAMIC_SECTION(c.name) {
      check_error(c);
    }
}

TEST_CASE("parser errors: functions and modules", "[parser]") {
  const ErrorCase cases[] = {
      {"no function", "x = 1\n", "expected @T.prim_func or @I.ir_module, found 'x'", 1, 1, true},
      {"duplicate parameter", "@T.prim_func\ndef f(n: T.int32, n: T.int32):\n    T.evaluate(n)\n",
       "duplicate parameter 'n'", 2, 19, true},
      {"missing annotation", "@T.prim_func\ndef f(A):\n    T.evaluate(0)\n",
       "parameter 'A' needs a type annotation", 2, 7, true},
      {"eof in parameter list", "@T.prim_func\ndef f(", "'(' was never closed", 2, 6, true},
      {"eof after header", "@T.prim_func\ndef f(n: T.int32):",
       "expected an indented block after the function signature", 2, 19, true},
      {"missing body", "@T.prim_func\ndef f(n: T.int32):\n", "expected an indented block", 3, 1,
       true},
      {"duplicate function",
       "@I.ir_module\nclass Module:\n    @T.prim_func\n    def f(n: T.int32):\n        "
       "T.evaluate(n)\n\n"
       "    @T.prim_func\n    def f(n: T.int32):\n        T.evaluate(n)\n",
       "function 'f' is defined twice in the module", 8, 9, true},
      {"trailing text", "@T.prim_func\ndef f(n: T.int32):\n    T.evaluate(n)\nx = 1\n",
       "after the end of the function", 4, 1, true},
      {"unknown scalar dtype", "@T.prim_func\ndef f(n: T.int31):\n    T.evaluate(n)\n",
       "unknown dtype 'int31'", 2, 12, true},
  };
  for (const ErrorCase& c : cases) DYNAMIC_SECTION(c.name) {
      check_error(c);
    }
}

TEST_CASE("parser errors: expressions", "[parser]") {
  Var n = make_var("n", DataType::int32());
  auto check = [&](const char* text, const char* message, int col) {
    INFO(text);
    try {
      parse_expr(text, {n});
      FAIL("no error");
    } catch (const Error& e) {
      INFO(e.render());
      CHECK(e.message().find(message) != std::string::npos);
      CHECK(e.loc().line == 1);
      CHECK(e.loc().col == col);
    }
  };
  check("T.int8(300)", "literal 300 is out of range for int8", 8);
  check("n and n", "operands of 'and' must be bool, got int32", 3);
  check("n < n < n", "chained comparisons are not supported", 7);
  check("1e999", "float literal 1e999 is out of range", 1);
  check("n + 1.5", "operands of + have different types: int32 and float32", 3);
  check("not n", "operand of 'not' must be bool, got int32", 1);
  check("n // T.float32(2)", "operands of // have different types", 3);
  check("T.Cast(\"float31\", n)", "unknown dtype 'float31'", 8);
  check("n +", "expected an expression, found end of line", 4);
  check("T.Ramp(n, 1, 1)", "T.Ramp lanes must be between 2 and 1024", 3);
  check("n n", "unexpected 'n' after the expression", 3);
  check("T.float32(\"infinity\")", "expected \"inf\", \"-inf\" or \"nan\"", 11);
  check("T.Select(n, 1, 2)", "condition of T.Select must be bool", 3);
}

TEST_CASE("parser errors: nesting limits", "[parser]") {
  // Too many brackets are caught by the tokenizer, too deep statements and
  // unary chains by the parser; none of them may overflow the stack.
  std::string parens(300, '(');
  try {
    parse_expr(parens + "1" + std::string(300, ')'));
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.message() == "nesting too deep");
    CHECK(e.loc().col == 201);
  }
  try {
    parse_expr(std::string(5000, '-') + "n", {make_var("n")});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.message() == "nesting too deep");
  }
  std::string deep = "@T.prim_func\ndef f(n: T.int32):\n";
  for (int i = 0; i < 300; ++i) deep += std::string(4 * (i + 1), ' ') + "if n < 1:\n";
  deep += std::string(4 * 301, ' ') + "T.evaluate(n)\n";
  try {
    parse_module(deep);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.message() == "nesting too deep");
    CHECK(e.loc().line > 100);
  }
  std::string chain = "n";
  for (int i = 0; i < 3000; ++i) chain += " + n";
  try {
    parse_expr(chain, {make_var("n")});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.message() == "expression nesting too deep");
  }
}

TEST_CASE("parser errors: render quotes the line with a caret", "[parser]") {
  try {
    parse_module(kHeader + "    A[0, 0] = k\n", "t.tir");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.render() ==
          "t.tir:3:15: error: undefined variable 'k'\n    A[0, 0] = k\n              ^\n");
  }
}
