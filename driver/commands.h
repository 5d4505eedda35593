// The subcommands of `tirc`. Each add_* registers a subcommand whose callback
// stores its exit status in `status`.
#pragma once

#include <CLI/CLI.hpp>

namespace tirc::driver {

void add_fmt_command(CLI::App& app, int& status);
void add_check_command(CLI::App& app, int& status);
void add_eval_command(CLI::App& app, int& status);
void add_equiv_command(CLI::App& app, int& status);
void add_schedule_command(CLI::App& app, int& status);
void add_compile_command(CLI::App& app, int& status);
void add_dump_command(CLI::App& app, int& status);
void add_run_command(CLI::App& app, int& status);
void add_tune_command(CLI::App& app, int& status);
void add_train_policy_command(CLI::App& app, int& status);

}  // namespace tirc::driver
