// The table of instruction kinds: the families' kinds joined into one list,
// looked up by name.
#include "schedule/trace_kinds.h"

namespace tirc::trace_detail {

namespace {

const std::vector<InstructionKind>& table() {
  static const std::vector<InstructionKind> kinds = [] {
    std::vector<InstructionKind> all;
    for (auto family : {lookup_kinds, loop_kinds, annotation_kinds, compute_location_kinds,
                        buffer_kinds, block_kinds, sampling_kinds}) {
      std::vector<InstructionKind> members = family();
      all.insert(all.end(), members.begin(), members.end());
    }
    return all;
  }();
  return kinds;
}

}  // namespace

const InstructionKind* find_primitive(std::string_view name) {
  if (name == "get_sblock") name = "get_block";  // TVM 0.27's name of it
  for (const InstructionKind& kind : table())
    if (name == kind.name) return &kind;
  return nullptr;
}

std::vector<std::string> primitive_names() {
  std::vector<std::string> out;
  for (const InstructionKind& kind : table()) out.emplace_back(kind.name);
  return out;
}

}  // namespace tirc::trace_detail
