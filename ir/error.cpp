#include "ir/error.h"

namespace tirc {

Error::Error(std::string message, SourceLoc loc)
    : std::runtime_error(message), message_(std::move(message)), loc_(std::move(loc)) {}

std::string Error::render() const { return render_diagnostic(loc_, "error", message_); }

static std::string source_line(const std::string& text, int line) {
  size_t pos = 0;
  for (int l = 1; l < line; ++l) {
    pos = text.find('\n', pos);
    if (pos == std::string::npos) return {};
    ++pos;
  }
  size_t end = text.find('\n', pos);
  return text.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
}

std::string render_diagnostic(const SourceLoc& loc, std::string_view severity,
                              std::string_view message) {
  std::string out;
  if (loc.file) {
    out += *loc.file;
    if (loc.known()) {
      out += ':';
      out += std::to_string(loc.line);
      out += ':';
      out += std::to_string(loc.col);
    }
    out += ": ";
  }
  out += severity;
  out += ": ";
  out += message;
  out += "\n";
  if (loc.known() && loc.text) {
    std::string line = source_line(*loc.text, loc.line);
    out += line;
    out += '\n';
    // Keep tabs in the caret line so the caret lines up under tabbed source.
    std::string caret;
    for (int i = 0; i + 1 < loc.col && i < static_cast<int>(line.size()); ++i)
      caret += line[i] == '\t' ? '\t' : ' ';
    out += caret;
    out += "^\n";
  }
  return out;
}

}  // namespace tirc
