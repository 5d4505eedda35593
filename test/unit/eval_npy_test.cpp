#include <unistd.h>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "ir/ndarray.h"

using namespace tirc;

namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("tirc_eval_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string npy_bytes(const std::string& dict, size_t data_bytes) {
  std::string header = dict;
  while ((10 + header.size() + 1) % 64) header += ' ';
  header += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(header.size() & 0xFF);
  out += static_cast<char>(header.size() >> 8);
  return out + header + std::string(data_bytes, '\x01');
}

}  // namespace

TEST_CASE("npy files round-trip every supported element type", "[eval]") {
  for (DataType t : {DataType::float32(), DataType::float64(), DataType::float16(),
                     DataType::int8(), DataType::int16(), DataType::int32(), DataType::int64(),
                     DataType::uint8(), DataType::boolean()}) {
    CAPTURE(t.str());
    NDArray a(t, {2, 3});
    for (int64_t i = 0; i < 6; ++i) a.set_int(i, t.is_bool() ? i % 2 : i * 3 - 7);
    std::string path = temp_path("rt.npy");
    write_npy(path, a);
    NDArray b = read_npy(path);
    CHECK(b.dtype() == t);
    CHECK(b.shape() == std::vector<int64_t>{2, 3});
    CHECK(a.bitwise_equal(b));
    std::remove(path.c_str());
  }
  NDArray scalar(DataType::float32(), {});
  scalar.set_float(0, 2.5);
  NDArray vec(DataType::int32(), {5});
  std::string path = temp_path("shapes.npy");
  write_npy(path, scalar);
  CHECK(read_npy(path).get_float(0) == 2.5);
  write_npy(path, vec);
  CHECK(read_npy(path).shape() == std::vector<int64_t>{5});
  std::remove(path.c_str());
}

TEST_CASE("a hand-written npy header is parsed", "[eval]") {
  std::string path = temp_path("hand.npy");
  write_bytes(path, npy_bytes("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }", 16));
  NDArray a = read_npy(path);
  CHECK(a.dtype() == DataType::int32());
  CHECK(a.get_int(3) == 0x01010101);
  std::remove(path.c_str());
}

TEST_CASE("malformed npy files are errors naming the file", "[eval]") {
  std::string path = temp_path("bad.npy");
  auto expect_error = [&](const std::string& bytes, const std::string& what) {
    write_bytes(path, bytes);
    CHECK_THROWS_WITH(read_npy(path), Catch::Contains(path) && Catch::Contains(what));
  };
  expect_error("not numpy at all", "magic");
  expect_error(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", 15),
               "truncated");
  expect_error(npy_bytes("{'descr': '>f4', 'fortran_order': False, 'shape': (4,), }", 16), ">f4");
  expect_error(npy_bytes("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", 16),
               "fortran_order");
  expect_error(npy_bytes("{'descr': '<f4', 'fortran_order': False}", 16), "shape");
  expect_error(std::string("\x93NUMPY\x01\x00\xff\x00{'descr'", 18), "truncated");
  CHECK_THROWS_WITH(read_npy(temp_path("missing.npy")), Catch::Contains("missing.npy"));
  std::remove(path.c_str());
}
