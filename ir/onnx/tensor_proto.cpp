#include "ir/onnx/tensor_proto.h"

#include <bit>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "ir/error.h"
#include "ir/onnx/import.h"

namespace tirc::onnx {

// NDArray bytes are the host's; ONNX raw_data is little-endian.
static_assert(std::endian::native == std::endian::little, "tirc assumes a little-endian host");

namespace fs = std::filesystem;
using ::onnx::TensorProto;
using ::onnx::TensorProto_DataType;

std::optional<DataType> dtype_of_elem_type(int32_t elem_type) {
  using C = DataType::Code;
  switch (elem_type) {
    case TensorProto::FLOAT:
      return DataType::float32();
    case TensorProto::DOUBLE:
      return DataType::float64();
    case TensorProto::FLOAT16:
      return DataType::float16();
    case TensorProto::BFLOAT16:
      return DataType::bfloat16();
    case TensorProto::INT8:
      return DataType::int8();
    case TensorProto::INT16:
      return DataType::int16();
    case TensorProto::INT32:
      return DataType::int32();
    case TensorProto::INT64:
      return DataType::int64();
    case TensorProto::UINT8:
      return DataType::uint8();
    case TensorProto::UINT16:
      return DataType(C::UInt, 16);
    case TensorProto::UINT32:
      return DataType(C::UInt, 32);
    case TensorProto::UINT64:
      return DataType(C::UInt, 64);
    case TensorProto::BOOL:
      return DataType::boolean();
    default:
      return std::nullopt;
  }
}

std::string elem_type_name(int32_t elem_type) {
  if (::onnx::TensorProto_DataType_IsValid(elem_type))
    return TensorProto_DataType_Name(static_cast<TensorProto_DataType>(elem_type));
  // The types opsets 19 to 21 added, which the onnx.proto tirc compiles
  // against (ONNX 1.12) does not have yet.
  static const char* const newer[] = {"FLOAT8E4M3FN",   "FLOAT8E4M3FNUZ", "FLOAT8E5M2",
                                      "FLOAT8E5M2FNUZ", "UINT4",          "INT4"};
  if (elem_type >= 17 && elem_type < 17 + static_cast<int32_t>(std::size(newer)))
    return newer[elem_type - 17];
  return std::to_string(elem_type);
}

int32_t elem_type_of_dtype(DataType dtype) {
  for (int32_t t = TensorProto::FLOAT; t <= TensorProto::BFLOAT16; ++t)
    if (auto d = dtype_of_elem_type(t); d && *d == dtype) return t;
  throw Error("data type " + dtype.str() + " has no ONNX equivalent");
}

namespace {

// Element count of `dims`, refusing negative extents and tensors over
// kMaxTensorBytes before anything is allocated.
int64_t checked_num_elements(const TensorProto& proto, DataType dtype, const std::string& what) {
  int64_t n = 1;
  const int64_t limit = kMaxTensorBytes / dtype.bytes();
  for (int64_t d : proto.dims()) {
    if (d < 0) throw Error(what + ": negative dimension " + std::to_string(d));
    if (d != 0 && n > limit / d)
      throw Error(what + ": tensor is larger than the limit of " + std::to_string(kMaxTensorBytes) +
                  " bytes");
    n *= d;
  }
  if (n > limit)
    throw Error(what + ": tensor is larger than the limit of " + std::to_string(kMaxTensorBytes) +
                " bytes");
  return n;
}

std::string count_text(int64_t n, DataType dtype) {
  return std::to_string(n) + " " + dtype.str() + " element" + (n == 1 ? "" : "s");
}

// The typed repeated field that carries `elem_type` values when raw_data is
// not used (onnx.proto's comments on TensorProto).
const char* typed_field_name(int32_t elem_type) {
  switch (elem_type) {
    case TensorProto::FLOAT:
      return "float_data";
    case TensorProto::DOUBLE:
      return "double_data";
    case TensorProto::INT64:
      return "int64_data";
    case TensorProto::UINT32:
    case TensorProto::UINT64:
      return "uint64_data";
    default:
      return "int32_data";
  }
}

// The typed fields that hold values, with their names, for "field X is not
// valid for type Y" checks.
struct TypedFields {
  const TensorProto& p;
  int size(const char* field) const {
    std::string_view f = field;
    if (f == "float_data") return p.float_data_size();
    if (f == "double_data") return p.double_data_size();
    if (f == "int64_data") return p.int64_data_size();
    if (f == "uint64_data") return p.uint64_data_size();
    return p.int32_data_size();
  }
};

void fill_from_typed_field(const TensorProto& p, NDArray& out) {
  const int64_t n = out.num_elements();
  const int bytes = out.dtype().bytes();
  uint8_t* dst = out.data();
  switch (p.data_type()) {
    case TensorProto::FLOAT:
      std::memcpy(dst, p.float_data().data(), static_cast<size_t>(n) * 4);
      return;
    case TensorProto::DOUBLE:
      std::memcpy(dst, p.double_data().data(), static_cast<size_t>(n) * 8);
      return;
    case TensorProto::INT64:
      std::memcpy(dst, p.int64_data().data(), static_cast<size_t>(n) * 8);
      return;
    case TensorProto::UINT32:
      for (int64_t i = 0; i < n; ++i) {
        auto v = static_cast<uint32_t>(p.uint64_data(i));
        std::memcpy(dst + 4 * i, &v, 4);
      }
      return;
    case TensorProto::UINT64:
      std::memcpy(dst, p.uint64_data().data(), static_cast<size_t>(n) * 8);
      return;
    case TensorProto::BOOL:
      for (int64_t i = 0; i < n; ++i) dst[i] = p.int32_data(i) != 0;
      return;
    default:
      // int8/int16/uint8/uint16/int32 values and float16/bfloat16 bit
      // patterns: the low `bytes` bytes of each int32.
      for (int64_t i = 0; i < n; ++i) {
        auto v = static_cast<uint32_t>(p.int32_data(i));
        std::memcpy(dst + bytes * i, &v, bytes);
      }
      return;
  }
}

uint64_t parse_external_number(const std::string& text, const std::string& key,
                               const std::string& what) {
  if (text.empty() || text.size() > 19 || text.find_first_not_of("0123456789") != std::string::npos)
    throw Error(what + ": external data '" + key + "' is not a number: '" + text + "'");
  return std::stoull(text);
}

// Checks an external data location: relative, no "..", and (after symlinks)
// still inside base_dir.
fs::path external_data_path(const std::string& location, const std::string& base_dir,
                            const std::string& what) {
  if (base_dir.empty())
    throw Error(what + ": external data '" + location +
                "' is not allowed here (the model has no directory)");
  fs::path rel(location);
  if (location.empty()) throw Error(what + ": external data has no location");
  if (rel.is_absolute() || rel.has_root_name() || rel.has_root_directory())
    throw Error(what + ": external data location '" + location +
                "' is absolute; it must be relative to the model's directory");
  for (const auto& part : rel)
    if (part == "..")
      throw Error(what + ": external data location '" + location +
                  "' leaves the model's directory");
  fs::path full = fs::path(base_dir) / rel;
  std::error_code ec;
  fs::path base_real = fs::weakly_canonical(fs::path(base_dir), ec);
  fs::path full_real = ec ? fs::path() : fs::weakly_canonical(full, ec);
  if (!ec) {
    auto [b, f] =
        std::mismatch(base_real.begin(), base_real.end(), full_real.begin(), full_real.end());
    if (b != base_real.end())
      throw Error(what + ": external data location '" + location +
                  "' leaves the model's directory");
  }
  return full;
}

// Where an external tensor's bytes are, checked against the file's size
// before anything is allocated.
struct ExternalSlice {
  fs::path path;
  std::string location;
  uint64_t offset = 0;
};

ExternalSlice locate_external(const TensorProto& p, const std::string& base_dir,
                              const std::string& what, int64_t n, DataType dtype) {
  ExternalSlice slice;
  std::optional<uint64_t> length;
  for (const auto& entry : p.external_data()) {
    if (entry.key() == "location")
      slice.location = entry.value();
    else if (entry.key() == "offset")
      slice.offset = parse_external_number(entry.value(), "offset", what);
    else if (entry.key() == "length")
      length = parse_external_number(entry.value(), "length", what);
  }
  const std::string& location = slice.location;
  slice.path = external_data_path(location, base_dir, what);
  std::error_code ec;
  if (!fs::is_regular_file(slice.path, ec))
    throw Error(what + ": external data file '" + location + "' not found next to the model");
  uint64_t file_size = fs::file_size(slice.path, ec);
  if (ec) throw Error(what + ": cannot read external data file '" + location + "'");
  const auto expected = static_cast<uint64_t>(n * dtype.bytes());
  if (slice.offset > file_size)
    throw Error(what + ": external data offset " + std::to_string(slice.offset) +
                " is past the end of '" + location + "' (" + std::to_string(file_size) + " bytes)");
  if (length && *length > file_size - slice.offset)
    throw Error(what + ": external data length " + std::to_string(*length) + " at offset " +
                std::to_string(slice.offset) + " is past the end of '" + location + "' (" +
                std::to_string(file_size) + " bytes)");
  uint64_t available = length ? *length : file_size - slice.offset;
  if (available != expected)
    throw Error(what + ": external data has " + std::to_string(available) + " bytes, expected " +
                std::to_string(expected) + " (" + count_text(n, dtype) + ")");
  return slice;
}

void read_external(const ExternalSlice& slice, const std::string& what, NDArray& out) {
  std::ifstream in(slice.path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(slice.offset));
  in.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(out.num_bytes()));
  if (!in) throw Error(what + ": cannot read external data file '" + slice.location + "'");
}

}  // namespace

