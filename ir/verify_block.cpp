// Block-level checks: reduce variables in output indices, reduction inits, and
// declared T.reads/T.writes against the inferred access regions.
#include <unordered_set>

#include "ir/arith/region.h"
#include "ir/functor.h"
#include "ir/verify_internal.h"

namespace tirc::verify_detail {
namespace {

using BufferSet = std::set<const BufferNode*>;

// Stores and loads of one block's own code: nested blocks are checked on their
// own, so the walk stops at them unless asked to go in.
class AccessWalker : public StmtVisitor {
 public:
  AccessWalker(const BufferSet& excluded, bool into_nested)
      : excluded_(excluded), into_nested_(into_nested) {}
  std::vector<const BufferStoreNode*> stores;
  BufferSet loaded;

 protected:
  void visit_store(const BufferStoreNode* n) override {
    if (!excluded_.count(n->buffer.get())) stores.push_back(n);
    StmtVisitor::visit_store(n);
  }
  void visit_load(const BufferLoadNode* n) override {
    if (!excluded_.count(n->buffer.get())) loaded.insert(n->buffer.get());
    StmtVisitor::visit_load(n);
  }
  void visit_block_realize(const BlockRealizeNode* n) override {
    if (into_nested_) StmtVisitor::visit_block_realize(n);
  }
  void visit_block(const BlockNode* n) override {
    if (into_nested_) StmtVisitor::visit_block(n);
  }

 private:
  const BufferSet& excluded_;
  bool into_nested_;
};

BufferSet allocated_in(const BlockNode& block) {
  BufferSet s;
  for (const Buffer& b : block.alloc_buffers) s.insert(b.get());
  return s;
}

BufferSet writes_of(const Stmt& s, const BufferSet& excluded, bool into_nested) {
  AccessWalker w(excluded, into_nested);
  w.visit(s);
  BufferSet out;
  for (auto* st : w.stores) out.insert(st->buffer.get());
  return out;
}

class VarFinder : public ExprVisitor {
 public:
  explicit VarFinder(const std::unordered_set<const VarNode*>& wanted) : wanted_(wanted) {}
  std::vector<const VarNode*> found;

 protected:
  void visit_var(const VarNode* v) override {
    if (wanted_.count(v)) found.push_back(v);
  }

