// Runs a libFuzzer target's LLVMFuzzerTestOneInput over every file of a corpus
// directory, so the normal test build (any compiler, no libFuzzer) checks that
// the seeds and the saved crash reproducers still pass. A missing or empty
// directory fails: a corpus that silently vanished would make the test vacuous.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " CORPUS_DIR\n";
    return 2;
  }
  namespace fs = std::filesystem;
  const fs::path dir = argv[1];
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    std::cerr << "error: corpus directory " << dir << " is missing\n";
    return 1;
  }
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.is_regular_file()) files.push_back(entry.path());
  if (ec) {
    std::cerr << "error: cannot list " << dir << ": " << ec.message() << "\n";
    return 1;
  }
  if (files.empty()) {
    std::cerr << "error: corpus directory " << dir << " has no files\n";
    return 1;
  }
  std::sort(files.begin(), files.end());  // a stable order for reproducing failures
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) {
      std::cerr << "error: cannot read " << file << "\n";
      return 1;
    }
    std::cout << file.filename().string() << "\n" << std::flush;  // names the input on a crash
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  std::cout << files.size() << " inputs ran\n";
  return 0;
}
