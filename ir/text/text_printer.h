// The printer behind ir/text/printer.h: one instance prints one function (or
// one fragment), so names are unique per function, as in Python scopes.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir/function.h"
#include "ir/text/name_table.h"
#include "ir/text/surface.h"

namespace tirc {

class TextPrinter {
 public:
  explicit TextPrinter(Surface surface = Surface::classic) : surface_(surface) {}
  // Appends `def ...` (decorator included) at `indent` levels.
  void print_function(const PrimFunc& f, std::string_view name, int indent);
  // Appends the statement's lines at `indent` levels; nothing for an empty one.
  void print_stmt(const Stmt& s, int indent);
  std::string print_expr(const Expr& e);
  // `{"key": value, ...}` as T.func_attr prints it.
  std::string annotations_text(const Annotations& a) { return annotations(a); }

  const std::string& text() const { return out_; }

 private:
  struct Printed {
    std::string text;
    int precedence;
  };

  // ---- expressions (text_printer_expr.cpp)
  Printed expr(const Expr& e);
  // e's text, parenthesized when it binds looser than `min_precedence`.
  std::string operand(const Expr& e, int min_precedence);
  std::string binary(const BinaryNode* n);
  std::string args(const std::vector<Expr>& es);
  std::string var_name(const VarNode* v) const;
  std::string buffer_name(const Buffer& b) const;
  // `min + extent`, folded when both are integer constants of one type.
  std::string stop_of(const Expr& min, const Expr& extent);
  std::string annotations(const Annotations& a);
  std::string annotation_value(const Expr& e);

  // ---- statements (text_printer_stmt.cpp)
  // "T." and the word of the printed surface for a classic word: T.block or T.sblock.
  std::string t_word(std::string_view classic) const;
  void line(int indent, std::string_view text);
  // A body that must hold at least one statement.
  void print_body(const Stmt& s, int indent);
  void print_for(const ForNode* f, int indent);
  void print_block(const BlockNode* b, const std::vector<Expr>& values, const Expr& predicate,
                   int indent);
  void print_block_axes(const BlockNode* b, const std::vector<Expr>& values, int indent);
  void print_alloc_buffer(const Buffer& b, int indent);
  std::string region(const BufferRegion& r);
  std::string shape(const std::vector<Expr>& dims);
  // `"float32"` and the non-default keyword arguments of a buffer declaration.
  std::string buffer_tail(const Buffer& b);
  const ForNode* enclosing_loop(const VarNode* v) const;
  // Names a buffer and remembers its storage variable, for `data=` of T.decl_buffer.
  void define_buffer(const Buffer& b);
  std::string data_reference(const VarNode* data) const;
  // Buffers that are accessed but declared nowhere (flat views after
  // lowering) print as `X = T.Buffer(shape, data=...)` where their storage
  // comes into scope: at the top of the function or after its T.allocate.
  void collect_aliases(const PrimFunc& f);
  void print_aliases(const VarNode* data, int indent);

  Surface surface_;
  std::string out_;
  NameTable names_;
  std::vector<const ForNode*> loops_;  // enclosing loops, outermost first
  std::unordered_map<const VarNode*, Buffer> data_owner_;
  std::unordered_map<const VarNode*, std::vector<Buffer>> aliases_;  // by storage variable
};

// Python string literal with double quotes.
std::string quote(std::string_view s);

}  // namespace tirc
