#include "codegen/llvm/disassemble.h"

#include <llvm/MC/MCAsmInfo.h>
#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCDisassembler/MCDisassembler.h>
#include <llvm/MC/MCInst.h>
#include <llvm/MC/MCInstPrinter.h>
#include <llvm/MC/MCInstrInfo.h>
#include <llvm/MC/MCRegisterInfo.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/MCTargetOptions.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Triple.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>

#include "ir/error.h"

namespace tirc {
namespace {

constexpr const char* kTriple = "x86_64-unknown-linux-gnu";

// LLVM's target registry is process-wide; registering X86 once is all we need
// (no other target, no code generator).
void register_x86_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86Disassembler();
  });
}

// The MC objects one listing needs, owned together.
struct X86Decoder {
  std::unique_ptr<llvm::MCRegisterInfo> registers;
  std::unique_ptr<llvm::MCAsmInfo> asm_info;
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget;
  std::unique_ptr<llvm::MCInstrInfo> instructions;
  std::unique_ptr<llvm::MCContext> context;
  std::unique_ptr<llvm::MCDisassembler> disassembler;
  std::unique_ptr<llvm::MCInstPrinter> printer;

  explicit X86Decoder(bool intel_syntax) {
    register_x86_once();
    std::string error;
    const llvm::Target* target = llvm::TargetRegistry::lookupTarget(kTriple, error);
    if (!target) throw Error("disassembler: no LLVM X86 target: " + error);
    const llvm::Triple triple(kTriple);
    llvm::MCTargetOptions options;
    registers.reset(target->createMCRegInfo(kTriple));
    if (registers) asm_info.reset(target->createMCAsmInfo(*registers, kTriple, options));
    // A CPU with every extension the generator may use, so AVX-512 decodes.
    subtarget.reset(target->createMCSubtargetInfo(kTriple, "sapphirerapids", ""));
    instructions.reset(target->createMCInstrInfo());
    if (!registers || !asm_info || !subtarget || !instructions)
      throw Error("disassembler: LLVM could not describe x86-64");
    context =
        std::make_unique<llvm::MCContext>(triple, asm_info.get(), registers.get(), subtarget.get());
    disassembler.reset(target->createMCDisassembler(*subtarget, *context));
    printer.reset(target->createMCInstPrinter(triple, intel_syntax ? 1 : 0, *asm_info,
                                              *instructions, *registers));
    if (!disassembler || !printer) throw Error("disassembler: LLVM has no x86-64 disassembler");
    printer->setPrintImmHex(true);
    printer->setPrintBranchImmAsAddress(true);
  }
};

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

class Listing {
 public:
  explicit Listing(size_t text_size) {
    char buf[32];
    width_ = std::max(4, std::snprintf(buf, sizeof buf, "%zx", text_size));
  }
  void label(const std::string& text) { out_ += text + "\n"; }
  void line(uint64_t offset, const std::string& text) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "  %*llx: ", width_, static_cast<unsigned long long>(offset));
    out_ += buf + text + "\n";
  }
  std::string take() { return std::move(out_); }

 private:
  int width_ = 4;
  std::string out_;
};

// LLVM prints "\tmnemonic\toperands"; a listing reads better with the operands
// in one column and no tabs.
std::string tidy(const std::string& printed) {
  // One pass, appending (GCC 12 at -O3 saw a false -Wstringop-overflow in
  // std::string::replace here once the headers came in another order).
  std::string s;
  for (size_t i = 0; i < printed.size(); ++i) {
    if (printed[i] == '\n' && i + 1 < printed.size() && printed[i + 1] == '\t') {
      s += "; ";
      ++i;
    } else {
      s += printed[i];
    }
  }
  const size_t start = s.find_first_not_of(" \t");
  if (start == std::string::npos) return "";
  s = s.substr(start);
  const size_t tab = s.find('\t');
  if (tab == std::string::npos) return s;
  std::string mnemonic = s.substr(0, tab);
  std::string operands = s.substr(s.find_first_not_of('\t', tab));
  std::replace(operands.begin(), operands.end(), '\t', ' ');
  if (mnemonic.size() < 7) mnemonic.resize(7, ' ');
  return mnemonic + " " + operands;
}

