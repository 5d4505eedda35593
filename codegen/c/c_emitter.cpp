// Statements and functions of lowered TIR as C99. Each PrimFunc becomes
// `int symbol(...)` plus `int symbol_packed(void* const* args)`; each parallel
// loop becomes a static function over a closure struct, called through
// tirc_parallel_for.
#include "codegen/c/c_emitter.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "codegen/c/c_prelude.h"
#include "codegen/c/c_scope.h"
#include "codegen/c/c_types.h"
#include "ir/functor.h"
#include "ir/var_use.h"

namespace tirc {

namespace {

using c_emit::CScope;
using c_emit::CVar;

// Allocations up to this size live on the stack (of the calling thread, or of
// a worker thread inside a parallel loop); larger ones on the heap, freed at
// the end of the Allocate's scope. 32 KiB keeps nested parallel bodies far
// from the 8 MiB default thread stack.
constexpr int64_t kStackAllocationLimitBytes = 32 * 1024;

[[noreturn]] void refuse(const std::string& what, const SourceLoc& loc) {
  throw Error("C emitter: " + what, loc);
}

// The text of one C function body under construction.
struct CBody {
  std::string text;
  int indent = 1;
  bool outlined = false;                 // a parallel body: failures set c_->failed
  std::vector<std::string> heap_blocks;  // raw pointers to free on the way out

  void line(const std::string& s) {
    text.append(static_cast<size_t>(indent) * 2, ' ');
    text += s;
    text += '\n';
  }
  // Statements that leave the function after an allocation failure (or a
  // called kernel's failure, returning `code`).
  std::string fail(const std::string& code = "-1") const {
    std::string s = "{ ";
    for (auto it = heap_blocks.rbegin(); it != heap_blocks.rend(); ++it)
      s += "tirc_free(" + *it + "); ";
    s += outlined ? "c_->failed = 1; return; }" : "return " + code + "; }";
    return s;
  }
};

// What the functions of one translation unit share: who can be called by
// name, the module's constants and which of them are already emitted.
struct UnitState {
  std::map<std::string, const FunctionToCompile*, std::less<>> callees;
  const IRModule* module = nullptr;
  std::map<std::string, std::string, std::less<>> constant_arrays;  // constant -> C array
  std::string constants_text;
  bool uses_heap = false;
};

// A constant's bytes as a static array: 32-bit words in hex when the size
// allows (exact bit patterns of float32 weights), else bytes.
std::string constant_array(const std::string& name, const NDArray& c) {
  const uint8_t* p = c.data();
  const size_t n = c.num_bytes();
  const bool words = n % 4 == 0 && n > 0;
  std::string out = std::string("static const ") + (words ? "uint32_t " : "uint8_t ") + name + "[" +
                    std::to_string(std::max<size_t>(words ? n / 4 : n, 1)) + "] TIRC_ALIGN64 = {";
  out.reserve(out.size() + n * 3 + n / 16 + 16);
  static const char kHex[] = "0123456789abcdef";
  const size_t count = words ? n / 4 : n;
  for (size_t i = 0; i < count; ++i) {
    out += i % 8 == 0 ? "\n  " : " ";
    uint32_t v = 0;
    if (words)
      std::memcpy(&v, p + 4 * i, 4);
    else
      v = p[i];
    out += "0x";
    for (int d = words ? 7 : 1; d >= 0; --d) out += kHex[(v >> (4 * d)) & 15];
    out += ",";
  }
  if (count == 0) out += "0";
  return out + "\n};\n\n";
}

class FunctionEmitter {
 public:
  FunctionEmitter(const std::string& symbol, bool restrict_pointers, CScope& scope,
                  std::string& outlined_text, bool& uses_parallel, UnitState& unit)
      : symbol_(symbol),
        restrict_(restrict_pointers ? " restrict" : ""),
        scope_(scope),
        outlined_text_(outlined_text),
        uses_parallel_(uses_parallel),
        unit_(unit) {}

