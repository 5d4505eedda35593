// Constants that generated code reads rip-relative: placed after the code of
// one CodeGenerator, so the bytes stay position independent.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <xbyak/xbyak.h>

namespace tirc {

class ConstantPool {
 public:
  // A 64-byte, 64-aligned splat of a 32-bit pattern: valid as a memory operand
  // of any vector width (xmm/ymm/zmm loads, or a scalar 32-bit load).
  Xbyak::Address splat32(uint32_t bits);
  Xbyak::Address splat_f32(float v);
  // A 64-byte, 64-aligned splat of a 64-bit pattern.
  Xbyak::Address splat64(uint64_t bits);
  // Arbitrary bytes (at most 64-aligned), e.g. a lane-index table for tail masks.
  Xbyak::Address table(std::vector<uint8_t> bytes, int alignment = 64);

  // Emits every constant requested so far at the current position of `code`
  // (call once, after the last instruction that uses the pool).
  void emit(Xbyak::CodeGenerator& code);

 private:
  Xbyak::Address add(std::vector<uint8_t> bytes, int alignment);

  struct Entry {
    std::vector<uint8_t> bytes;
    int alignment;
    Xbyak::Label* label;
  };
  std::deque<Xbyak::Label> labels_;  // stable addresses: operands point at them
  std::vector<Entry> entries_;
  std::map<std::string, size_t> index_;  // bytes + alignment -> entry
};

}  // namespace tirc
