#include "ir/text/printer.h"

#include "ir/text/text_printer.h"

namespace tirc {

namespace {

std::string tir_import(Surface surface) {
  return surface == Surface::tirx ? "# from tvm.script import tirx as T\n"
                                  : "# from tvm.script import tir as T\n";
}
constexpr const char* kIrImport = "# from tvm.script import ir as I\n";

}  // namespace

std::string print_module(const IRModule& m, Surface surface) {
  std::string out = kIrImport + tir_import(surface) + "\n@I.ir_module\nclass Module:\n";
  if (!m.attrs.empty()) {
    TextPrinter printer;
    out += "    I.module_attrs(" + printer.annotations_text(m.attrs) + ")\n";
  }
  if (m.empty()) return out + (m.attrs.empty() ? "    pass\n" : "");
  bool first = true;
  for (const auto& [name, func] : m.functions()) {
    if (!first) out += "\n";
    first = false;
    TextPrinter printer(surface);  // each function is its own naming scope
    printer.print_function(func, name, 1);
    out += printer.text();
  }
  return out;
}

std::string print_func(const PrimFunc& f, std::string_view name, Surface surface) {
  TextPrinter printer(surface);
  printer.print_function(f, name, 0);
  return tir_import(surface) + "\n" + printer.text();
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

std::string print(const IRModule& m, Surface surface) {
  if (m.size() == 1 && m.attrs.empty())
    return print_func(m.functions()[0].second, m.functions()[0].first, surface);
  return print_module(m, surface);
}

}  // namespace tirc
