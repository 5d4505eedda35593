// The one error type of tirc: every failure the user can cause (bad text, an
// illegal schedule, an unsupported model) is reported as a tirc::Error carrying
// the source location it is about, when there is one.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

namespace tirc {

// A position in a named source text. `line` and `col` are 1-based; 0 means
// unknown. The text itself is shared so diagnostics can quote the line.
struct SourceLoc {
  std::shared_ptr<const std::string> file;  // file name as the user gave it
  std::shared_ptr<const std::string> text;  // the whole source, for quoting
  int line = 0;
  int col = 0;

  bool known() const { return line > 0; }
};

class Error : public std::runtime_error {
 public:
  explicit Error(std::string message, SourceLoc loc = {});

  const std::string& message() const { return message_; }
  const SourceLoc& loc() const { return loc_; }

  // clang-style rendering: "file:line:col: error: message", then the source
  // line and a caret under the column when the location is known.
  std::string render() const;

 private:
  std::string message_;
  SourceLoc loc_;
};

// Renders a diagnostic of any severity ("error", "warning", "note").
std::string render_diagnostic(const SourceLoc& loc, std::string_view severity,
                              std::string_view message);

}  // namespace tirc
