// tirc: the tensor compiler driver.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <iostream>

#include "driver/commands.h"
#include "driver/session.h"

using namespace tirc::driver;

static void setup_logging(const std::string& level) {
  auto logger = spdlog::stderr_color_mt("tirc");
  logger->set_pattern("tirc: %^%l%$: %v");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(level));
}

int main(int argc, char** argv) {
  CLI::App app{"tirc: a tensor compiler driver for TensorIR and ONNX models", "tirc"};
  app.set_version_flag("--version", std::string("tirc version ") + TIRC_VERSION);
  std::string log_level = "warn";
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error or off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "critical", "off"}))
      ->capture_default_str();
  bool verbose = false;
  app.add_flag("-v,--verbose", verbose, "Log what tirc does (same as --log-level=debug)");

  int status = kOk;
  add_fmt_command(app, status);
  add_check_command(app, status);
  add_eval_command(app, status);
  add_equiv_command(app, status);
  add_schedule_command(app, status);
  add_compile_command(app, status);
  add_dump_command(app, status);
  add_run_command(app, status);
  add_tune_command(app, status);
  add_train_policy_command(app, status);

  std::string help_topic;
  auto* help = app.add_subcommand("help", "Show help for tirc or one of its commands");
  help->add_option("command", help_topic, "Command to describe");
  help->callback([&] {
    if (help_topic.empty()) {
      // app.help() would describe the selected subcommand, i.e. `help` itself.
      std::cout << app.get_formatter()->make_help(&app, "tirc", CLI::AppFormatMode::Normal);
      return;
    }
    CLI::App* sub = nullptr;
    try {
      sub = app.get_subcommand(help_topic);
    } catch (const CLI::OptionNotFound&) {
    }
    if (!sub || sub == help) {
      std::cerr << "tirc: error: unknown command '" << help_topic << "'\n";
      status = kUsage;
      return;
    }
    std::cout << sub->help("tirc");
  });
  app.require_subcommand(1);
  app.parse_complete_callback([&] { setup_logging(verbose ? "debug" : log_level); });

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kUsage;
  } catch (const tirc::Error& e) {
    report(e);
    return kBadInput;
  } catch (const std::exception& e) {
    std::cerr << "tirc: internal error: " << e.what() << "\n";
    return kBadInput;
  }
  return status;
}
