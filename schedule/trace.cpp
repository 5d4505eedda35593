// Instruction lookups and the script form of a trace.
#include "schedule/trace.h"

#include "schedule/trace_spec.h"

namespace tirc {

const TraceValue* Instruction::keyword(std::string_view name) const {
  for (const auto& [key, value] : keywords)
    if (key == name) return &value;
  return nullptr;
}

namespace trace_detail {

std::string print_instruction(const Instruction& inst) {
  std::string out;
  for (size_t i = 0; i < inst.outputs.size(); ++i) {
    out += i ? ", " : "";
    out += inst.outputs[i].name();
  }
  if (inst.list_output && inst.outputs.size() == 1) out += ",";
  if (!out.empty()) out += " = ";
  out += "sch." + inst.kind + "(";
  bool first = true;
  for (const TraceValue& v : inst.positional) {
    out += first ? "" : ", ";
    out += print_value(v);
    first = false;
  }
  for (const auto& [key, value] : inst.keywords) {
    out += first ? "" : ", ";
    out += key + "=" + print_value(value);
    first = false;
  }
  return out + ")";
}

}  // namespace trace_detail

std::string Trace::print() const {
  std::string out;
  for (const Instruction& inst : insts_) out += trace_detail::print_instruction(inst) + "\n";
  return out;
}

}  // namespace tirc
