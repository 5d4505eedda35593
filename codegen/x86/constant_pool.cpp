#include "codegen/x86/constant_pool.h"

#include <bit>
#include <cstring>

namespace tirc {

Xbyak::Address ConstantPool::add(std::vector<uint8_t> bytes, int alignment) {
  std::string key(bytes.begin(), bytes.end());
  key.push_back(static_cast<char>(alignment));
  auto it = index_.find(key);
  if (it == index_.end()) {
    labels_.emplace_back();
    entries_.push_back({std::move(bytes), alignment, &labels_.back()});
    it = index_.emplace(std::move(key), entries_.size() - 1).first;
  }
  return Xbyak::util::ptr[Xbyak::util::rip + *entries_[it->second].label];
}

Xbyak::Address ConstantPool::splat32(uint32_t bits) {
  std::vector<uint8_t> bytes(64);
  for (size_t i = 0; i < 64; i += 4) std::memcpy(bytes.data() + i, &bits, 4);
  return add(std::move(bytes), 64);
}

Xbyak::Address ConstantPool::splat_f32(float v) {
  return splat32(std::bit_cast<uint32_t>(v));
}

Xbyak::Address ConstantPool::splat64(uint64_t bits) {
  std::vector<uint8_t> bytes(64);
  for (size_t i = 0; i < 64; i += 8) std::memcpy(bytes.data() + i, &bits, 8);
  return add(std::move(bytes), 64);
}

Xbyak::Address ConstantPool::table(std::vector<uint8_t> bytes, int alignment) {
  return add(std::move(bytes), alignment);
}

void ConstantPool::emit(Xbyak::CodeGenerator& code) {
  for (const auto& e : entries_) {
    code.align(e.alignment);
    code.L(*e.label);
    for (uint8_t b : e.bytes) code.db(b);
  }
}

}  // namespace tirc
