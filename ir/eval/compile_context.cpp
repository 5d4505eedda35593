#include "ir/eval/compile.h"

namespace tirc::eval {

const SlotInfo& CompileContext::enter(const Var& v) {
  auto it = slots_.find(v.get());
  if (it == slots_.end()) {
    SlotInfo s;
    const DataType t = v->dtype;
    s.lanes = t.lanes();
    if (t.is_handle()) {
      s.kind = SlotInfo::Kind::Handle;
      s.index = program_.num_handles++;
      s.lanes = 1;
    } else if (t.is_float()) {
      s.kind = SlotInfo::Kind::Float;
      s.index = program_.num_floats;
      program_.num_floats += s.lanes;
    } else if (t.is_integer() || t.is_bool()) {
      s.kind = SlotInfo::Kind::Int;
      s.index = program_.num_ints;
      program_.num_ints += s.lanes;
    } else {
      throw Error("interpreter: variable " + v->name + " has unsupported type " + t.str());
    }
    it = slots_.emplace(v.get(), s).first;
  }
  ++scope_depth_[v.get()];
  return it->second;
}

void CompileContext::leave(const Var& v) {
  --scope_depth_[v.get()];
}

bool CompileContext::in_scope(const VarNode* v) const {
  auto it = scope_depth_.find(v);
  return it != scope_depth_.end() && it->second > 0;
}

const SlotInfo& CompileContext::lookup(const VarNode* v) const {
  if (!in_scope(v))
    throw Error("interpreter: variable " + v->name + " is used where it is not bound" +
                    (where_ ? where_->describe() : ""),
                where_ ? where_->loc : SourceLoc{});
  return slots_.at(v);
}

int CompileContext::declare_view(const Buffer& b) {
  auto it = views_.find(b.get());
  if (it != views_.end()) return it->second;
  int slot = program_.num_views++;
  views_.emplace(b.get(), slot);
  return slot;
}

int CompileContext::view_for_access(const Buffer& b) {
  auto it = views_.find(b.get());
  if (it != views_.end()) return it->second;
  int slot = declare_view(b);
  implicit_.emplace_back(b->data.get(), b);
  return slot;
}

std::vector<Buffer> CompileContext::take_implicit(const VarNode* data) {
  std::vector<Buffer> taken;
  std::erase_if(implicit_, [&](const auto& entry) {
    if (entry.first != data) return false;
    taken.push_back(entry.second);
    return true;
  });
  return taken;
}

bool CompileContext::has_pending_implicit() const {
  return !implicit_.empty();
}

std::string CompileContext::pending_implicit_name() const {
  return implicit_.empty() ? "" : implicit_.front().second->name;
}

const ViewBinder* CompileContext::make_binder(const Buffer& b, int view) {
  if (!b->data) throw Error("interpreter: buffer " + b->name + " has no data variable");
  const SlotInfo& data = lookup(b->data.get());
  if (data.kind != SlotInfo::Kind::Handle)
    throw Error("interpreter: data variable of buffer " + b->name + " is not a handle");
  if (!b->strides.empty() && b->strides.size() != b->shape.size())
    throw Error("interpreter: buffer " + b->name + " has " + std::to_string(b->strides.size()) +
                " strides for " + std::to_string(b->shape.size()) + " dimensions");
  if (b->dtype.is_vector() || b->dtype.is_handle() || b->dtype.is_void())
    throw Error("interpreter: buffer " + b->name + " has unsupported element type " +
                b->dtype.str());
  auto binder = std::make_unique<ViewBinder>();
  binder->view = view;
  binder->handle = data.index;
  binder->name = b->name;
  binder->dtype = b->dtype;
  for (const Expr& e : b->shape) binder->shape.push_back(compile_int(*this, e));
  for (const Expr& e : b->strides) binder->strides.push_back(compile_int(*this, e));
  if (b->elem_offset) binder->elem_offset = compile_int(*this, b->elem_offset);
  program_.binders.push_back(std::move(binder));
  return program_.binders.back().get();
}

const Where* CompileContext::push_where(std::string block, const SourceLoc& loc) {
  program_.wheres.push_back(Where{std::move(block), loc});
  return &program_.wheres.back();
}

}  // namespace tirc::eval
