#include "tuner/space/cpu_model.h"

#include <cpuinfo.h>

#include <cstdlib>
#include <thread>

#include "ir/error.h"

namespace tirc {

namespace {

std::string bytes_text(int64_t b) {
  if (b % (1024 * 1024) == 0) return std::to_string(b / (1024 * 1024)) + "M";
  if (b % 1024 == 0) return std::to_string(b / 1024) + "K";
  return std::to_string(b);
}

int env_threads() {
  const char* v = std::getenv("TIRC_NUM_THREADS");
  if (!v) return 0;
  char* end = nullptr;
  long n = std::strtol(v, &end, 10);
  return end != v && *end == '\0' && n > 0 && n < 4096 ? static_cast<int>(n) : 0;
}

}  // namespace

std::string CpuModel::describe() const {
  return target.name() + ", " + std::to_string(threads) + " threads, L1d " + bytes_text(l1d) +
         ", L2 " + bytes_text(l2) + ", L3 " + bytes_text(l3);
}

CpuModel host_cpu_model(const Target& target) {
  CpuModel m;
  m.target = target;
  if (cpuinfo_initialize()) {
    if (const cpuinfo_cache* c = cpuinfo_get_l1d_cache(0)) m.l1d = c->size;
    if (const cpuinfo_cache* c = cpuinfo_get_l2_cache(0)) m.l2 = c->size;
    if (const cpuinfo_cache* c = cpuinfo_get_l3_cache(0)) m.l3 = c->size;
    if (const cpuinfo_package* p = cpuinfo_get_package(0)) m.name = p->name;
    m.threads = static_cast<int>(cpuinfo_get_processors_count());
  }
  if (m.threads <= 0)
    m.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (int n = env_threads()) m.threads = n;
  return m;
}

CpuModel parse_cpu_model(std::string_view spec, CpuModel m) {
  size_t at = 0;
  while (at < spec.size()) {
    size_t end = spec.find(',', at);
    if (end == std::string_view::npos) end = spec.size();
    std::string_view field = spec.substr(at, end - at);
    size_t eq = field.find('=');
    std::string key(field.substr(0, eq));
    std::string value(eq == std::string_view::npos ? "" : field.substr(eq + 1));
    char* stop = nullptr;
    long long n = value.empty() ? 0 : std::strtoll(value.c_str(), &stop, 10);
    int64_t scale = 1;
    if (stop && *stop) {
      std::string suffix(stop);
      scale = suffix == "K" || suffix == "k" ? 1024
              : suffix == "M"                ? 1024 * 1024
              : suffix == "G"                ? int64_t{1024} * 1024 * 1024
                                             : 0;
    }
    if (n <= 0 || scale == 0)
      throw Error("cpu model: '" + std::string(field) +
                  "' is not NAME=SIZE (names: l1d, l2, l3, threads; sizes like 32K, 1M)");
    if (key == "l1d")
      m.l1d = n * scale;
    else if (key == "l2")
      m.l2 = n * scale;
    else if (key == "l3")
      m.l3 = n * scale;
    else if (key == "threads" && scale == 1)
      m.threads = static_cast<int>(n);
    else
      throw Error("cpu model: unknown field '" + key + "' (l1d, l2, l3, threads)");
    at = end + 1;
  }
  return m;
}

}  // namespace tirc
