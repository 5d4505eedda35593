#include "ir/text/name_table.h"

#include <array>
#include <cctype>

namespace tirc {

namespace {

// Names that would change the meaning of printed text: Python keywords, the
// module aliases and builtins the printer itself writes.
bool is_reserved(std::string_view name) {
  static constexpr std::array<std::string_view, 39> kReserved = {
      "False",   "None",     "True",     "and",    "as",   "assert", "async",  "await",
      "break",   "class",    "continue", "def",    "del",  "elif",   "else",   "except",
      "finally", "for",      "from",     "global", "if",   "import", "in",     "is",
      "lambda",  "nonlocal", "not",      "or",     "pass", "raise",  "return", "try",
      "while",   "with",     "yield",    "T",      "I",    "range",  "print"};
  for (std::string_view r : kReserved)
    if (r == name) return true;
  return false;
}

}  // namespace

std::string NameTable::sanitize(std::string_view hint) {
  std::string name;
  for (char c : hint) {
    unsigned char u = static_cast<unsigned char>(c);
    name += (std::isalnum(u) || c == '_') && u < 128 ? c : '_';
  }
  if (name.empty()) return "v";
  if (std::isdigit(static_cast<unsigned char>(name[0]))) name.insert(name.begin(), '_');
  return name;
}

const std::string& NameTable::define(const void* key, std::string_view hint) {
  if (auto it = names_.find(key); it != names_.end()) return it->second;
  std::string base = sanitize(hint);
  std::string name = base;
  for (int suffix = 1; is_reserved(name) || used_.count(name); ++suffix)
    name = base + "_" + std::to_string(suffix);
  used_.insert(name);
  return names_.emplace(key, std::move(name)).first->second;
}

const std::string* NameTable::find(const void* key) const {
  auto it = names_.find(key);
  return it == names_.end() ? nullptr : &it->second;
}

}  // namespace tirc