  std::string function(const PrimFunc& f) {
    std::vector<std::string> params, packed_args;
    std::vector<const VarNode*> entered;
    CBody body;
    auto enter = [&](const Var& v, CVar info) {
      scope_.enter(v.get(), std::move(info));
      entered.push_back(v.get());
    };
    for (size_t i = 0; i < f->params.size(); ++i) {
      const Param& p = f->params[i];
      const std::string slot = "args[" + std::to_string(i) + "]";
      if (p.buffer) {
        const Buffer& b = p.buffer;
        const std::string st = c_emit::storage_type(b->dtype);
        const std::string name = scope_.fresh_name(b->name);
        params.push_back(st + "*" + restrict_ + " " + name);
        packed_args.push_back("(" + st + "*)" + slot);
        CVar info{name, CVar::Kind::Handle, DataType::handle(), st};
        for (const Var& v : {p.var, b->data})
          if (v && !scope_.find(v.get())) enter(v, info);
        continue;
      }
      if (!p.var) refuse("parameter " + std::to_string(i) + " has neither buffer nor variable", {});
      const DataType t = p.var->dtype;
      if (!t.is_scalar() || t.is_handle())
        refuse("scalar parameter " + p.var->name + " has unsupported type " + t.str(), {});
      const std::string st = c_emit::storage_type(t);
      const std::string raw = scope_.fresh_name(p.var->name + "_arg");
      params.push_back(st + " " + raw);
      packed_args.push_back("*(const " + st + "*)" + slot);
      const std::string name = scope_.fresh_name(p.var->name);
      body.line("const " + c_emit::value_type(t) + " " + name +
                " TIRC_UNUSED = " + c_emit::from_storage(t, raw) + ";");
      enter(p.var, CVar{name, CVar::Kind::Scalar, t, {}});
    }
    stmt(f->body, body);
    for (auto it = entered.rbegin(); it != entered.rend(); ++it) scope_.leave(*it);

    std::string param_list = params.empty() ? "void" : join(params);
    std::string out = "int " + symbol_ + "(" + param_list + ") {\n" + body.text;
    out += "  return 0;\n}\n\n";
    out += "int " + symbol_ + "_packed(void* const* args) {\n";
    if (f->params.empty()) out += "  (void)args;\n";
    out += "  return " + symbol_ + "(" + join(packed_args) + ");\n}\n\n";
    return out;
  }

 private:
  static std::string join(const std::vector<std::string>& parts) {
    std::string s;
    for (size_t i = 0; i < parts.size(); ++i) s += (i ? ", " : "") + parts[i];
    return s;
  }

  std::string expr(const Expr& e, const SourceLoc& loc, int lane = 0) {
    return c_emit::emit_expr(scope_, e, lane, loc);
  }

  std::string scalar_expr(const Expr& e, const SourceLoc& loc, const char* what) {
    if (e.dtype().is_vector()) refuse(std::string(what) + " must be a scalar", loc);
    return expr(e, loc);
  }

  void stmt(const Stmt& s, CBody& out) {
    if (!s) return;
    switch (s.kind()) {
      case StmtKind::BufferStore:
        return store(*s.as<BufferStoreNode>(), out);
      case StmtKind::For:
        return loop(*s.as<ForNode>(), out);
      case StmtKind::Seq:
        for (const Stmt& c : s.as<SeqStmtNode>()->seq) stmt(c, out);
        return;
      case StmtKind::IfThenElse: {
        auto* i = s.as<IfThenElseNode>();
        out.line("if (" + scalar_expr(i->cond, s->loc, "an if condition") + ") {");
        nested(i->then_case, out);
        if (i->else_case) {
          out.line("} else {");
          nested(i->else_case, out);
        }
        out.line("}");
        return;
      }
      case StmtKind::LetStmt:
        return let(*s.as<LetStmtNode>(), out);
      case StmtKind::Evaluate: {
        const Expr& v = s.as<EvaluateNode>()->value;
        if (v.as<StringImmNode>() || v.as<IntImmNode>() || v.as<FloatImmNode>()) return;
        if (call_kernel_callee(v)) return call_kernel(*v.as<CallNode>(), s->loc, out);
        for (int l = 0; l < v.dtype().lanes(); ++l) out.line("(void)" + expr(v, s->loc, l) + ";");
        return;
      }
      case StmtKind::Allocate:
        return allocate(*s.as<AllocateNode>(), out);
      case StmtKind::AllocateConst:
        return allocate_const(*s.as<AllocateConstNode>(), out);
      case StmtKind::DeclBuffer: {
        // Not part of the lowered form, but a view over storage already in
        // scope is harmless: its accesses name that storage.
        auto* d = s.as<DeclBufferNode>();
        if (!scope_.find(d->buffer->data.get()))
          refuse("DeclBuffer " + d->buffer->name + " with storage of its own (run lower() first)",
                 s->loc);
        return stmt(d->body, out);
      }
      case StmtKind::Block:
      case StmtKind::BlockRealize:
        refuse("blocks are not part of the lowered form (run lower() first)", s->loc);
    }
    refuse("unknown statement", s->loc);
  }

