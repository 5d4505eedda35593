// tirc check: parse and verify TensorIR files.
#include <spdlog/spdlog.h>

#include "driver/commands.h"
#include "driver/session.h"

namespace tirc::driver {

void add_check_command(CLI::App& app, int& status) {
  auto files = std::make_shared<std::vector<std::string>>();
  auto* cmd = app.add_subcommand("check", "Parse and verify TensorIR files; print every problem found");
  cmd->add_option("files", *files, "Input .tir files")->required();
  cmd->callback([files, &status] {
    for (const std::string& path : *files) {
      IRModule m = load_module(path);
      std::vector<Diagnostic> diags = verify(m);
      for (Diagnostic& d : diags)
        if (!d.loc.file) d.loc.file = std::make_shared<const std::string>(path);
      report(diags);
      if (!diags.empty()) status = kBadInput;
      spdlog::info("{}: {} function(s), {} problem(s)", path, m.size(), diags.size());
    }
  });
}

}  // namespace tirc::driver
