// The module-level part of the verifier: what one function cannot know on its
// own (the constants its allocate_consts bind, the kernels it calls).
#include "ir/functor.h"
#include "ir/verify.h"
#include "ir/verify_internal.h"

namespace tirc {
namespace {

using namespace verify_detail;

std::string shape_of(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

class LinkChecker : public StmtVisitor {
 public:
  LinkChecker(const IRModule& m, const std::string& name, std::vector<Diagnostic>& out)
      : module_(m), name_(name), sink_(name, out) {}

  void run(const Stmt& body) { visit(body); }

 protected:
  // Calls sit in Evaluate statements; diagnostics point at the innermost one.
  void visit_evaluate(const EvaluateNode* n) override {
    SourceLoc saved = at(n);
    StmtVisitor::visit_evaluate(n);
    loc_ = saved;
  }
  void visit_store(const BufferStoreNode* n) override {
    SourceLoc saved = at(n);
    StmtVisitor::visit_store(n);
    loc_ = saved;
  }

  void visit_allocate_const(const AllocateConstNode* n) override {
    SourceLoc saved = at(n);
    std::string what = "allocate_const " + n->buffer_var->name + ": ";
    const NDArray* c = module_.find_constant(n->constant);
    if (!c) {
      sink_.report(loc_, what + "no constant named '" + n->constant + "' in the module");
    } else {
      if (c->dtype() != n->dtype)
        sink_.report(loc_, what + "constant '" + n->constant + "' has dtype " + c->dtype().str() +
                               ", not " + n->dtype.str());
      int64_t count = 1;
      bool known = true;
      for (const Expr& e : n->extents) {
        auto v = as_const_int(e);
        if (!v)
          known = false;
        else
          count *= *v;
      }
      if (known && count != c->num_elements())
        sink_.report(loc_, what + "constant '" + n->constant + "' has " +
                               std::to_string(c->num_elements()) + " elements (shape " +
                               shape_of(c->shape()) + "), not " + std::to_string(count));
    }
    loc_ = saved;
    StmtVisitor::visit_allocate_const(n);
  }

  void visit_call(const CallNode* n) override {
    StmtVisitor::visit_call(n);
    if (n->op != kCallKernel || n->args.empty()) return;
    auto* name = n->args[0].as<StringImmNode>();
    if (!name) return;  // the function verifier reports it
    std::string what = "call_kernel \"" + name->value + "\": ";
    if (name->value == name_) return sink_.report(loc_, what + "a function cannot call itself");
    const PrimFunc* callee = module_.find(name->value);
    if (!callee || !*callee)
      return sink_.report(loc_, what + "no function named '" + name->value + "' in the module");
    const std::vector<Param>& params = (*callee)->params;
    size_t nargs = n->args.size() - 1;
    if (nargs != params.size())
      return sink_.report(loc_, what + "passes " + std::to_string(nargs) + " argument(s) but '" +
                                    name->value + "' has " + std::to_string(params.size()) +
                                    " parameter(s)");
    for (size_t i = 0; i < params.size(); ++i) {
      const Expr& a = n->args[i + 1];
      const Param& p = params[i];
      std::string arg = what + "argument " + std::to_string(i + 1) + " (parameter " +
                        (p.buffer ? p.buffer->name : p.var->name) + ")";
      if (!a) {
        sink_.report(loc_, arg + " is missing");
      } else if (p.buffer) {
        auto* call = a.as<CallNode>();
        bool handle =
            a.dtype().is_handle() && (a.as<VarNode>() || (call && call->op == kAddressOf));
        if (!handle)
          sink_.report(loc_, arg +
                                 " must be a handle (buf.data, an allocation or "
                                 "T.address_of), got " +
                                 expr_str(a) + " of type " + a.dtype().str());
      } else if (a.dtype() != p.var->dtype) {
        sink_.report(loc_, arg + " has type " + a.dtype().str() + " but the parameter is " +
                               p.var->dtype.str());
      }
    }
  }

 private:
  SourceLoc at(const StmtNode* n) {
    SourceLoc saved = loc_;
    if (n->loc.known()) loc_ = n->loc;
    return saved;
  }

  const IRModule& module_;
  const std::string& name_;
  DiagnosticSink sink_;
  SourceLoc loc_;
};

}  // namespace

std::vector<Diagnostic> verify_module_links(const IRModule& m) {
  std::vector<Diagnostic> out;
  for (const auto& [name, f] : m.functions()) {
    if (!f || !f->body) continue;
    LinkChecker checker(m, name, out);
    checker.run(f->body);
  }
  return out;
}

}  // namespace tirc
