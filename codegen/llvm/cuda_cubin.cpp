#include "codegen/llvm/cuda_cubin.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

extern char** environ;

namespace tirc {

namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A directory of its own under the system's temporary directory, removed
// with everything in it when this goes out of scope.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "tirc-ptxas-XXXXXX").string();
    if (mkdtemp(pattern.data())) path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace

std::string ptxas_path() {
#ifdef TIRC_PTXAS
  return TIRC_PTXAS;
#else
  return "";
#endif
}

std::optional<std::string> assemble_cubin(const std::string& ptx, const std::string& sm,
                                          std::string* why) {
  const std::string ptxas = ptxas_path();
  auto fail = [&](const std::string& reason) -> std::optional<std::string> {
    if (why) *why = reason;
    return std::nullopt;
  };
  if (ptxas.empty()) return fail("tirc was built without the CUDA toolkit's ptxas");
  if (access(ptxas.c_str(), X_OK) != 0) return fail(ptxas + " is not there any more");
  TempDir dir;
  if (dir.path().empty()) return fail("no temporary directory for ptxas");
  const std::filesystem::path in = dir.path() / "kernels.ptx", out = dir.path() / "kernels.cubin",
                              log = dir.path() / "ptxas.log";
  {
    std::ofstream f(in, std::ios::binary);
    f << ptx;
    if (!f) return fail("cannot write " + in.string());
  }
  std::vector<std::string> args = {ptxas, "-arch=" + sm, "-O3", in.string(), "-o", out.string()};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, ptxas.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return fail("cannot run " + ptxas);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return fail("lost " + ptxas);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string message = slurp(log);
    if (const size_t nl = message.find('\n'); nl != std::string::npos) message.resize(nl);
    return fail("ptxas failed" + (message.empty() ? std::string() : ": " + message));
  }
  std::string cubin = slurp(out);
  if (cubin.empty()) return fail("ptxas wrote no cubin");
  return cubin;
}

}  // namespace tirc
