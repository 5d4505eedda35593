#include "schedule/buffer_rewrite.h"
#include "schedule/schedule_error.h"

#include "ir/arith/region.h"
#include "ir/functor.h"

namespace tirc {

namespace {

class BufferSwapper : public StmtMutator {
 public:
  BufferSwapper(const Buffer& from, const Buffer& to) : from_(from), to_(to) {}

 protected:
  Buffer mutate_buffer(const Buffer& b) override { return b == from_ ? to_ : b; }

 private:
  Buffer from_, to_;
};

class AllocFinder : public StmtVisitor {
 public:
  explicit AllocFinder(const Buffer& buf) : buf_(buf) {}
  bool found = false;

 protected:
  void visit_block(const BlockNode* n) override {
    for (const Buffer& a : n->alloc_buffers) found |= a == buf_;
    StmtVisitor::visit_block(n);
  }

 private:
  Buffer buf_;
};

bool region_has(const std::vector<BufferRegion>& rs, const Buffer& buf) {
  for (const BufferRegion& r : rs)
    if (r.buffer == buf) return true;
  return false;
}

std::vector<BufferRegion> refreshed(const std::vector<BufferRegion>& old,
                                    const std::vector<BufferRegion>& inferred, const Buffer& buf) {
  const BufferRegion* fresh = nullptr;
  for (const BufferRegion& r : inferred)
    if (r.buffer == buf) fresh = &r;
  std::vector<BufferRegion> out;
  bool emitted = false;
  for (const BufferRegion& r : old) {
    if (r.buffer != buf) {
      out.push_back(r);
    } else if (!emitted && fresh) {
      out.push_back(*fresh);
      emitted = true;
    }
  }
  if (!emitted && fresh) out.push_back(*fresh);
  return out;
}

}  // namespace

std::vector<Stmt> top_statements(const BlockNode& scope) {
  if (auto* seq = scope.body.as<SeqStmtNode>()) return seq->seq;
  return {scope.body};
}

std::optional<size_t> top_index_of(const std::vector<Stmt>& top, const BlockRealizeNode* r) {
  for (size_t i = 0; i < top.size(); ++i) {
    if (top[i].get() == r) return i;
    for (const BlockRealizeNode* b : collect_blocks(top[i]))
      if (b == r) return i;
  }
  return std::nullopt;
}

BlockInScope locate_block(const Stmt& body, const std::string& name, const char* primitive) {
  BlockInScope out;
  out.path = *find_block(body, name);
  out.realize = out.path.node().as<BlockRealizeNode>();
  out.scope = enclosing_block(out.path);
  if (!out.scope) throw ScheduleError(primitive, "block " + name + " has no enclosing scope block");
  out.top = top_statements(*out.scope->block);
  out.top_index = top_index_of(out.top, out.realize).value_or(0);
  return out;
}

bool reads_buffer(const BlockNode& b, const Buffer& buf) {
  return region_has(b.reads, buf);
}
bool writes_buffer(const BlockNode& b, const Buffer& buf) {
  return region_has(b.writes, buf);
}

Buffer block_buffer(const BlockNode& blk, BufferIndex index, const char* primitive) {
  const auto& list = index.is_write ? blk.writes : blk.reads;
  if (index.index < 0 || static_cast<size_t>(index.index) >= list.size())
    throw ScheduleError(primitive, "block " + blk.name + " has " + std::to_string(list.size()) +
                                       (index.is_write ? " write" : " read") + " buffers, index " +
                                       std::to_string(index.index) + " is out of range");
  return list[static_cast<size_t>(index.index)].buffer;
}

bool is_allocated_buffer(const PrimFunc& f, const Buffer& buf) {
  AllocFinder finder(buf);
  finder.visit(f->body);
  return finder.found;
}

Stmt replace_buffer(const Stmt& s, const Buffer& from, const Buffer& to) {
  BufferSwapper swapper(from, to);
  return swapper.mutate(s);
}

Stmt make_copy_stage(const std::string& name, const std::vector<Expr>& mins,
                     const std::vector<Expr>& extents,
                     const std::function<Stmt(const std::vector<Var>&)>& body) {
  std::vector<Var> loop_vars, iter_vars;
  auto block = std::make_shared<BlockNode>();
  block->name = name;
  std::vector<Expr> bindings;
  for (size_t d = 0; d < extents.size(); ++d) {
    DataType t = extents[d].dtype();
    // Appended rather than `"v" + to_string(d)`: GCC 12 warns falsely (-Wrestrict).
    std::string index = std::to_string(d);
    loop_vars.push_back(make_var(std::string("ax").append(index), t));
    iter_vars.push_back(make_var(std::string("v").append(index), t));
    block->iter_vars.push_back(
        {iter_vars.back(), Range::from_min_extent(mins[d], extents[d]), IterKind::DataPar, ""});
    // The loops run from 0; a domain that starts elsewhere is offset in the binding.
    bindings.push_back(is_const_int(mins[d], 0) ? Expr(loop_vars.back())
                                                : mins[d] + Expr(loop_vars.back()));
  }
  block->body = body(iter_vars);
  AccessRegions regions = infer_access_regions(*block);
  block->reads = std::move(regions.reads);
  block->writes = std::move(regions.writes);
  Stmt s = make_block_realize(std::move(bindings), make_bool(true), std::move(block));
  for (size_t d = extents.size(); d-- > 0;)
    s = make_for(loop_vars[d], make_int(0, extents[d].dtype()), extents[d], ForKind::Serial, s);
  return s;
}

Block insert_stage(const BlockNode& scope, size_t pos, const Stmt& stage, const Buffer& alloc) {
  std::vector<Stmt> top = top_statements(scope);
  top.insert(top.begin() + static_cast<std::ptrdiff_t>(pos), stage);
  auto n = std::make_shared<BlockNode>(scope);
  n->body = make_seq(std::move(top));
  if (alloc) n->alloc_buffers.push_back(alloc);
  return n;
}

std::optional<int64_t> eval_index(const Expr& e, const std::vector<const VarNode*>& vars,
                                  const std::vector<int64_t>& values) {
  if (!e || !e.dtype().is_integer()) return std::nullopt;
  if (auto v = as_const_int(e)) return v;
  if (auto* var = e.as<VarNode>()) {
    for (size_t i = 0; i < vars.size(); ++i)
      if (vars[i] == var) return values[i];
    return std::nullopt;
  }
  auto* bin = e.as<BinaryNode>();
  if (!bin) return std::nullopt;
  auto a = eval_index(bin->a, vars, values);
  auto b = eval_index(bin->b, vars, values);
  if (!a || !b) return std::nullopt;
  auto floor_div = [](int64_t x, int64_t y) {
    return x / y - ((x % y != 0) && ((x < 0) != (y < 0)));
  };
  switch (e.kind()) {
    case ExprKind::Add:
      return *a + *b;
    case ExprKind::Sub:
      return *a - *b;
    case ExprKind::Mul:
      return *a * *b;
    case ExprKind::Min:
      return std::min(*a, *b);
    case ExprKind::Max:
      return std::max(*a, *b);
    case ExprKind::Div:
      if (*b == 0) return std::nullopt;
      return *a / *b;
    case ExprKind::Mod:
      if (*b == 0) return std::nullopt;
      return *a % *b;
    case ExprKind::FloorDiv:
      if (*b == 0) return std::nullopt;
      return floor_div(*a, *b);
    case ExprKind::FloorMod:
      if (*b == 0) return std::nullopt;
      return *a - floor_div(*a, *b) * *b;
    default:
      return std::nullopt;
  }
}

bool for_each_point(const std::vector<int64_t>& extents,
                    const std::function<bool(const std::vector<int64_t>&)>& visit) {
  for (int64_t e : extents)
    if (e <= 0) return true;
  std::vector<int64_t> p(extents.size(), 0);
  while (true) {
    if (!visit(p)) return false;
    size_t d = extents.size();
    while (d > 0) {
      --d;
      if (++p[d] < extents[d]) break;
      p[d] = 0;
      if (d == 0) return true;
    }
    if (extents.empty()) return true;
  }
}

Block refresh_regions(const Block& b, const Buffer& buf) {
  AccessRegions inferred = infer_access_regions(*b);
  return with_reads_writes(*b, refreshed(b->reads, inferred.reads, buf),
                           refreshed(b->writes, inferred.writes, buf));
}

}  // namespace tirc
