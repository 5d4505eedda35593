#include "ir/text/printer.h"

#include "ir/text/text_printer.h"

namespace tirc {

namespace {

constexpr const char* kTirImport = "# from tvm.script import tir as T\n";
constexpr const char* kIrImport = "# from tvm.script import ir as I\n";

}  // namespace

std::string print_module(const IRModule& m) {
  std::string out = std::string(kIrImport) + kTirImport + "\n@I.ir_module\nclass Module:\n";
  if (!m.attrs.empty()) {
    TextPrinter printer;
    out += "    I.module_attrs(" + printer.annotations_text(m.attrs) + ")\n";
  }
  if (m.empty()) return out + (m.attrs.empty() ? "    pass\n" : "");
  bool first = true;
  for (const auto& [name, func] : m.functions()) {
    if (!first) out += "\n";
    first = false;
    TextPrinter printer;  // each function is its own naming scope
    printer.print_function(func, name, 1);
    out += printer.text();
  }
  return out;
}

std::string print_func(const PrimFunc& f, std::string_view name) {
  TextPrinter printer;
  printer.print_function(f, name, 0);
  return std::string(kTirImport) + "\n" + printer.text();
}

std::string print_expr(const Expr& e) {
  TextPrinter printer;
  return printer.print_expr(e);
}

std::string print_stmt(const Stmt& s) {
  TextPrinter printer;
  printer.print_stmt(s, 0);
  return printer.text();
}

std::string print(const IRModule& m) {
  if (m.size() == 1 && m.attrs.empty())
    return print_func(m.functions()[0].second, m.functions()[0].first);
  return print_module(m);
}

}  // namespace tirc
