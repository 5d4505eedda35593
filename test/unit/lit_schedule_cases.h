// The lit schedule tests (test/lit/schedule/*.tir with the script their RUN line
// passes as `--trace %S/Inputs/<name>.py`), for unit tests that replay them.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ir/function.h"
#include "ir/structural.h"
#include "ir/text/parser.h"
#include "schedule/schedule.h"
#include "schedule/trace.h"

namespace tirc {

inline std::string read_text_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct ScheduleCase {
  std::filesystem::path program;
  std::filesystem::path script;
};

inline std::filesystem::path lit_script_of(const std::filesystem::path& tir) {
  const std::string text = read_text_file(tir);
  const std::string marker = "--trace %S/Inputs/";
  size_t at = text.find(marker);
  if (at == std::string::npos) return {};
  at += marker.size();
  size_t end = text.find(".py", at);
  if (end == std::string::npos) return {};
  return tir.parent_path() / "Inputs" / (text.substr(at, end - at) + ".py");
}

inline std::vector<ScheduleCase> lit_schedule_cases() {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(TIRC_SOURCE_DIR) / "test/lit/schedule";
  std::vector<ScheduleCase> cases;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".tir") continue;
    fs::path script = lit_script_of(entry.path());
    if (!script.empty() && fs::exists(script)) cases.push_back({entry.path(), script});
  }
  std::sort(cases.begin(), cases.end(),
            [](const ScheduleCase& a, const ScheduleCase& b) { return a.program < b.program; });
  // The sampling primitives have no .tir of their own: their script runs on
  // the matmul example in print_trace.test.
  cases.push_back(
      {fs::path(TIRC_SOURCE_DIR) / "examples/matmul.tir", dir / "Inputs/lookup_sample.py"});
  return cases;
}

// Whether b's buffer parameters have a's shapes (transform_layout of a
// parameter changes them, and then results cannot be compared element-wise).
inline bool same_param_shapes(const PrimFunc& a, const PrimFunc& b) {
  if (a->params.size() != b->params.size()) return false;
  for (size_t i = 0; i < a->params.size(); ++i) {
    const Buffer& x = a->params[i].buffer;
    const Buffer& y = b->params[i].buffer;
    if (!x != !y) return false;
    if (!x) continue;
    if (x->shape.size() != y->shape.size()) return false;
    for (size_t d = 0; d < x->shape.size(); ++d)
      if (!structural_equal(x->shape[d], y->shape[d])) return false;
  }
  return true;
}

// One function of a lit schedule case after its script, with the unscheduled
// function it must compute the same as.
struct ScheduleResult {
  std::string what;  // "<program> with <script>, function <name>"
  std::string text;  // the program's source
  PrimFunc original, scheduled;
};

// Every lit schedule case's functions after their scripts that code can be
// generated for and compared element-wise: not those whose parameters
// transform_layout changed, nor thread-bound ones (bind has no CPU meaning;
// lowering refuses it).
inline std::vector<ScheduleResult> lit_schedule_results() {
  std::vector<ScheduleResult> out;
  for (const ScheduleCase& c : lit_schedule_cases()) {
    if (c.program.filename().string().rfind("bind", 0) == 0) continue;
    const std::string text = read_text_file(c.program);
    const IRModule original = parse_module(text, c.program.string());
    Schedule sch(original);
    Trace::parse(read_text_file(c.script), c.script.string()).apply_to(sch);
    for (const auto& [name, func] : original.functions()) {
      const PrimFunc& result = sch.mod().at(name);
      if (!same_param_shapes(func, result)) continue;
      out.push_back({c.program.filename().string() + " with " + c.script.filename().string() +
                         ", function " + name,
                     text, func, result});
    }
  }
  return out;
}

}  // namespace tirc
