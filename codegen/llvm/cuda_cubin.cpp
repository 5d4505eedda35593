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

std::string fatbinary_path() {
#ifdef TIRC_FATBINARY
  return TIRC_FATBINARY;
#else
  return "";
#endif
}

namespace {

// Runs `args` (the tool first) with its output in `log`; "" or why it failed
// (the log's first line).
std::string run_tool(std::vector<std::string> args, const std::filesystem::path& log) {
  const std::string tool = std::filesystem::path(args.front()).filename().string();
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return "cannot run " + args.front();
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return "lost " + args.front();
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  std::string message = slurp(log);
  if (const size_t nl = message.find('\n'); nl != std::string::npos) message.resize(nl);
  return tool + " failed" + (message.empty() ? std::string() : ": " + message);
}

// ptx assembled into dir/kernels.cubin; "" or why not.
std::string ptxas_into(const std::filesystem::path& dir, const std::string& ptx,
                       const std::string& sm) {
  const std::string ptxas = ptxas_path();
  if (ptxas.empty()) return "tirc was built without the CUDA toolkit's ptxas";
  if (access(ptxas.c_str(), X_OK) != 0) return ptxas + " is not there any more";
  if (dir.empty()) return "no temporary directory for ptxas";
  {
    std::ofstream f(dir / "kernels.ptx", std::ios::binary);
    f << ptx;
    if (!f) return "cannot write " + (dir / "kernels.ptx").string();
  }
  if (std::string failed = run_tool({ptxas, "-arch=" + sm, "-O3", (dir / "kernels.ptx").string(),
                                     "-o", (dir / "kernels.cubin").string()},
                                    dir / "ptxas.log");
      !failed.empty())
    return failed;
  if (slurp(dir / "kernels.cubin").empty()) return "ptxas wrote no cubin";
  return "";
}

}  // namespace

std::optional<std::string> assemble_cubin(const std::string& ptx, const std::string& sm,
                                          std::string* why) {
  TempDir dir;
  if (std::string failed = ptxas_into(dir.path(), ptx, sm); !failed.empty()) {
    if (why) *why = failed;
    return std::nullopt;
  }
  return slurp(dir.path() / "kernels.cubin");
}

std::optional<std::string> cuda_fat_binary(const std::string& ptx, const std::string& sm,
                                           std::string* why) {
  auto fail = [&](const std::string& reason) -> std::optional<std::string> {
    if (why) *why = reason;
    return std::nullopt;
  };
  const std::string fatbinary = fatbinary_path();
  if (fatbinary.empty()) return fail("tirc was built without the CUDA toolkit's fatbinary");
  if (access(fatbinary.c_str(), X_OK) != 0) return fail(fatbinary + " is not there any more");
  TempDir dir;
  if (std::string failed = ptxas_into(dir.path(), ptx, sm); !failed.empty()) return fail(failed);
  const std::string arch = sm.substr(sm.find('_') + 1);  // "sm_90" -> "90"
  const std::filesystem::path out = dir.path() / "kernels.fatbin";
  if (std::string failed = run_tool(
          {fatbinary, "-64", "--create=" + out.string(),
           "--image3=kind=elf,sm=" + arch + ",file=" + (dir.path() / "kernels.cubin").string(),
           "--image3=kind=ptx,sm=" + arch + ",file=" + (dir.path() / "kernels.ptx").string()},
          dir.path() / "fatbinary.log");
      !failed.empty())
    return fail(failed);
  std::string image = slurp(out);
  if (image.empty()) return fail("fatbinary wrote nothing");
  return image;
}

}  // namespace tirc
