#include "tuner/auto_schedule.h"

#include <algorithm>

#include "codegen/llvm/generator.h"
#include "codegen/x86/generator.h"
#include "ir/eval/interpreter.h"
#include "ir/functor.h"
#include "passes/pipeline.h"
#include "schedule/state.h"

namespace tirc {

namespace {

// Whether the target's generator takes f as scheduled (lowered alone; a
// kernel refers to no other function): the x86 one, or for AArch64 and CUDA
// the LLVM one (unoptimized: whether it emits, not how fast).
std::string generator_refusal(const PrimFunc& f, const Target& target) {
  try {
    if (target.isa == Isa::neon || target.isa == Isa::cuda) {
      const bool cuda = target.isa == Isa::cuda;
      LlvmOptions options;
      options.target = parse_llvm_target(cuda ? "cuda" : "aarch64-linux-gnu");
      options.opt_level = 0;
      // For CUDA the PTX: the launch and kernel checks run as it is emitted.
      generate_llvm({{"probe", lower(f, LowerOptions{cuda})}}, options,
                    cuda ? LlvmOutput::assembly : LlvmOutput::ir);
      return "";
    }
    GeneratorOptions gen;
    gen.target = target;
    generate_x86({{"probe", lower(f)}}, gen);
  } catch (const Error& e) {
    return e.message();
  }
  return "";
}

// A function with a non-serial loop, or a block whose loops are not the plain
// nest (split, fused, reordered), was scheduled by hand: the rules leave it as
// it is.
bool scheduled_by_hand(const PrimFunc& f) {
  struct Find : StmtVisitor {
    bool found = false;
    void visit_for(const ForNode* n) override {
      found |= n->for_kind != ForKind::Serial;
      StmtVisitor::visit_for(n);
    }
    void visit_block_realize(const BlockRealizeNode* r) override {
      for (size_t i = 0; i < r->iter_values.size(); ++i)
        found |= !r->iter_values[i].as<VarNode>() && !as_const_int(r->iter_values[i]);
      StmtVisitor::visit_block_realize(r);
    }
  } find;
  find.visit(f->body);
  return find.found;
}

std::vector<std::string> block_names(const PrimFunc& f) {
  std::vector<std::string> names;
  for (const BlockRealizeNode* r : collect_blocks(f->body))
    if (r->block->name != "root") names.push_back(r->block->name);
  return names;
}

}  // namespace

AutoScheduleResult auto_schedule(const IRModule& m, const RuleContext& cx,
                                 const std::vector<std::string>& skip, uint64_t seed) {
  AutoScheduleResult out{Schedule(m, seed), {}};
  Schedule& sch = out.schedule;
  for (const auto& [fname, f] : m.functions()) {
    if (needs_module(f) || std::find(skip.begin(), skip.end(), fname) != skip.end()) continue;
    if (scheduled_by_hand(f)) {
      out.blocks.push_back({fname, "", "", "already scheduled: left as written"});
      continue;
    }
    const Schedule before_func = sch;
    const size_t first_report = out.blocks.size();
    // Rule by rule, each over the blocks no earlier rule took: a contraction
    // may compute its pad and epilogue blocks inside its own loops before
    // the rule for other blocks schedules them where they then are.
    const std::vector<std::string> names = block_names(f);
    std::vector<BlockReport> reports;
    std::vector<std::string> passed_over(names.size());  // rules tried before, and why not
    for (const std::string& name : names) reports.push_back({fname, name, "", ""});
    const std::vector<ScheduleRule>& rules =
        cx.cpu.target.isa == Isa::cuda ? gpu_rules() : default_rules();
    for (const ScheduleRule& rule : rules) {
      for (size_t b = 0; b < names.size(); ++b) {
        if (!reports[b].rule.empty()) continue;
        const std::vector<std::string> present = block_names(sch.func(fname));
        if (std::find(present.begin(), present.end(), names[b]) == present.end()) {
          // An earlier rule inlined it (a pad into its convolution).
          reports[b].rule = "inlined";
          reports[b].note = "computed inside its consumer";
          passed_over[b].clear();
          continue;
        }
        Schedule trial = sch;
        std::string why;
        try {
          RuleOutcome o = rule.apply(trial, trial.get_block(names[b], fname), cx);
          if (o.applied) {
            sch = std::move(trial);
            reports[b].rule = rule.name;
            reports[b].note = o.note;
            continue;
          }
          why = o.note;
        } catch (const Error& e) {
          why = "refused: " + e.message();
        }
        passed_over[b] += (passed_over[b].empty() ? "" : "; ") + rule.name + " " + why;
      }
    }
    for (size_t b = 0; b < names.size(); ++b) {
      BlockReport& report = reports[b];
      if (!passed_over[b].empty())
        report.note +=
            (report.note.empty() ? "" : " [") + passed_over[b] + (report.note.empty() ? "" : "]");
      out.blocks.push_back(std::move(report));
    }
    // A schedule the generator cannot take gives way to the plain nest.
    if (sch.func(fname).get() != f.get()) {
      std::string why = generator_refusal(sch.func(fname), cx.cpu.target);
      if (!why.empty()) {
        sch = before_func;
        for (size_t b = first_report; b < out.blocks.size(); ++b) {
          out.blocks[b].note =
              "fell back to the plain nest: the generator refused the schedule (" + why + ")";
          out.blocks[b].rule.clear();
        }
      }
    }
  }
  return out;
}

}  // namespace tirc