int32_t read_rel32(const std::vector<uint8_t>& text, uint64_t at) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | text[at + i];
  return static_cast<int32_t>(v);
}

}  // namespace

std::string disassemble_x86(const MachineCode& code, bool intel_syntax) {
  const std::vector<uint8_t>& text = code.text;
  for (const auto& s : code.symbols)
    if (s.offset > text.size() || s.size > text.size() - s.offset)
      throw Error("disassembler: symbol '" + s.name + "' lies outside the text");

  // Symbols cover the code; what follows the last one is the constant pool.
  uint64_t data_start = code.symbols.empty() ? text.size() : 0;
  std::multimap<uint64_t, const MachineCode::Symbol*> labels;
  for (const auto& s : code.symbols) {
    data_start = std::max(data_start, s.offset + s.size);
    labels.emplace(s.offset, &s);
  }
  std::map<uint64_t, std::string> external;  // displacement offset -> symbol
  for (const auto& c : code.external_calls) external[c.offset] = c.symbol;

  X86Decoder decoder(intel_syntax);
  Listing listing(text.size());
  const llvm::ArrayRef<uint8_t> bytes(text.data(), text.size());

  uint64_t at = 0;
  while (at < data_start) {
    for (auto [it, end] = labels.equal_range(at); it != end; ++it)
      listing.label(it->second->name + (it->second->global ? ":" : ":  # local"));
    // Decode up to the next label, so one symbol's bytes never run into the next.
    auto next = labels.upper_bound(at);
    const uint64_t limit = next == labels.end() ? data_start : std::min(next->first, data_start);

    llvm::MCInst inst;
    uint64_t size = 0;
    std::string comments;
    llvm::raw_string_ostream comment_stream(comments);
    const auto status = decoder.disassembler->getInstruction(
        inst, size, bytes.slice(at, limit - at), at, comment_stream);
    if (status != llvm::MCDisassembler::Success || size == 0 || at + size > limit) {
      listing.line(at, ".byte   " + hex(text[at]));
      at += 1;
      continue;
    }

    std::string printed;
    llvm::raw_string_ostream printed_stream(printed);
    // X86's printer adds branch displacements to the address it is given, and
    // they count from the end of the instruction.
    decoder.printer->printInst(&inst, at + size, "", *decoder.subtarget, printed_stream);
    printed_stream.flush();
    std::string line = tidy(printed);

    const bool call_rel32 = size == 5 && text[at] == 0xE8;
    if (call_rel32 && external.count(at + 1)) {
      line = "call    " + external.at(at + 1);
    } else if (call_rel32) {
      const int64_t target = static_cast<int64_t>(at) + 5 + read_rel32(text, at + 1);
      for (auto [it, end] = labels.equal_range(static_cast<uint64_t>(target)); it != end; ++it)
        line += "  # " + it->second->name;
    }
    // A rip-relative operand: say which text offset it reaches (the constants).
    for (unsigned i = 0; i + 3 < inst.getNumOperands(); ++i) {
      const llvm::MCOperand& base = inst.getOperand(i);
      const llvm::MCOperand& disp = inst.getOperand(i + 3);
      if (base.isReg() && base.getReg() != 0 &&
          llvm::StringRef(decoder.registers->getName(base.getReg())) == "RIP" && disp.isImm()) {
        line += "  # " + hex(at + size + disp.getImm());
        break;
      }
    }
    listing.line(at, line);
    at += size;
  }

  if (data_start < text.size()) {
    listing.label("# constants");
    // Words on 4-byte boundaries, four to a line; loose bytes around them.
    while (at < text.size()) {
      if (at % 4 != 0 || text.size() - at < 4) {
        listing.line(at, ".byte   " + hex(text[at]));
        at += 1;
        continue;
      }
      std::string words;
      const uint64_t line_start = at;
      for (int w = 0; w < 4 && text.size() - at >= 4; ++w, at += 4)
        words += (w ? ", " : "") + hex(static_cast<uint32_t>(read_rel32(text, at)));
      listing.line(line_start, ".long   " + words);
    }
  }
  return listing.take();
}

}  // namespace tirc
