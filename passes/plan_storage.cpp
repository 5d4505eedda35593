// plan-storage: allocations whose lifetimes do not overlap share storage.
//
// The rule. Take a chain of directly nested Allocates (Allocate(a, Allocate(b,
// ... S))) and the statements s_1..s_n of S's top-level sequence. An
// allocation is live from the first to the last s_i that mentions its
// storage (directly or through a buffer over it). Allocations of the same
// scope whose live ranges are disjoint are assigned, in order of first use,
// to a shared slot whose previous member was last used before this one is
// first used. Each slot becomes one Allocate of the first member's variable,
// with the dtype of its largest member and enough elements for the largest
// member's bytes; every buffer over a member's storage is re-pointed to it.
// An allocation no statement mentions is dropped.
// This is safe because a member's contents are never read after its last
// statement, and a fresh Allocate promises no initial contents either.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "ir/functor.h"
#include "ir/substitute.h"
#include "ir/var_use.h"
#include "passes/passes.h"

namespace tirc {

namespace {

// Points every buffer over one of `to`'s keys at the replacement storage.
class Repointer : public StmtMutator {
 public:
  explicit Repointer(const std::unordered_map<const VarNode*, Var>& to) : to_(to) {}

 protected:
  Expr mutate_var(const Expr& e) override {
    auto it = to_.find(e.as<VarNode>());
    return it == to_.end() ? e : Expr(it->second);
  }
  Buffer mutate_buffer(const Buffer& b) override {
    if (!b) return b;
    auto it = to_.find(b->data.get());
    if (it == to_.end()) return b;
    auto& out = buffers_[b.get()];
    if (!out) {
      auto n = std::make_shared<BufferNode>(*b);
      n->data = it->second;
      out = n;
    }
    return out;
  }

 private:
  const std::unordered_map<const VarNode*, Var>& to_;
  std::unordered_map<const BufferNode*, Buffer> buffers_;
};

class StoragePlanner : public StmtMutator {
 protected:
  Stmt mutate_allocate(const Stmt&, const AllocateNode* n) override {
    std::vector<const AllocateNode*> chain{n};
    while (auto* inner = chain.back()->body.as<AllocateNode>()) chain.push_back(inner);
    Stmt body = mutate(chain.back()->body);

    std::vector<Stmt> stmts;
    if (auto* seq = body.as<SeqStmtNode>())
      stmts = seq->seq;
    else
      stmts = {body};
    std::vector<VarSet> uses;
    for (const Stmt& s : stmts) uses.push_back(vars_and_storage_of(s));

    struct Member {
      const AllocateNode* alloc;
      int first = -1, last = -1;
    };
    std::vector<Member> members;
    for (const AllocateNode* a : chain) {
      Member m{a};
      for (size_t i = 0; i < stmts.size(); ++i)
        if (uses[i].count(a->buffer_var.get())) {
          if (m.first < 0) m.first = static_cast<int>(i);
          m.last = static_cast<int>(i);
        }
      members.push_back(m);
    }
    std::vector<size_t> order(members.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    // By first use, ties in member order. std::sort with the index as tie-break,
    // not std::stable_sort: libstdc++ 12's stable_sort calls the deprecated
    // get_temporary_buffer, an error under clang 19 with -Werror.
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return std::pair(members[a].first, a) < std::pair(members[b].first, b);
    });

    struct Slot {
      std::vector<size_t> members;
      int last = -1;
      std::string scope;
    };
    std::vector<Slot> slots;
    std::vector<size_t> slot_of(members.size());
    const size_t kUnused = static_cast<size_t>(-1);
    for (size_t k : order) {
      const Member& m = members[k];
      if (m.first < 0) {
        slot_of[k] = kUnused;
        continue;
      }
      size_t chosen = slots.size();
      if (as_const_int(m.alloc->extents.at(0)))
        for (size_t s = 0; s < slots.size(); ++s)
          if (slots[s].scope == m.alloc->scope && slots[s].last < m.first &&
              as_const_int(members[slots[s].members[0]].alloc->extents.at(0))) {
            chosen = s;
            break;
          }
      if (chosen == slots.size()) slots.push_back(Slot{{}, -1, m.alloc->scope});
      slots[chosen].members.push_back(k);
      slots[chosen].last = std::max(slots[chosen].last, m.last);
      slot_of[k] = chosen;
    }

    std::unordered_map<const VarNode*, Var> repoint;
    for (const Slot& s : slots)
      for (size_t i = 1; i < s.members.size(); ++i)
        repoint[members[s.members[i]].alloc->buffer_var.get()] =
            members[s.members[0]].alloc->buffer_var;
    if (!repoint.empty()) body = Repointer(repoint).mutate(body);

    // Rebuild the chain, one Allocate per slot, in the original nesting order.
    for (size_t k = chain.size(); k-- > 0;) {
      if (slot_of[k] == kUnused) continue;
      const Slot& s = slots[slot_of[k]];
      if (s.members[0] != k) continue;
      const AllocateNode* rep = chain[k];
      DataType dtype = rep->dtype;
      std::vector<Expr> extents = rep->extents;
      if (s.members.size() > 1) {
        int64_t bytes = 0;
        for (size_t m : s.members) {
          const AllocateNode* a = members[m].alloc;
          int64_t b = *as_const_int(a->extents[0]) * a->dtype.bytes();
          if (b > bytes) {
            bytes = b;
            dtype = a->dtype;
          }
        }
        extents = {make_int((bytes + dtype.bytes() - 1) / dtype.bytes())};
      }
      auto a = std::make_shared<AllocateNode>(rep->buffer_var, dtype, extents, rep->scope, body);
      a->loc = rep->loc;
      body = Stmt(std::move(a));
    }
    return body;
  }
};

}  // namespace

PrimFunc plan_storage(const PrimFunc& f) {
  StoragePlanner planner;
  Stmt body = planner.mutate(f->body);
  return body.same_as(f->body) ? f : with_body(f, body);
}

}  // namespace tirc
