#include "ir/text/surface.h"

#include <array>
#include <utility>

namespace tirc {

namespace {
// TIRx word -> classic word, after `T.`.
constexpr std::array<std::pair<std::string_view, std::string_view>, 3> kWords = {{
    {"sblock", "block"},
    {"sblock_alloc_buffer", "alloc_buffer"},
    {"sblock_attr", "block_attr"},
}};
}  // namespace

std::optional<Surface> parse_surface_name(std::string_view name) {
  if (name == "classic") return Surface::classic;
  if (name == "tirx") return Surface::tirx;
  return std::nullopt;
}

std::optional<std::string_view> classic_word(std::string_view tirx_word) {
  for (const auto& [tirx, classic] : kWords)
    if (tirx == tirx_word) return classic;
  return std::nullopt;
}

std::string_view surface_word(std::string_view classic_word, Surface surface) {
  if (surface == Surface::tirx)
    for (const auto& [tirx, classic] : kWords)
      if (classic == classic_word) return tirx;
  return classic_word;
}

}  // namespace tirc
