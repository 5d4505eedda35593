// tirc train-policy: train a loop policy (a Q-network over the loop actions
// of tuner/env.h) by Ape-X style Double DQN on a set of kernels, measuring
// through a tuning database, and write the policy file that `tirc tune
// --strategy policy` and `tirc compile|run --policy` use.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <random>
#include <sstream>

#include "driver/commands.h"
#include "driver/schedule_flags.h"
#include "driver/session.h"
#include "ir/eval/interpreter.h"
#include "tuner/fma_peak.h"
#include "tuner/policy/loop_training.h"
#include "tuner/report.h"
#include "tuner/tune_module.h"

namespace tirc::driver {

namespace {

struct TrainOptions {
  std::string dataset = "matmul-looptune";
  std::string db;
  std::string budget = "2h";
  std::string out;
  std::string report;
  std::string eval_every = "2m";
  std::string start = "default";  // default: the rules' schedule; plain: the untuned nest
  bool resume = false;
  int threads = 2;
  int kernels = 256;
  int eval = 16;
  int validate = 24;
  double learning_rate = 5e-4;
  // Far below the usual 0.99: from the rules' schedule, near the peak, a move
  // that loses d and its undo are worth -d + gamma * d, which at 0.99 is too
  // little to tell from stopping (0) through the network's error; at 0.5 it
  // is -d / 2. (From the untuned nest, where plans are long, 0.99 suits.)
  double gamma = 0.5;
  int episode_length = 10;
  uint64_t seed = 0;
};

// A name usable as a function name: letters, digits and '_'.
std::string identifier(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "k_" + out;
  return out;
}

// The kernels of every .tir file and .onnx model in dir (sorted by path),
// each named <file stem>_<function>, split by name like the built-in sets.
std::vector<DatasetEntry> directory_dataset(const std::string& dir) {
  if (!std::filesystem::is_directory(dir))
    throw Error("--dataset '" + dir +
                "' is neither a directory nor one of matmul-looptune, conv, looptune");
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.is_regular_file() && (e.path().extension() == ".tir" || e.path().extension() == ".onnx"))
      files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<DatasetEntry> out;
  for (const std::filesystem::path& p : files) {
    const IRModule m = load_module(p.string());
    for (const auto& [name, f] : m.functions()) {
      if (needs_module(f) || !is_contraction_kernel(f)) continue;
      DatasetEntry e;
      e.name = identifier(p.stem().string() + "_" + name);
      e.func = f;
      e.test = in_test_split(e.name);
      out.push_back(std::move(e));
    }
  }
  if (out.empty()) throw Error("--dataset '" + dir + "' holds no contraction kernel");
  return out;
}

std::vector<DatasetEntry> dataset(const std::string& spec) {
  if (spec == "matmul-looptune") return matmul_looptune_dataset();
  if (spec == "conv") return conv_dataset();
  if (spec == "looptune") {
    std::vector<DatasetEntry> all = matmul_looptune_dataset();
    for (DatasetEntry& e : conv_dataset()) all.push_back(std::move(e));
    return all;
  }
  return directory_dataset(spec);
}

// `count` entries spread evenly over `from` (all when it has no more).
std::vector<DatasetEntry> spread(const std::vector<DatasetEntry>& from, size_t count) {
  if (from.size() <= count) return from;
  std::vector<DatasetEntry> out;
  for (size_t i = 0; i < count; ++i) out.push_back(from[i * from.size() / count]);
  return out;
}

std::string actions_text(const std::vector<Action>& actions) {
  std::string out;
  for (const Action& a : actions) out += (out.empty() ? "" : " ") + a.name();
  return out.empty() ? "(none)" : out;
}

int run_train_policy(const TrainOptions& o) {
  const double budget = parse_duration(o.budget, "--budget");
  const double eval_every = parse_duration(o.eval_every, "--eval-every");
  // The policy is trained on single-threaded kernels: measurements do not
  // fight the actors and the learner for the cores.
  ::setenv("TIRC_NUM_THREADS", "1", 1);
  const Target target = host_target();
  PolicyMeasureOptions pmo;
  pmo.rules = rule_context(ScheduleFlags{}, target);
  pmo.measure.budget = Budget{.min_reps = 3, .min_seconds = 0.01, .max_seconds = 0.1};
  pmo.peak_gflops = measure_fma_peak(1, 0.2).gflops;

  std::vector<DatasetEntry> all = dataset(o.dataset);
  std::vector<DatasetEntry> train, test;
  for (DatasetEntry& e : all) (e.test ? test : train).push_back(std::move(e));
  if (train.empty())
    throw Error("--dataset '" + o.dataset + "' has no kernel in the training split");
  std::mt19937_64 pick(o.seed);
  std::shuffle(train.begin(), train.end(), pick);
  // The validation kernels come out of the training split (never trained
  // on) and choose which network is written; the test split is measured
  // once, at the end, on the chosen network.
  const size_t validate_count = std::min(static_cast<size_t>(o.validate), train.size() / 5);
  const std::vector<DatasetEntry> validation(train.begin(),
                                             train.begin() + static_cast<long>(validate_count));
  train.erase(train.begin(), train.begin() + static_cast<long>(validate_count));
  if (o.kernels > 0 && train.size() > static_cast<size_t>(o.kernels))
    train.resize(static_cast<size_t>(o.kernels));
  const std::vector<DatasetEntry> held_out = spread(test, static_cast<size_t>(o.eval));

  std::optional<TuningDatabase> db;
  if (!o.db.empty()) db.emplace(o.db);
  PolicyMeasurements measurements(pmo, db ? &*db : nullptr);
  const EnvOptions env_options{.threads = 1};
  const PolicyStart start = o.start == "plain" ? PolicyStart::plain : PolicyStart::rules;
  LoopTrainingEnv env(train, measurements, env_options, start);

  DqnOptions dq;
  dq.episode_length = o.episode_length;
  dq.actors = o.threads;
  dq.seed = o.seed;
  dq.budget_seconds = budget;
  dq.report_seconds = eval_every;
  dq.learning_rate = o.learning_rate;
  dq.gamma = o.gamma;
  DqnTrainer trainer(env, dq);
  const std::string checkpoint = o.out + ".ckpt";

  PolicyInfo info;
  info.actions = policy_output_names();
  info.episode_length = o.episode_length;
  info.target = record_target(pmo.rules) + ", " + record_cpu(pmo.rules);
  std::ostringstream cmd;
  cmd << "tirc train-policy --dataset " << o.dataset << " --budget " << o.budget << " --threads "
      << o.threads << " --kernels " << o.kernels << " --validate " << o.validate
      << " --learning-rate " << o.learning_rate << " --gamma " << o.gamma << " --episode-length "
      << o.episode_length << " --start " << o.start << " --seed " << o.seed;
  info.command = cmd.str();
  info.seed = o.seed;

  // The best network on the validation kernels so far (the geomean of
  // its rollouts' ends over their starts); written to the output each time
  // it improves, so an interrupted run leaves it there.
  std::unique_ptr<QNetwork> best =
      make_q_network(trainer.online().shape(), o.seed, o.episode_length);
  double best_speedup = -1;
  const auto validate = [&](const QNetwork& net) {
    return validation.empty()
               ? 0.0
               : geomean_speedup(evaluate_policy(net, validation, measurements, env_options,
                                                 o.episode_length, start),
                                 true);
  };
  if (o.resume) {
    trainer.load_checkpoint(checkpoint);
    spdlog::info("resumed from {}: {} episodes, {} updates", checkpoint, trainer.episodes(),
                 trainer.updates());
    if (std::filesystem::exists(o.out)) {
      best->copy_weights(*load_q_network(o.out));
      best_speedup = validate(*best);
    }
  }
  std::cout << "training on " << train.size() << " kernels of " << o.dataset << " ("
            << validation.size() << " to validate, " << held_out.size() << " to test), "
            << o.threads << " actors, episodes from the "
            << (start == PolicyStart::plain ? "untuned nest" : "rules' schedule") << ", "
            << record_target(pmo.rules) << ", " << record_cpu(pmo.rules) << ", peak "
            << static_cast<int>(pmo.peak_gflops) << " GFLOPS, budget " << o.budget << std::endl;

  trainer.train([&](const DqnProgress& p, const QNetwork& net) {
    // Without validation kernels (a tiny dataset) the last network is kept.
    const double speedup = validate(net);
    const bool better = validation.empty() || speedup > best_speedup;
    if (better) {
      best_speedup = speedup;
      best->copy_weights(net);
      info.episodes = p.episodes;
      best->save(o.out, info);
    }
    char line[256];
    std::snprintf(line, sizeof line,
                  "[%6.1f min] episodes %lld, updates %lld, mean return %.4f, loss %.5f, "
                  "validation speedup over the start %.3fx%s, measured %lld, recalled %lld",
                  p.seconds / 60, static_cast<long long>(p.episodes),
                  static_cast<long long>(p.updates), p.mean_return, p.loss, speedup,
                  better ? " (kept)" : "", static_cast<long long>(measurements.measured()),
                  static_cast<long long>(measurements.recalled()));
    std::cout << line << std::endl;
    trainer.save_checkpoint(checkpoint);
    return speedup;
  });
  trainer.save_checkpoint(checkpoint);

  const std::vector<PolicyEvaluation> tested =
      evaluate_policy(*best, held_out, measurements, env_options, o.episode_length, start);

  std::vector<PolicyRolloutRow> rows;
  char head[224];
  std::snprintf(head, sizeof head,
                "the kept policy (%lld episodes, validation %.3fx over the start) on the test "
                "kernels: geomean %.3fx over the start, %.2fx over the untuned nest\n",
                static_cast<long long>(info.episodes), best_speedup, geomean_speedup(tested, true),
                geomean_speedup(tested));
  std::cout << head;
  for (const PolicyEvaluation& e : tested) {
    rows.push_back(
        {e.kernel, e.plain_gflops, e.start_gflops, e.policy_gflops, actions_text(e.actions)});
    char line[160];
    std::snprintf(line, sizeof line, "  %-24s %8.2f untuned, %8.2f start -> %8.2f GFLOPS  ",
                  e.kernel.c_str(), e.plain_gflops, e.start_gflops, e.policy_gflops);
    std::cout << line << actions_text(e.actions) << "\n";
  }
  std::cout << "wrote " << o.out << " (" << info.episodes << " of " << trainer.episodes()
            << " episodes); checkpoint " << checkpoint << std::endl;
  if (!o.report.empty()) {
    std::vector<TrainingCurvePoint> curve;
    for (const DqnProgress& p : trainer.curve())
      curve.push_back({p.seconds, p.episodes, p.mean_return, p.evaluation});
    std::ofstream out(o.report);
    if (!out) throw Error("cannot write the report '" + o.report + "'");
    write_training_report(out, o.dataset, info.command + "; " + info.target, curve, rows);
  }
  return kOk;
}

}  // namespace

