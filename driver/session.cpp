#include "driver/session.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "ir/onnx/model_pipeline.h"
#include "ir/text/parser.h"

namespace tirc::driver {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("no such file or directory: '" + path + "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw Error("cannot read '" + path + "': " + std::strerror(errno));
  return ss.str();
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw Error("cannot open '" + path + "' for writing: " + std::strerror(errno));
  out << text;
  out.close();
  if (!out) throw Error("cannot write '" + path + "'");
}

IRModule load_module(const std::string& path, const ModelOptions& model) {
  if (path.size() > 5 && path.compare(path.size() - 5, 5, ".onnx") == 0)
    return import_onnx_module(path, model);
  if (model.dims.has_flags())
    throw Error("--dim and --shape bind an ONNX model's symbolic dimensions; '" + path +
                "' is not an .onnx model");
  return parse_module(read_file(path), path);
}

double parse_duration(const std::string& text, const std::string& flag) {
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  const std::string unit = text.substr(used);
  const double scale = unit.empty() || unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : -1;
  if (used == 0 || scale < 0 || value < 0)
    throw Error(flag + " '" + text + "' is not a duration such as 90s, 10m or 1h");
  return value * scale;
}

void report(const Error& e) {
  std::cerr << e.render() << std::flush;
}

void report(const std::vector<Diagnostic>& diags) {
  for (const Diagnostic& d : diags) std::cerr << render_diagnostic(d.loc, "error", d.message);
  std::cerr << std::flush;
}

}  // namespace tirc::driver
