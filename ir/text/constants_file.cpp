// The constants side file: "TIRCCNST", a little-endian u32 version (1), a u64
// count, then per constant a u32 name length, the name, a u64 byte length and
// the array as a .npy image.
#include "ir/text/constants_file.h"

#include <cstring>
#include <fstream>
#include <set>

#include "ir/error.h"

namespace tirc {

namespace {

constexpr char kMagic[8] = {'T', 'I', 'R', 'C', 'C', 'N', 'S', 'T'};
constexpr uint32_t kVersion = 1;

void put(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

class Reader {
 public:
  Reader(std::string_view bytes, const std::string& what) : bytes_(bytes), what_(what) {}

  uint64_t get(int n, const char* field) {
    need(static_cast<size_t>(n), field);
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= uint64_t{static_cast<uint8_t>(bytes_[pos_ + i])} << (8 * i);
    pos_ += static_cast<size_t>(n);
    return v;
  }
  std::string_view take(uint64_t n, const char* field) {
    need(n, field);
    std::string_view s = bytes_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  bool at_end() const { return pos_ == bytes_.size(); }
  [[noreturn]] void fail(const std::string& message) const {
    throw Error(what_ + ": corrupt constants file: " + message + " (at byte " +
                std::to_string(pos_) + ")");
  }

 private:
  void need(uint64_t n, const char* field) const {
    if (bytes_.size() - pos_ < n)
      throw Error(what_ + ": truncated constants file: " + field + " needs " + std::to_string(n) +
                  " bytes at byte " + std::to_string(pos_) + ", " +
                  std::to_string(bytes_.size() - pos_) + " left");
  }
  std::string_view bytes_;
  const std::string& what_;
  size_t pos_ = 0;
};

}  // namespace

std::string constants_file_bytes(const IRModule& m) {
  std::string out(kMagic, sizeof kMagic);
  put(out, kVersion, 4);
  put(out, m.constants().size(), 8);
  for (const auto& [name, value] : m.constants()) {
    if (!value) throw Error("constant '" + name + "' has no value");
    put(out, name.size(), 4);
    out += name;
    std::string npy = to_npy(*value, "constant '" + name + "'");
    put(out, npy.size(), 8);
    out += npy;
  }
  return out;
}

std::vector<std::pair<std::string, std::shared_ptr<const NDArray>>> parse_constants_file(
    std::string_view bytes, const std::string& what) {
  Reader r(bytes, what);
  std::string_view magic = r.take(sizeof kMagic, "the magic");
  if (std::memcmp(magic.data(), kMagic, sizeof kMagic) != 0)
    throw Error(what + ": not a tirc constants file (bad magic)");
  uint64_t version = r.get(4, "the version");
  if (version != kVersion)
    throw Error(what + ": unsupported constants file version " + std::to_string(version));
  uint64_t count = r.get(8, "the count");
  std::vector<std::pair<std::string, std::shared_ptr<const NDArray>>> out;
  std::set<std::string, std::less<>> seen;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t name_len = r.get(4, "a constant's name length");
    std::string name(r.take(name_len, "a constant's name"));
    if (name.empty()) r.fail("constant " + std::to_string(i) + " has an empty name");
    if (!seen.insert(name).second) r.fail("constant '" + name + "' appears twice");
    uint64_t len = r.get(8, "a constant's size");
    std::string_view npy = r.take(len, "a constant's data");
    out.emplace_back(
        name, std::make_shared<const NDArray>(parse_npy(npy, what + ": constant '" + name + "'")));
  }
  if (!r.at_end()) r.fail("bytes after the last constant");
  return out;
}

void write_constants_file(const std::string& path, const IRModule& m) {
  std::string bytes = constants_file_bytes(m);
  std::ofstream out(path, std::ios::binary);
  if (!out) throw Error(path + ": cannot open for writing");
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw Error(path + ": write failed");
}

std::vector<std::pair<std::string, std::shared_ptr<const NDArray>>> read_constants_file(
    const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open the constants file");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parse_constants_file(bytes, path);
}

}  // namespace tirc
