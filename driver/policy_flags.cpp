#include "driver/policy_flags.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <filesystem>

#include "ir/error.h"
#include "tuner/policy/q_network.h"

namespace tirc::driver {

namespace {

constexpr const char* kShippedFile = "x86-64-avx512-loops.pt";

std::filesystem::path executable_dir() {
  std::array<char, 4096> buf{};
  const ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  if (n <= 0) return {};
  return std::filesystem::path(std::string(buf.data(), static_cast<size_t>(n))).parent_path();
}

}  // namespace

std::string shipped_policy_path() {
  if (const char* path = std::getenv("TIRC_SHIPPED_POLICY")) return path;
  const std::filesystem::path installed =
      executable_dir() / ".." / "share" / "tirc" / "policies" / kShippedFile;
  if (std::filesystem::exists(installed)) return installed.lexically_normal().string();
  return (std::filesystem::path(TIRC_SOURCE_POLICY_DIR) / kShippedFile).string();
}

std::shared_ptr<const LoopPolicy> load_policy(const std::string& spec) {
  if (!spec.empty() && spec != kShippedPolicy) {
    PolicyInfo info;
    std::shared_ptr<const LoopPolicy> p = load_q_network(spec, &info);
    spdlog::debug("policy {}: trained for {} ({} episodes, seed {})", spec, info.target,
                  info.episodes, info.seed);
    return p;
  }
  const std::string path = shipped_policy_path();
  try {
    return load_q_network(path);
  } catch (const Error& e) {
    spdlog::warn("the shipped loop policy cannot be used ({}); the rules schedule instead",
                 e.message());
    return nullptr;
  }
}

}  // namespace tirc::driver