NDArray tensor_from_proto(const TensorProto& p, const std::string& what,
                          const std::string& base_dir) {
  if (p.has_segment()) throw Error(what + ": segmented tensors are not supported");
  auto dtype = dtype_of_elem_type(p.data_type());
  if (!dtype)
    throw Error(what + ": element type " + elem_type_name(p.data_type()) + " is not supported");
  const int64_t n = checked_num_elements(p, *dtype, what);
  const int64_t nbytes = n * dtype->bytes();

  const char* typed = typed_field_name(p.data_type());
  TypedFields fields{p};
  static const char* const all_fields[] = {"float_data", "double_data", "int32_data", "int64_data",
                                           "uint64_data"};
  for (const char* f : all_fields)
    if (fields.size(f) != 0 && std::string_view(f) != typed)
      throw Error(what + ": " + f + " cannot hold " + elem_type_name(p.data_type()) + " values");
  if (p.string_data_size() != 0)
    throw Error(what + ": string_data cannot hold " + elem_type_name(p.data_type()) + " values");

  const bool external = p.data_location() == TensorProto::EXTERNAL;
  const bool raw = p.has_raw_data();
  const int typed_count = fields.size(typed);
  if (int(external) + int(raw) + int(typed_count != 0) > 1)
    throw Error(what + ": data is given in more than one of raw_data, " + typed +
                " and external data");
  if (!external && !raw && typed_count == 0 && n != 0)
    throw Error(what + ": no data (expected " + count_text(n, *dtype) + " in raw_data or " + typed +
                ")");

  // Checked before allocating: the declared shape may be huge while the data is not.
  if (raw && static_cast<int64_t>(p.raw_data().size()) != nbytes)
    throw Error(what + ": raw_data has " + std::to_string(p.raw_data().size()) +
                " bytes, expected " + std::to_string(nbytes) + " (" + count_text(n, *dtype) + ")");
  if (!raw && !external && typed_count != 0 && typed_count != n)
    throw Error(what + ": " + typed + " has " + std::to_string(typed_count) + " values, expected " +
                count_text(n, *dtype));

  std::optional<ExternalSlice> slice;
  if (external) slice = locate_external(p, base_dir, what, n, *dtype);

  NDArray out(*dtype, std::vector<int64_t>(p.dims().begin(), p.dims().end()));
  if (slice)
    read_external(*slice, what, out);
  else if (raw && n != 0) {
    std::memcpy(out.data(), p.raw_data().data(), p.raw_data().size());
    if (dtype->is_bool())
      for (size_t i = 0; i < out.num_bytes(); ++i) out.data()[i] = out.data()[i] != 0;
  } else if (n != 0)
    fill_from_typed_field(p, out);
  return out;
}