 private:
  const std::unordered_set<const VarNode*>& wanted_;
};

// True when an earlier block "<name>_init" (or "<base>_init" for a block
// "<base>_update", as decompose_reduction names them) stores to buffer.
bool initialized_elsewhere(const std::string& name, const BufferNode* buffer,
                           const InitBlockWrites& init_blocks) {
  std::vector<std::string> candidates = {name + "_init"};
  // blockize names the outer block of C (or of C_update) C_o (C_update_o).
  const std::string base = name.ends_with("_o") ? name.substr(0, name.size() - 2) : name;
  if (base != name) candidates.push_back(base + "_init");
  if (base.ends_with("_update")) candidates.push_back(base.substr(0, base.size() - 7) + "_init");
  for (const std::string& c : candidates) {
    auto it = init_blocks.find(c);
    if (it != init_blocks.end() && it->second.count(buffer)) return true;
  }
  return false;
}

// a <= b, widening to int64 when the index types differ.
bool prove_le(const Analyzer& az, Expr a, Expr b) {
  if (a.dtype() != b.dtype()) {
    a = make_cast(DataType::int64(), a);
    b = make_cast(DataType::int64(), b);
  }
  try {
    return az.can_prove(a <= b);
  } catch (const Error&) {
    return false;
  }
}

bool covers(const Analyzer& az, const BufferRegion& declared, const BufferRegion& accessed) {
  if (declared.buffer != accessed.buffer || declared.region.size() != accessed.region.size())
    return false;
  for (size_t d = 0; d < declared.region.size(); ++d) {
    const Range& dr = declared.region[d];
    const Range& ar = accessed.region[d];
    if (!dr.min || !dr.extent || !ar.min || !ar.extent) return false;
    if (!prove_le(az, dr.min, ar.min)) return false;
    Expr a_end, d_end;
    try {
      a_end = ar.min + ar.extent;
      d_end = dr.min + dr.extent;
    } catch (const Error&) {
      return false;
    }
    if (!prove_le(az, a_end, d_end)) return false;
  }
  return true;
}

bool any_covers(const Analyzer& az, const std::vector<BufferRegion>& declared,
                const BufferRegion& accessed) {
  for (const BufferRegion& d : declared)
    if (covers(az, d, accessed)) return true;
  return false;
}

}  // namespace

std::set<const BufferNode*> direct_writes(const Stmt& s,
                                          const std::set<const BufferNode*>& excluded) {
  return writes_of(s, excluded, false);
}

void check_reduce_vars_in_outputs(const BlockNode& block, const SourceLoc& loc,
                                  DiagnosticSink& sink) {
  std::unordered_set<const VarNode*> reduce_vars;
  for (const IterVar& iv : block.iter_vars)
    if (iv.kind == IterKind::Reduce && iv.var) reduce_vars.insert(iv.var.get());
  if (reduce_vars.empty()) return;
  BufferSet allocated = allocated_in(block);
  std::set<std::pair<const VarNode*, const BufferNode*>> reported;
  for (const Stmt& part : {block.init, block.body}) {
    AccessWalker w(allocated, false);
    w.visit(part);
    for (const BufferStoreNode* st : w.stores) {
      VarFinder f(reduce_vars);
      for (const Expr& i : st->indices) f.visit(i);
      for (const VarNode* v : f.found) {
        if (!reported.insert({v, st->buffer.get()}).second) continue;
        sink.report(loc, "block " + block.name + ": reduce variable " + v->name +
                             " is used in the index of output " + st->buffer->name);
      }
    }
  }
}

void check_reduction_init(const BlockNode& block, const InitBlockWrites& init_blocks,
                          const SourceLoc& loc, DiagnosticSink& sink) {
  BufferSet allocated = allocated_in(block);
  if (block.init) {
    BufferSet body_writes = writes_of(block.body, allocated, true);
    for (const BufferNode* b : writes_of(block.init, allocated, true))
      if (!body_writes.count(b))
        sink.report(loc, "block " + block.name + ": init writes " + b->name +
                             ", which the block body does not write");
    return;
  }
  bool has_reduce = false;
  for (const IterVar& iv : block.iter_vars) has_reduce |= iv.kind == IterKind::Reduce;
  if (!has_reduce) return;
  AccessWalker w(allocated, false);
  w.visit(block.body);
  BufferSet reported;
  // A match_buffer view (a tensorized block's operand) stands for its source.
  std::map<const BufferNode*, const BufferNode*> source_of;
  for (const MatchBufferRegion& m : block.match_buffers) source_of[m.buffer.get()] = m.source.buffer.get();
  for (const BufferStoreNode* st : w.stores) {
    const BufferNode* b = st->buffer.get();
    if (!w.loaded.count(b)) continue;
    if (auto it = source_of.find(b); it != source_of.end()) b = it->second;
    if (initialized_elsewhere(block.name, b, init_blocks)) continue;
    if (!reported.insert(b).second) continue;
    sink.report(loc, "block " + block.name + " has reduce axes and updates " + b->name +
                         " in place but has no init");
  }
}

void check_region_coverage(const BlockNode& block, const Analyzer& az, const SourceLoc& loc,
                           DiagnosticSink& sink) {
  // The root block conventionally declares nothing: its children do.
  if (block.name == "root" && block.iter_vars.empty()) return;
  AccessRegions actual;
  try {
    actual = infer_access_regions(block);
  } catch (const Error& e) {
    sink.report(loc, "block " + block.name + ": cannot infer its access regions: " + e.message());
    return;
  } catch (const std::exception& e) {  // malformed IR must not crash the verifier
    sink.report(loc, "block " + block.name + ": cannot infer its access regions: " + e.what());
    return;
  }
  BufferSet own = allocated_in(block);
  for (const MatchBufferRegion& m : block.match_buffers) own.insert(m.buffer.get());
  for (const BufferRegion& r : actual.reads) {
    if (!r.buffer || own.count(r.buffer.get()) || r.region.size() != r.buffer->ndim()) continue;
    if (any_covers(az, block.reads, r)) continue;
    // A reduction with an init reads its own output; TVM declares that only
    // in T.writes, and a gap there is reported for the write.
    if (block.init && (any_covers(az, block.writes, r) || any_covers(az, actual.writes, r)))
      continue;
    sink.report(
        loc, "block " + block.name + " reads " + region_str(r) + " but T.reads does not cover it");
  }
  for (const BufferRegion& r : actual.writes) {
    if (!r.buffer || own.count(r.buffer.get()) || r.region.size() != r.buffer->ndim()) continue;
    if (any_covers(az, block.writes, r)) continue;
    sink.report(loc, "block " + block.name + " writes " + region_str(r) +
                         " but T.writes does not cover it");
  }
}

}  // namespace tirc::verify_detail
