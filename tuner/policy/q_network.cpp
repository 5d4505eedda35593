#include "tuner/policy/q_network.h"

#include <dlfcn.h>
#include <unistd.h>

#include <array>
#include <filesystem>

#include "ir/error.h"
#include "tuner/observation.h"
#include "tuner/policy_search.h"

namespace tirc {

namespace {

using MakeFn = QNetwork* (*)(const QNetworkShape*, uint64_t, int);
using LoadFn = QNetwork* (*)(const char*, PolicyInfo*);

struct TorchModule {
  MakeFn make = nullptr;
  LoadFn load = nullptr;
  std::string error;  // why it could not be loaded
};

// Where libtirc_torch.so is: beside an installed tirc (<prefix>/lib/tirc/),
// else where this build made it.
std::vector<std::string> module_candidates() {
  std::vector<std::string> out;
  std::array<char, 4096> buf{};
  const ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  if (n > 0) {
    const std::filesystem::path exe(std::string(buf.data(), static_cast<size_t>(n)));
    const std::filesystem::path installed =
        exe.parent_path() / ".." / "lib" / "tirc" / "libtirc_torch.so";
    if (std::filesystem::exists(installed)) out.push_back(installed.lexically_normal().string());
  }
  out.push_back(TIRC_TORCH_MODULE);
  return out;
}

// Loaded once, on first use, and never unloaded (its networks may live until
// exit); the result does not change afterwards.
const TorchModule& torch_module() {
  static const TorchModule module = [] {
    TorchModule m;
    for (const std::string& path : module_candidates()) {
      void* h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!h) {
        const char* why = ::dlerror();
        m.error += (m.error.empty() ? "" : "; ") + std::string(why ? why : path);
        continue;
      }
      m.make = reinterpret_cast<MakeFn>(::dlsym(h, "tirc_torch_make_q_network"));
      m.load = reinterpret_cast<LoadFn>(::dlsym(h, "tirc_torch_load_q_network"));
      if (m.make && m.load) {
        m.error.clear();
        return m;
      }
      m.error += "; " + path + " lacks the tirc_torch entry points";
    }
    return m;
  }();
  if (!module.make)
    throw Error("the loop policy needs LibTorch, whose tirc module did not load: " + module.error);
  return module;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ",") + s;
  return out;
}

}  // namespace

std::unique_ptr<QNetwork> make_q_network(const QNetworkShape& shape, uint64_t seed,
                                         int episode_length) {
  return std::unique_ptr<QNetwork>(torch_module().make(&shape, seed, episode_length));
}

std::unique_ptr<QNetwork> load_q_network(const std::string& path, PolicyInfo* info) {
  if (!std::filesystem::is_regular_file(path))
    throw Error("the policy file '" + path + "' does not exist");
  PolicyInfo pi;
  std::unique_ptr<QNetwork> net(torch_module().load(path.c_str(), &pi));
  const std::vector<std::string> ours = policy_output_names();
  if (pi.actions != ours)
    throw Error("the policy '" + path + "' was trained for the actions " + join(pi.actions) +
                "; this tirc has " + join(ours));
  if (net->shape().inputs != observation_size())
    throw Error("the policy '" + path + "' reads observations of " +
                std::to_string(net->shape().inputs) + " numbers; this tirc's have " +
                std::to_string(observation_size()));
  if (info) *info = std::move(pi);
  return net;
}

QNetworkShape loop_policy_shape(std::vector<int> hidden) {
  return QNetworkShape{observation_size(), static_cast<int>(policy_output_names().size()),
                       std::move(hidden)};
}

}  // namespace tirc
