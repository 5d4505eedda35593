// libFuzzer target: any input must parse or fail with tirc::Error; anything
// else escaping (or a crash, hang, sanitizer report) is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ir/text/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    tirc::parse_module(text, "fuzz.tir");
  } catch (const tirc::Error& e) {
    (void)e.render();
  }
  try {
    tirc::parse_expr(text, {}, "fuzz.tir");
  } catch (const tirc::Error& e) {
    (void)e.render();
  }
  return 0;
}
