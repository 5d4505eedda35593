// generate_x86: every function's entry, packed entry and outlined parallel
// bodies into one position-independent text, constants at its end.
#include "codegen/x86/generator.h"

#include <deque>
#include <set>

#include "codegen/x86/emitter.h"
#include "codegen/x86/legalize_vectors.h"

namespace tirc {

namespace {

// Xbyak's growable buffer, without mprotect: the bytes are copied out, never run in place.
struct PlainAllocator : Xbyak::Allocator {
  bool useProtect() const override { return false; }
};

void check_symbol(const std::string& s, std::set<std::string>& seen) {
  if (s.empty()) throw Error("x86 codegen: empty function symbol");
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_'))
      throw Error("x86 codegen: symbol '" + s + "' is not a C identifier");
  if (!seen.insert(s).second || !seen.insert(s + "_packed").second)
    throw Error("x86 codegen: duplicate symbol '" + s + "'");
}

}  // namespace

MachineCode generate_x86(const std::vector<FunctionToCompile>& functions,
                         const GeneratorOptions& options) {
  return generate_x86(functions, options, nullptr);
}

MachineCode generate_x86(const std::vector<FunctionToCompile>& functions,
                         const GeneratorOptions& options, GeneratorStats* stats) {
  if (options.target.isa == Isa::neon || options.target.isa == Isa::cuda)
    throw Error("x86 codegen: target " + options.target.name() +
                " is not x86-64 (the LLVM generator emits it: --backend=llvm)");
  PlainAllocator allocator;
  Xbyak::CodeGenerator code(4096, Xbyak::AutoGrow, &allocator);
  ConstantPool pool;
  ModuleState m{code, pool, options, {}, {}, {}, {}, {}, {}, {}, {}};
  MachineCode out;
  std::set<std::string> seen;
  SpillStats spills;
  // Vector stores wider than a register are split first, so the emitter sees
  // register-wide vectors only.
  std::vector<FunctionToCompile> legal;
  for (const FunctionToCompile& fc : functions) {
    legal.push_back(fc);
    if (fc.lowered && fc.lowered->body)
      legal.back().lowered = with_body(
          fc.lowered, split_wide_vectors(fc.lowered->body, options.target.vector_bits() / 8));
  }
  // Every entry label exists before any code, so call_kernel may call forward.
  std::deque<Xbyak::Label> entries(legal.size());
  for (size_t i = 0; i < legal.size(); ++i) {
    if (legal[i].name.empty()) continue;
    if (!m.callees.emplace(legal[i].name, Callee{&entries[i], &legal[i].lowered}).second)
      throw Error("x86 codegen: two functions are named '" + legal[i].name + "'");
  }
  try {
    for (size_t i = 0; i < legal.size(); ++i) {
      const FunctionToCompile& fc = legal[i];
      check_symbol(fc.symbol, seen);
      if (!fc.lowered || !fc.lowered->body)
        throw Error("x86 codegen: function " + fc.symbol + " has no body");
      m.stats.kernels.push_back({fc.symbol, 0, {}});
      Xbyak::Label& entry = entries[i];
      code.align(16);
      size_t start = code.getSize();
      FunctionEmitter fe(m, &fc.lowered, fc.symbol);
      fe.emit_entry(entry);
      spills += fe.regs().stats();
      out.symbols.push_back({fc.symbol, start, code.getSize() - start, true});
      code.align(16);
      start = code.getSize();
      FunctionEmitter::emit_packed(m, fc.lowered, entry);
      out.symbols.push_back({fc.symbol + "_packed", start, code.getSize() - start, true});
      // Outlined bodies do not nest (a parallel loop inside one runs serially).
      for (size_t j = 0; j < m.jobs.size(); ++j) {
        code.align(16);
        start = code.getSize();
        ParallelJob job = m.jobs[j];
        FunctionEmitter body(m, &fc.lowered, job.symbol);
        body.emit_parallel_body(job);
        spills += body.regs().stats();
        out.symbols.push_back({job.symbol, start, code.getSize() - start, false});
      }
      m.jobs.clear();
    }
    pool.emit(code);
    code.ready();
  } catch (const Xbyak::Error& e) {
    throw Error(std::string("x86 codegen: xbyak: ") + e.what());
  }
  out.text.assign(code.getCode(), code.getCode() + code.getSize());
  out.external_calls = m.external_calls;
  out.rodata = std::move(m.rodata);
  out.data_references = std::move(m.data_references);
  out.text_alignment = 64;
  if (stats) {
    *stats = m.stats;
    stats->spills = spills.spills;
    stats->reloads = spills.reloads;
    stats->branch_saves = spills.branch_saves;
  }
  return out;
}

}  // namespace tirc