  void nested(const Stmt& s, CBody& out) {
    ++out.indent;
    stmt(s, out);
    --out.indent;
  }

  void store(const BufferStoreNode& s, CBody& out) {
    if (s.indices.size() != 1)
      refuse("buffer " + s.buffer->name + " is stored with " + std::to_string(s.indices.size()) +
                 " indices; the lowered form has flat (1-D) buffers (run lower() first)",
             s.loc);
    if (s.value.dtype().element_of() != s.buffer->dtype)
      refuse("store of " + s.value.dtype().str() + " into buffer " + s.buffer->name + " of " +
                 s.buffer->dtype.str(),
             s.loc);
    // Lane by lane, each stored before the next is computed: the interpreter's order.
    const int lanes = std::max(s.value.dtype().lanes(), s.indices[0].dtype().lanes());
    for (int l = 0; l < lanes; ++l) {
      const std::string element =
          c_emit::buffer_element(scope_, s.buffer, expr(s.indices[0], s.loc, l), s.loc);
      out.line(element + " = " + c_emit::to_storage(s.buffer->dtype, expr(s.value, s.loc, l)) +
               ";");
    }
  }

  void loop(const ForNode& f, CBody& out) {
    const DataType t = f.loop_var->dtype;
    if (!t.is_integer() || !t.is_scalar())
      refuse("loop variable " + f.loop_var->name + " is not a scalar integer", f.loc);
    if (f.for_kind == ForKind::ThreadBinding)
      refuse("thread-bound loop " + f.loop_var->name + " has no CPU meaning", f.loc);
    const std::string lo = scalar_expr(f.min, f.loc, "a loop minimum");
    const std::string extent = scalar_expr(f.extent, f.loc, "a loop extent");
    if (f.for_kind == ForKind::Parallel) return parallel_loop(f, lo, extent, out);

    const std::string vt = c_emit::value_type(t);
    const std::string name = scope_.fresh_name(f.loop_var->name);
    auto cmin = as_const_int(f.min), cext = as_const_int(f.extent);
    std::string bound;
    const bool constant_bounds = cmin && cext;
    if (!constant_bounds) {
      out.line("{");
      ++out.indent;
    }
    if (constant_bounds) {
      bound = std::to_string(*cmin + *cext);
    } else {
      bound = name + "_end";
      out.line("const int64_t " + bound + " = (int64_t)" + "(" + lo + ") + (int64_t)(" + extent +
               ");");
    }
    if (f.for_kind == ForKind::Unrolled && cext && *cext > 1 && *cext <= 64)
      out.text += "#pragma GCC unroll " + std::to_string(*cext) + "\n";
    if (f.for_kind == ForKind::Vectorized)
      out.text += "#if defined(__clang__)\n#pragma clang loop vectorize(enable)\n#endif\n";
    out.line("for (" + vt + " " + name + " = (" + vt + ")(" + lo + "); " + name + " < " + bound +
             "; ++" + name + ") {");
    scope_.enter(f.loop_var.get(), CVar{name, CVar::Kind::Scalar, t, {}});
    nested(f.body, out);
    scope_.leave(f.loop_var.get());
    out.line("}");
    if (!constant_bounds) {
      --out.indent;
      out.line("}");
    }
  }

