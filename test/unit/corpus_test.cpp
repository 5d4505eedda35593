// Every .tir program in examples/ and test/corpus/ must parse, print back to
// exactly its own text, re-parse to a structurally equal module, verify clean
// and run in the interpreter.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "ir/eval/interpreter.h"
#include "ir/structural.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "ir/verify.h"

using namespace tirc;
namespace fs = std::filesystem;

// Every directory listed must exist and hold .tir files: a corpus that moved
// or emptied would otherwise leave nothing to check and pass.
static std::vector<fs::path> corpus_files() {
  std::vector<fs::path> files;
  for (const char* dir : {"examples", "test/corpus"}) {
    fs::path root = fs::path(TIRC_SOURCE_DIR) / dir;
    INFO("corpus directory " << root.string());
    REQUIRE(fs::is_directory(root));
    size_t before = files.size();
    for (const auto& e : fs::recursive_directory_iterator(root))
      if (e.path().extension() == ".tir") files.push_back(e.path());
    REQUIRE(files.size() > before);
  }
  std::sort(files.begin(), files.end());
  return files;
}

static std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST_CASE("the corpus is large enough", "[corpus]") { CHECK(corpus_files().size() >= 50); }

TEST_CASE("corpus programs round-trip, verify and run", "[corpus]") {
  for (const fs::path& path : corpus_files()) {
    DYNAMIC_SECTION(path.filename().string()) {
      std::string text = slurp(path);
      IRModule m;
      try {
        m = parse_module(text, path.string());
      } catch (const Error& e) {
        FAIL(e.render());
      }
      std::string printed = print(m);
      CHECK(printed == text);
      IRModule again = parse_module(printed, path.string());
      CHECK(structural_equal(m, again));
      for (const Diagnostic& d : verify(m)) FAIL_CHECK(d.message);
      for (const auto& [name, f] : m.functions()) {
        bool has_scalar = false;
        for (const Param& p : f->params) has_scalar |= !p.buffer;
        if (has_scalar) continue;
        std::vector<NDArray> inputs = random_inputs(f, 1);
        std::vector<Argument> args;
        for (NDArray& a : inputs) args.push_back(Argument{&a});
        try {
          run_module(m, name, args);  // entries calling kernels need their module
        } catch (const Error& e) {
          FAIL(name + ": " + e.render());
        }
        // The reprinted program computes the same.
        EquivResult r = check_equivalent(m, name, again, name, 1);
        CHECK(r.equal);
      }
    }
  }
}