void add_train_policy_command(CLI::App& app, int& status) {
  auto opts = std::make_shared<TrainOptions>();
  auto* cmd = app.add_subcommand(
      "train-policy",
      "Train a loop policy (deep Q-learning) that schedules contraction kernels with no search");
  cmd->add_option("--dataset", opts->dataset,
                  "matmul-looptune, conv, looptune (both) or a directory of .tir/.onnx files")
      ->capture_default_str();
  cmd->add_option("--db", opts->db, "Tuning database (SQLite) of measurements to reuse and fill");
  cmd->add_option("--budget", opts->budget, "Training time (90s, 10m, 2h)")->capture_default_str();
  cmd->add_option("-o,--output", opts->out, "The policy file to write")->required();
  cmd->add_option("--threads", opts->threads, "Actor threads playing episodes")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cmd->add_option("--seed", opts->seed, "Seed of the network, the kernels and the exploration")
      ->capture_default_str();
  cmd->add_option("--kernels", opts->kernels,
                  "Train on this many kernels of the training split (0: all)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--eval", opts->eval, "Test-split kernels the kept policy is measured on")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--validate", opts->validate,
                  "Training-split kernels held out to choose the network written (at most a "
                  "fifth of the split)")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  cmd->add_option("--gamma", opts->gamma, "The discount of later rewards")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--learning-rate", opts->learning_rate, "Adam's learning rate")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--eval-every", opts->eval_every,
                  "How often the validation kernels are measured and the checkpoint written")
      ->capture_default_str();
  cmd->add_option("--episode-length", opts->episode_length, "Actions per episode")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  cmd->add_option("--start", opts->start,
                  "Where episodes start: default (the rules' schedule, whose tile decisions the "
                  "policy moves) or plain (the untuned nest, LoopTune's setting)")
      ->check(CLI::IsMember({"default", "plain"}))
      ->capture_default_str();
  cmd->add_option("--report", opts->report, "Write an HTML page with the learning curve");
  cmd->add_flag("--resume", opts->resume,
                "Go on from the checkpoint OUTPUT.ckpt a previous run wrote");
  cmd->callback([opts, &status] { status = run_train_policy(*opts); });
}

}  // namespace tirc::driver