  void parallel_loop(const ForNode& f, const std::string& lo, const std::string& extent,
                     CBody& out) {
    uses_parallel_ = true;
    const std::string fn = symbol_ + "_parallel_" + std::to_string(next_outlined_++);
    const std::string closure = fn + "_closure";

    // Every visible variable the body reads travels in the closure.
    const VarSet used = vars_and_storage_of(f.body);
    std::vector<std::pair<const VarNode*, CVar>> captured;
    std::set<std::string> captured_names;
    for (auto& [v, info] : scope_.visible())
      if (used.count(v) && v != f.loop_var.get() && captured_names.insert(info.name).second)
        captured.emplace_back(v, info);

    std::string decl = "struct " + closure + " {\n  int64_t lo_;\n  int failed;\n";
    CBody inner;
    inner.outlined = true;
    inner.line("struct " + closure + "* c_ = (struct " + closure + "*)closure_;");
    out.line("{");
    ++out.indent;
    out.line("struct " + closure + " cl_;");
    out.line("cl_.lo_ = (int64_t)(" + lo + ");");
    out.line("cl_.failed = 0;");
    for (const auto& [v, info] : captured) {
      const std::string& n = info.name;
      switch (info.kind) {
        case CVar::Kind::Scalar: {
          const std::string vt = c_emit::value_type(info.dtype);
          decl += "  " + vt + " " + n + ";\n";
          inner.line("const " + vt + " " + n + " = c_->" + n + ";");
          out.line("cl_." + n + " = " + n + ";");
          break;
        }
        case CVar::Kind::Vector: {
          const std::string vt = c_emit::value_type(info.dtype.element_of());
          const std::string lanes = std::to_string(info.dtype.lanes());
          decl += "  " + vt + " " + n + "[" + lanes + "];\n";
          inner.line(vt + " " + n + "[" + lanes + "];");
          inner.line("memcpy(" + n + ", c_->" + n + ", sizeof " + n + ");");
          out.line("memcpy(cl_." + n + ", " + n + ", sizeof cl_." + n + ");");
          break;
        }
        case CVar::Kind::Handle:
          decl += "  " + info.pointee + "* " + n + ";\n";
          inner.line(info.pointee + "*" + restrict_ + " " + n + " = c_->" + n + ";");
          out.line("cl_." + n + " = " + n + ";");
          break;
      }
    }
    decl += "};\n";

    const DataType t = f.loop_var->dtype;
    const std::string vt = c_emit::value_type(t);
    const std::string name = scope_.fresh_name(f.loop_var->name);
    inner.line("int64_t it_;");
    inner.line("for (it_ = begin_; it_ < end_; ++it_) {");
    ++inner.indent;
    inner.line("const " + vt + " " + name + " = (" + vt + ")(c_->lo_ + it_);");
    scope_.enter(f.loop_var.get(), CVar{name, CVar::Kind::Scalar, t, {}});
    nested(f.body, inner);
    scope_.leave(f.loop_var.get());
    --inner.indent;
    inner.line("}");

    // Nested parallel loops were appended while the body was emitted, so
    // they precede this function, which calls them.
    outlined_text_ += decl + "\nstatic void " + fn +
                      "(int64_t begin_, int64_t end_, void* closure_) {\n" + inner.text + "}\n\n";

    out.line("const int64_t n_ = (int64_t)(" + extent + ");");
    out.line("if (n_ > 0) (void)tirc_parallel_for(n_, " + fn + ", &cl_);");
    out.line("if (cl_.failed) " + out.fail());
    --out.indent;
    out.line("}");
  }

  void let(const LetStmtNode& l, CBody& out) {
    const DataType t = l.var->dtype;
    if (t.is_handle()) {
      auto* from = l.value.as<VarNode>();
      const CVar* source = from ? scope_.find(from) : nullptr;
      if (!source || source->kind != CVar::Kind::Handle)
        refuse("handle let of " + l.var->name + " must bind another handle variable", l.loc);
      CVar alias = *source;
      scope_.enter(l.var.get(), alias);
      stmt(l.body, out);
      scope_.leave(l.var.get());
      return;
    }
    const std::string name = scope_.fresh_name(l.var->name);
    const std::string vt = c_emit::value_type(t.element_of());
    out.line("{");
    ++out.indent;
    if (t.is_scalar()) {
      out.line("const " + vt + " " + name + " TIRC_UNUSED = " + expr(l.value, l.loc) + ";");
      scope_.enter(l.var.get(), CVar{name, CVar::Kind::Scalar, t, {}});
    } else {
      out.line(vt + " " + name + "[" + std::to_string(t.lanes()) + "] TIRC_UNUSED;");
      for (int k = 0; k < t.lanes(); ++k)
        out.line(name + "[" + std::to_string(k) + "] = " + expr(l.value, l.loc, k) + ";");
      scope_.enter(l.var.get(), CVar{name, CVar::Kind::Vector, t, {}});
    }
    stmt(l.body, out);
    scope_.leave(l.var.get());
    --out.indent;
    out.line("}");
  }

