// Element types of expressions and buffers, with vector lanes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tirc {

class DataType {
 public:
  enum class Code : uint8_t { Int, UInt, Float, BFloat, Bool, Handle, Void };

  constexpr DataType() = default;
  constexpr DataType(Code code, int bits, int lanes = 1) : code_(code), bits_(bits), lanes_(lanes) {}

  static constexpr DataType int8() { return {Code::Int, 8}; }
  static constexpr DataType int16() { return {Code::Int, 16}; }
  static constexpr DataType int32() { return {Code::Int, 32}; }
  static constexpr DataType int64() { return {Code::Int, 64}; }
  static constexpr DataType uint8() { return {Code::UInt, 8}; }
  static constexpr DataType float16() { return {Code::Float, 16}; }
  static constexpr DataType float32() { return {Code::Float, 32}; }
  static constexpr DataType float64() { return {Code::Float, 64}; }
  static constexpr DataType bfloat16() { return {Code::BFloat, 16}; }
  static constexpr DataType boolean() { return {Code::Bool, 1}; }
  static constexpr DataType handle() { return {Code::Handle, 64}; }
  static constexpr DataType void_type() { return {Code::Void, 0}; }

  constexpr Code code() const { return code_; }
  constexpr int bits() const { return bits_; }
  constexpr int lanes() const { return lanes_; }
  constexpr int bytes() const { return code_ == Code::Bool ? 1 : (bits_ + 7) / 8; }

  constexpr bool is_int() const { return code_ == Code::Int; }
  constexpr bool is_uint() const { return code_ == Code::UInt; }
  // Signed or unsigned integer (not bool).
  constexpr bool is_integer() const { return code_ == Code::Int || code_ == Code::UInt; }
  constexpr bool is_float() const { return code_ == Code::Float || code_ == Code::BFloat; }
  constexpr bool is_bool() const { return code_ == Code::Bool; }
  constexpr bool is_handle() const { return code_ == Code::Handle; }
  constexpr bool is_void() const { return code_ == Code::Void; }
  constexpr bool is_scalar() const { return lanes_ == 1; }
  constexpr bool is_vector() const { return lanes_ > 1; }

  constexpr DataType element_of() const { return {code_, bits_, 1}; }
  constexpr DataType with_lanes(int lanes) const { return {code_, bits_, lanes}; }

  // "float32", "int64", "bool", "float32x8", "handle".
  std::string str() const;
  // Inverse of str(); nullopt for an unknown name.
  static std::optional<DataType> parse(std::string_view name);

  friend constexpr bool operator==(DataType a, DataType b) = default;

 private:
  Code code_ = Code::Void;
  uint8_t bits_ = 0;
  uint16_t lanes_ = 1;
};

}  // namespace tirc