void tensor_to_proto(const NDArray& value, const std::string& name, TensorProto* proto) {
  proto->Clear();
  proto->set_name(name);
  proto->set_data_type(elem_type_of_dtype(value.dtype()));
  for (int64_t d : value.shape()) proto->add_dims(d);
  // Always set: an empty raw_data still says where the (zero) elements are.
  proto->set_raw_data(std::string(reinterpret_cast<const char*>(value.data()), value.num_bytes()));
}

std::string read_binary_file(const std::string& path, const char* what) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    throw Error("cannot open " + std::string(what) + " '" + path + "'");
  uint64_t size = fs::file_size(path, ec);
  if (ec) throw Error("cannot read " + std::string(what) + " '" + path + "'");
  if (size > static_cast<uint64_t>(INT_MAX))
    throw Error(std::string(what) + " '" + path +
                "' is larger than 2 GiB (protobuf's limit); store the weights as external data");
  std::string bytes(size, '\0');
  std::ifstream in(path, std::ios::binary);
  in.read(bytes.data(), static_cast<std::streamsize>(size));
  if (!in) throw Error("cannot read " + std::string(what) + " '" + path + "'");
  return bytes;
}

NDArray parse_tensor_proto(std::string_view bytes, const std::string& source, std::string* name) {
  if (bytes.size() > static_cast<size_t>(INT_MAX))
    throw Error(source + ": tensor file is larger than 2 GiB");
  TensorProto proto;
  if (!proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    throw Error(source + ": not a TensorProto, or truncated (protobuf parse failed)");
  std::string what = source + ": tensor '" + proto.name() + "'";
  // Test data never uses external data; a standalone tensor file has no model directory.
  NDArray value = tensor_from_proto(proto, what, "");
  if (name) *name = proto.name();
  return value;
}

NDArray read_tensor_proto_file(const std::string& path, std::string* name) {
  return parse_tensor_proto(read_binary_file(path, "tensor file"), path, name);
}

void write_tensor_proto_file(const std::string& path, const NDArray& value,
                             const std::string& name) {
  TensorProto proto;
  tensor_to_proto(value, name, &proto);
  std::string bytes;
  if (!proto.SerializeToString(&bytes)) throw Error("cannot serialize tensor '" + name + "'");
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw Error("cannot write tensor file '" + path + "'");
}

NDArray read_tensor_file(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  if (ext == ".pb") return read_tensor_proto_file(path);
  if (ext == ".npy") return read_npy(path);
  throw Error("tensor file '" + path + "' must end in .pb (TensorProto) or .npy");
}

}  // namespace tirc::onnx