  void allocate(const AllocateNode& a, CBody& out) {
    int64_t elems = a.dtype.lanes();
    for (const Expr& e : a.extents) {
      auto c = as_const_int(e);
      if (!c || *c < 0)
        refuse("allocation " + a.buffer_var->name + " has a non-constant or negative extent",
               a.loc);
      elems *= *c;
    }
    const DataType elem = a.dtype.element_of();
    const std::string st = c_emit::storage_type(elem);
    const int64_t bytes = elems * elem.bytes();
    const std::string name = scope_.fresh_name(a.buffer_var->name);
    out.line("{");
    ++out.indent;
    const bool heap = bytes > kStackAllocationLimitBytes;
    if (!heap) {
      out.line(st + " " + name + "[" + std::to_string(std::max<int64_t>(elems, 1)) +
               "] TIRC_ALIGN64;");
    } else {
      // The runtime's allocator aligns to 64 bytes.
      unit_.uses_heap = true;
      const std::string raw = name + "_block";
      out.line("void* " + raw + " = tirc_alloc(" + std::to_string(bytes) + ");");
      out.line("if (!" + raw + ") " + out.fail());
      out.line(st + "*" + restrict_ + " " + name + " = (" + st + "*)" + raw + ";");
      out.heap_blocks.push_back(raw);
    }
    scope_.enter(a.buffer_var.get(), CVar{name, CVar::Kind::Handle, DataType::handle(), st});
    stmt(a.body, out);
    scope_.leave(a.buffer_var.get());
    if (heap) {
      out.line("tirc_free(" + out.heap_blocks.back() + ");");
      out.heap_blocks.pop_back();
    }
    --out.indent;
    out.line("}");
  }

  void allocate_const(const AllocateConstNode& a, CBody& out) {
    const std::string what = "allocate_const " + a.buffer_var->name;
    if (!unit_.module)
      refuse(what + " binds constant '" + a.constant + "' but no module was given", a.loc);
    const NDArray* c = unit_.module->find_constant(a.constant);
    if (!c) refuse(what + ": the module has no constant '" + a.constant + "'", a.loc);
    if (c->dtype() != a.dtype)
      refuse(what + " is " + a.dtype.str() + " but the constant is " + c->dtype().str(), a.loc);
    int64_t elems = 1;
    for (const Expr& e : a.extents) {
      auto n = as_const_int(e);
      if (!n || *n < 0) refuse(what + " has a non-constant extent", a.loc);
      elems *= *n;
    }
    if (elems != c->num_elements())
      refuse(what + " has " + std::to_string(elems) + " elements, the constant " +
                 std::to_string(c->num_elements()),
             a.loc);
    auto [it, inserted] = unit_.constant_arrays.try_emplace(a.constant);
    if (inserted) {
      it->second = scope_.fresh_name("tirc_const_" + c_emit::sanitize_identifier(a.constant));
      unit_.constants_text += constant_array(it->second, *c);
    }
    const std::string st = c_emit::storage_type(a.dtype);
    const std::string name = scope_.fresh_name(a.buffer_var->name);
    out.line("{");
    ++out.indent;
    // Never written through (the generators refuse stores to constants).
    out.line(st + "* " + name + " TIRC_UNUSED = (" + st + "*)" + it->second + ";");
    scope_.enter(a.buffer_var.get(), CVar{name, CVar::Kind::Handle, DataType::handle(), st});
    stmt(a.body, out);
    scope_.leave(a.buffer_var.get());
    --out.indent;
    out.line("}");
  }

