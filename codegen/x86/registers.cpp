#include "codegen/x86/registers.h"

#include "ir/error.h"

namespace tirc {

int Frame::alloc(int bytes, int align) {
  size_ = (size_ + align - 1) / align * align;
  int offset = size_;
  size_ += bytes;
  return offset;
}

int Frame::alloc_spill(int bytes) {
  auto it = free_spills_.find(bytes);
  if (it != free_spills_.end()) {
    int offset = it->second;
    free_spills_.erase(it);
    return offset;
  }
  return alloc(bytes, bytes < 8 ? 8 : bytes);
}

void Frame::free_spill(int offset, int bytes) {
  free_spills_.emplace(bytes, offset);
}

RegisterPool::RegisterPool(Xbyak::CodeGenerator& code, Frame& frame, std::vector<int> gprs,
                           std::vector<int> vecs)
    : code_(code), frame_(frame), gprs_(std::move(gprs)), vecs_(std::move(vecs)) {
  for (int r : gprs_) gpr_owner_[r] = -1;
  for (int r : vecs_) vec_owner_[r] = -1;
}

Xbyak::Address RegisterPool::at(int offset, int bytes) const {
  using namespace Xbyak::util;
  switch (bytes) {
    case 64:
      return zword[rsp + offset];
    case 32:
      return yword[rsp + offset];
    case 16:
      return xword[rsp + offset];
    default:
      return qword[rsp + offset];
  }
}

Xbyak::Address RegisterPool::slot_of(int t) const {
  return at(temps_[t].slot, temps_[t].bytes);
}

void RegisterPool::store(const Temp& t, int reg, int slot) {
  if (t.cls == RegClass::Gpr) {
    code_.mov(at(slot, 8), Xbyak::Reg64(reg));
  } else if (t.bytes == 64) {
    code_.vmovups(at(slot, 64), Xbyak::Zmm(reg));
  } else if (t.bytes == 32) {
    code_.vmovups(at(slot, 32), Xbyak::Ymm(reg));
  } else {
    code_.vmovups(at(slot, 16), Xbyak::Xmm(reg));
  }
}

void RegisterPool::load(const Temp& t, int reg, int slot) {
  if (t.cls == RegClass::Gpr) {
    code_.mov(Xbyak::Reg64(reg), at(slot, 8));
  } else if (t.bytes == 64) {
    code_.vmovups(Xbyak::Zmm(reg), at(slot, 64));
  } else if (t.bytes == 32) {
    code_.vmovups(Xbyak::Ymm(reg), at(slot, 32));
  } else {
    code_.vmovups(Xbyak::Xmm(reg), at(slot, 16));
  }
}

int RegisterPool::find_free(RegClass cls, bool low_only) {
  const auto& order = cls == RegClass::Gpr ? gprs_ : vecs_;
  const auto& owner = cls == RegClass::Gpr ? gpr_owner_ : vec_owner_;
  for (int r : order)
    if (owner[r] == -1 && (cls == RegClass::Gpr || !low_only || r < 16)) return r;
  return -1;
}

int RegisterPool::evict(RegClass cls, bool low_only) {
  // The oldest temporary is the one an expression tree needs last (its
  // sibling subtrees are evaluated after it).
  for (size_t i = 0; i < temps_.size(); ++i) {
    Temp& t = temps_[i];
    if (!t.live || t.pinned || t.reg < 0 || t.cls != cls) continue;
    if (cls == RegClass::Vec && low_only && t.reg >= 16) continue;
    if (t.slot < 0) {
      t.slot = frame_.alloc_spill(t.cls == RegClass::Gpr ? 8 : t.bytes);
      store(t, t.reg, t.slot);
      ++stats_.spills;
    }
    int r = t.reg;
    t.reg = -1;
    (cls == RegClass::Gpr ? gpr_owner_ : vec_owner_)[r] = -1;
    return r;
  }
  throw Error("x86 codegen: out of registers (every register is pinned)");
}

int RegisterPool::alloc(RegClass cls, int bytes, bool low_only) {
  int r = find_free(cls, low_only);
  if (r < 0) r = evict(cls, low_only);
  Temp t{cls, cls == RegClass::Gpr ? 8 : bytes, low_only};
  t.reg = r;
  t.pinned = true;
  temps_.push_back(t);
  int id = static_cast<int>(temps_.size()) - 1;
  (cls == RegClass::Gpr ? gpr_owner_ : vec_owner_)[r] = id;
  return id;
}

int RegisterPool::alloc_in_memory(RegClass cls, int bytes) {
  Temp t{cls, cls == RegClass::Gpr ? 8 : bytes, true};
  t.slot = frame_.alloc_spill(t.bytes);
  temps_.push_back(t);
  return static_cast<int>(temps_.size()) - 1;
}

int RegisterPool::reg(int id) {
  Temp& t = temps_[id];
  if (t.reg < 0) {
    int r = find_free(t.cls, t.low_only);
    if (r < 0) r = evict(t.cls, t.low_only);
    load(temps_[id], r, temps_[id].slot);
    ++stats_.reloads;
    // Operations write their result over an operand's register, so the
    // memory copy is dropped: a temporary lives in a register or a slot.
    frame_.free_spill(temps_[id].slot, temps_[id].bytes);
    temps_[id].slot = -1;
    temps_[id].reg = r;
    (t.cls == RegClass::Gpr ? gpr_owner_ : vec_owner_)[r] = id;
  }
  temps_[id].pinned = true;
  return temps_[id].reg;
}

void RegisterPool::release(int id) {
  Temp& t = temps_[id];
  if (!t.live) return;
  if (t.reg >= 0) (t.cls == RegClass::Gpr ? gpr_owner_ : vec_owner_)[t.reg] = -1;
  if (t.slot >= 0) frame_.free_spill(t.slot, t.bytes);
  t.live = false;
  t.reg = -1;
  t.slot = -1;
  t.pinned = false;
  // Trailing dead temporaries are dropped so the table stays small.
  while (!temps_.empty() && !temps_.back().live) temps_.pop_back();
}

void RegisterPool::unpin_all() {
  for (Temp& t : temps_) t.pinned = false;
}

void RegisterPool::save_all_for_branch() {
  for (Temp& t : temps_) {
    if (!t.live || t.reg < 0) continue;
    if (t.slot < 0) {
      t.slot = frame_.alloc_spill(t.bytes);
      store(t, t.reg, t.slot);
      ++stats_.branch_saves;
    }
    (t.cls == RegClass::Gpr ? gpr_owner_ : vec_owner_)[t.reg] = -1;
    t.reg = -1;
    t.pinned = false;
  }
}

void RegisterPool::forget_registers() {
  for (Temp& t : temps_) {
    if (!t.live || t.reg < 0) continue;
    if (t.slot < 0) throw Error("x86 codegen: internal: temporary live across a branch join");
    (t.cls == RegClass::Gpr ? gpr_owner_ : vec_owner_)[t.reg] = -1;
    t.reg = -1;
    t.pinned = false;
  }
}

int RegisterPool::take_gpr(int keep) {
  if (free_gpr_count() <= keep) return -1;
  // Prefer callee-saved registers: they survive the runtime calls of parallel loops.
  for (int pref : {3, 12, 13, 14, 15})
    if (gpr_owner_[pref] == -1) {
      gpr_owner_[pref] = -3;
      return pref;
    }
  int r = find_free(RegClass::Gpr, false);
  if (r >= 0) gpr_owner_[r] = -3;
  return r;
}

void RegisterPool::give_back_gpr(int r) {
  gpr_owner_[r] = -1;
}

int RegisterPool::free_gpr_count() const {
  int n = 0;
  for (int r : gprs_) n += gpr_owner_[r] == -1;
  return n;
}

}  // namespace tirc