  std::string handle_argument(const Expr& arg, const std::string& pointee, const SourceLoc& loc,
                              const std::string& which) {
    if (auto* v = arg.as<VarNode>()) {
      const CVar* info = scope_.find(v);
      if (!info || info->kind != CVar::Kind::Handle)
        refuse(which + ": " + v->name + " is not a buffer or an allocation visible here", loc);
      return "(" + pointee + "*)(void*)" + info->name;
    }
    auto* c = arg.as<CallNode>();
    if (c && c->op == kAddressOf && c->args.size() == 1) {
      auto* l = c->args[0].as<BufferLoadNode>();
      if (!l || l->indices.size() != 1)
        refuse(which + ": address_of needs an element of a flat buffer", loc);
      return "(" + pointee + "*)(void*)&" +
             c_emit::buffer_element(scope_, l->buffer, expr(l->indices[0], loc), loc);
    }
    refuse(which + " is not a buffer handle (a data var, an allocation or address_of)", loc);
  }

  void call_kernel(const CallNode& c, const SourceLoc& loc, CBody& out) {
    const std::string& name = c.args[0].as<StringImmNode>()->value;
    if (out.outlined) refuse("call_kernel('" + name + "') inside a parallel loop", loc);
    auto found = unit_.callees.find(name);
    if (found == unit_.callees.end())
      refuse("call_kernel: no function named '" + name + "' is being compiled with this one", loc);
    const PrimFunc& f = found->second->lowered;
    if (c.args.size() - 1 != f->params.size())
      refuse("call_kernel('" + name + "') passes " + std::to_string(c.args.size() - 1) +
                 " arguments, the function takes " + std::to_string(f->params.size()),
             loc);
    std::vector<std::string> args;
    for (size_t i = 0; i < f->params.size(); ++i) {
      const Param& p = f->params[i];
      const Expr& arg = c.args[i + 1];
      const std::string which = "call_kernel argument " + std::to_string(i);
      if (p.buffer) {
        args.push_back(handle_argument(arg, c_emit::storage_type(p.buffer->dtype), loc, which));
        continue;
      }
      if (arg.dtype() != p.var->dtype)
        refuse(which + " is " + arg.dtype().str() + " but the parameter is " + p.var->dtype.str(),
               loc);
      args.push_back(c_emit::to_storage(p.var->dtype, expr(arg, loc)));
    }
    out.line("{");
    ++out.indent;
    out.line("const int status_ = " + found->second->symbol + "(" + join(args) + ");");
    out.line("if (status_ != 0) " + out.fail("status_"));
    --out.indent;
    out.line("}");
  }

  const std::string& symbol_;
  const std::string restrict_;
  CScope& scope_;
  std::string& outlined_text_;
  bool& uses_parallel_;
  UnitState& unit_;
  int next_outlined_ = 0;
};

}  // namespace

std::string emit_c(const std::vector<FunctionToCompile>& functions) {
  return emit_c(functions, nullptr);
}

std::string emit_c(const std::vector<FunctionToCompile>& functions, const IRModule* module) {
  CScope scope;
  std::string outlined, bodies, prototypes;
  bool uses_parallel = false;
  std::set<std::string> symbols;
  UnitState unit;
  unit.module = module;
  for (const FunctionToCompile& fc : functions) {
    if (!fc.lowered) throw Error("C emitter: function " + fc.symbol + " is null");
    if (!c_emit::is_c_identifier(fc.symbol) || fc.symbol.starts_with("tirc_"))
      throw Error("C emitter: symbol \"" + fc.symbol +
                  "\" is not a C identifier (or uses the reserved prefix tirc_)");
    if (!symbols.insert(fc.symbol).second)
      throw Error("C emitter: symbol " + fc.symbol + " is defined twice");
    if (!fc.name.empty() && !unit.callees.emplace(fc.name, &fc).second)
      throw Error("C emitter: two functions are named '" + fc.name + "'");
  }
  for (const FunctionToCompile& fc : functions) {
    FunctionEmitter emitter(fc.symbol, has_noalias_params(fc.lowered), scope, outlined,
                            uses_parallel, unit);
    std::string text = emitter.function(fc.lowered);
    // A function's prototype (its definition's first line) lets any function call it.
    prototypes += text.substr(0, text.find(" {\n")) + ";\n";
    bodies += outlined + text;
    outlined.clear();
  }
  std::string out = c_emit::c_prelude();
  if (uses_parallel) out += c_emit::c_parallel_prototype();
  if (unit.uses_heap) out += "void* tirc_alloc(size_t bytes);\nvoid tirc_free(void* p);\n\n";
  return out + unit.constants_text + prototypes + "\n" + bodies;
}

}  // namespace tirc
