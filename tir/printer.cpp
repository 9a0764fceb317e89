#include "tir/printer.h"

#include <algorithm>
#include <ostream>
#include <sstream>
#include <unordered_set>

#include "core/functor.h"

namespace kiln {
namespace {

constexpr int kIndentWidth = 4;

// A loop that `range(...)` can spell: serial, no thread tag, no annotations,
// its variable of the extent's type.
bool is_plain_loop(const ForNode& f) {
  return f.for_kind == ForKind::kSerial && f.thread_tag.empty() && f.annotations.empty() &&
         f.loop_var.dtype() == f.extent.dtype();
}

bool starts_at_zero(const ForNode& f) { return f.min.dtype() == f.extent.dtype() && is_const_int(f.min, 0); }

bool is_true(const Expr& e) { return e.dtype() == DataType::Bool() && is_const_int(e, 1); }

class StmtPrinter {
 public:
  StmtPrinter(PrintContext& ctx, std::ostream& os) : ctx_(ctx), os_(os) {}

  // A suite: the statements of a body, one per line. A sequence is
  // flattened; the last statement is in tail position (see print).
  void suite(const Stmt& s, int indent) {
    std::vector<Stmt> items;
    flatten(s, items);
    if (items.empty()) {
      line(indent) << "pass\n";
      return;
    }
    for (size_t i = 0; i < items.size(); ++i) print(items[i], indent, i + 1 == items.size());
  }

  // Declarations in the function body for what the function uses without
  // binding it.
  void declare_free_var(const Var& v, int indent) {
    line(indent) << ctx_.name(v) << " = " << dtype_ref(v.dtype()) << "()\n";
  }
  void declare_free_buffer(const Buffer& b, int indent) {
    line(indent) << ctx_.name(b) << " = T.Buffer(" << ctx_.buffer_args(b) << ")\n";
  }

 private:
  std::ostream& line(int indent) {
    for (int i = 0; i < indent * kIndentWidth; ++i) os_ << ' ';
    return os_;
  }

  std::string expr(const Expr& e) { return ctx_.str(e); }

  static void flatten(const Stmt& s, std::vector<Stmt>& out) {
    if (!s.defined()) return;
    if (const auto* q = s.as<SeqStmtNode>()) {
      for (const Stmt& t : q->seq) flatten(t, out);
    } else {
      out.push_back(s);
    }
  }

  // A statement in tail position is the last of its suite: a let or an
  // allocation there prints as a declaration line whose body is the rest of
  // the suite; elsewhere it needs a `with` and its own indented suite.
  void print(const Stmt& s, int indent, bool tail) {
    switch (s.kind()) {
      case StmtKind::BufferStore: {
        const auto* n = s.as<BufferStoreNode>();
        line(indent) << ctx_.name(n->buffer) << '[' << indices(n->indices) << "] = " << expr(n->value) << '\n';
        return;
      }
      case StmtKind::For: return print_for(*s.as<ForNode>(), indent);
      case StmtKind::SeqStmt: return suite(s, indent);
      case StmtKind::IfThenElse: {
        const auto* n = s.as<IfThenElseNode>();
        line(indent) << "if " << expr(n->condition) << ":\n";
        suite(n->then_case, indent + 1);
        if (n->else_case.defined()) {
          line(indent) << "else:\n";
          suite(n->else_case, indent + 1);
        }
        return;
      }
      case StmtKind::LetStmt: {
        const auto* n = s.as<LetStmtNode>();
        if (tail) {
          const std::string& name = ctx_.name(n->var);
          line(indent) << name << ": " << dtype_ref(n->var.dtype()) << " = " << expr(n->value) << '\n';
          ctx_.declare(n->var);
          return suite(n->body, indent);
        }
        std::string value = expr(n->value);
        line(indent) << "with T.LetStmt(" << value << ") as " << ctx_.name(n->var) << ":\n";
        ctx_.declare(n->var);
        return suite(n->body, indent + 1);
      }
      case StmtKind::Allocate: {
        const auto* n = s.as<AllocateNode>();
        if (tail) {
          line(indent) << ctx_.name(n->buffer) << " = T.allocate(" << ctx_.buffer_args(n->buffer) << ")\n";
          return suite(n->body, indent);
        }
        std::string args = ctx_.buffer_args(n->buffer);
        line(indent) << "with T.allocate(" << args << ") as " << ctx_.name(n->buffer) << ":\n";
        return suite(n->body, indent + 1);
      }
      case StmtKind::Evaluate:
        line(indent) << "T.evaluate(" << expr(s.as<EvaluateNode>()->value) << ")\n";
        return;
      case StmtKind::Barrier:
        line(indent) << "T.barrier(\"" << s.as<BarrierNode>()->scope << "\")\n";
        return;
      case StmtKind::Prefetch: {
        const auto* n = s.as<PrefetchNode>();
        line(indent) << "T.prefetch(" << ctx_.name(n->buffer) << '[' << indices(n->indices) << "])\n";
        return;
      }
      case StmtKind::Block: return print_block(*s.as<BlockNode>(), nullptr, indent);
      case StmtKind::BlockRealize: {
        const auto* r = s.as<BlockRealizeNode>();
        if (const auto* b = r->block.as<BlockNode>()) return print_block(*b, r, indent);
        line(indent) << "T.evaluate(None)\n";
        return;
      }
    }
    KILN_ICHECK(false) << "no printer for " << stmt_kind_name(s.kind());
  }

  std::string indices(const std::vector<Expr>& idx) {
    if (idx.empty()) return "()";
    std::string out;
    for (size_t i = 0; i < idx.size(); ++i) out += (i ? ", " : "") + expr(idx[i]);
    return out;
  }

  // `A[vi, 0:32]`: a range of one element prints as its index.
  std::string region(const BufferRegion& r) {
    std::string out = ctx_.name(r.buffer()) + "[";
    const auto& rs = r->region;
    if (rs.empty()) out += "()";
    for (size_t i = 0; i < rs.size(); ++i) {
      const Range& rg = rs[i];
      if (i) out += ", ";
      if (rg->extent.dtype() == rg->min.dtype() && is_const_int(rg->extent, 1)) {
        out += expr(rg->min);
      } else {
        out += expr(rg->min) + ":" + ctx_.stop(rg->min, rg->extent);
      }
    }
    return out + "]";
  }

  std::string annotations(const Annotations& a) {
    std::string out = "{";
    bool first = true;
    for (const auto& [k, v] : a) {
      if (!first) out += ", ";
      first = false;
      out += quote_string(k) + ": " + expr(v);
    }
    return out + "}";
  }

  // `range(64)` / `range(2, 66)` / `T.parallel(64, annotations={...})`.
  std::string loop_iter(const ForNode& f) {
    std::string args = starts_at_zero(f) ? expr(f.extent) : expr(f.min) + ", " + ctx_.stop(f.min, f.extent);
    if (is_plain_loop(f)) return "range(" + args + ")";
    std::string out = std::string("T.") + for_kind_name(f.for_kind) + "(" + args;
    if (!f.thread_tag.empty()) out += ", thread=" + quote_string(f.thread_tag);
    if (!f.annotations.empty()) out += ", annotations=" + annotations(f.annotations);
    return out + PrintContext::dtype_kwarg(f.loop_var, f.extent) + ")";
  }

  // Directly nested plain loops from zero print as one `T.grid`, as long as
  // no extent refers to an outer loop of the group.
  void print_for(const ForNode& outer, int indent) {
    std::vector<const ForNode*> group = {&outer};
    if (is_plain_loop(outer) && starts_at_zero(outer)) {
      while (const auto* inner = group.back()->body.as<ForNode>()) {
        if (!is_plain_loop(*inner) || !starts_at_zero(*inner)) break;
        bool depends = false;
        for (const ForNode* g : group) depends = depends || uses_var(inner->extent, g->loop_var);
        if (depends) break;
        group.push_back(inner);
      }
    }
    std::string head = "for ";
    for (size_t i = 0; i < group.size(); ++i) {
      head += (i ? ", " : "") + ctx_.name(group[i]->loop_var);
      ctx_.declare(group[i]->loop_var);
    }
    if (group.size() == 1) {
      head += " in " + loop_iter(outer);
    } else {
      head += " in T.grid(";
      for (size_t i = 0; i < group.size(); ++i) head += (i ? ", " : "") + expr(group[i]->extent);
      head += ")";
    }
    line(indent) << head << ":\n";
    suite(group.back()->body, indent + 1);
  }

  // A block under its realize (`with T.block("C"):`, axes bound to values)
  // or alone (`no_realize=True`, axes without values).
  void print_block(const BlockNode& b, const BlockRealizeNode* realize, int indent) {
    line(indent) << "with T.block(" << quote_string(b.name) << (realize ? "" : ", no_realize=True") << "):\n";
    int in = indent + 1;
    for (size_t i = 0; i < b.iter_vars.size(); ++i) {
      const IterVar& iv = b.iter_vars[i];
      const std::string& name = ctx_.name(iv.var());
      std::string value;
      if (realize && i < realize->iter_values.size()) value = ", " + expr(realize->iter_values[i]);
      line(in) << name << " = T.axis." << (iv.is_reduce() ? "reduce(" : "spatial(")
               << ctx_.domain(iv.dom()) << value << PrintContext::dtype_kwarg(iv.var(), iv.dom()->extent) << ")\n";
      ctx_.declare(iv.var());
    }
    if (realize && realize->predicate.defined() && !is_true(realize->predicate)) line(in) << "T.where(" << expr(realize->predicate) << ")\n";
    line(in) << "T.reads(" << regions(b.reads) << ")\n";
    line(in) << "T.writes(" << regions(b.writes) << ")\n";
    if (!b.annotations.empty()) line(in) << "T.block_attr(" << annotations(b.annotations) << ")\n";
    for (const Buffer& buf : b.alloc_buffers)
      line(in) << ctx_.name(buf) << " = T.alloc_buffer(" << ctx_.buffer_args(buf) << ")\n";
    if (b.init.defined()) {
      line(in) << "with T.init():\n";
      suite(b.init, in + 1);
    }
    suite(b.body, in);
  }

  std::string regions(const std::vector<BufferRegion>& rs) {
    std::string out;
    for (size_t i = 0; i < rs.size(); ++i) out += (i ? ", " : "") + region(rs[i]);
    return out;
  }

  PrintContext& ctx_;
  std::ostream& os_;
};

// What a function uses but never binds, in order of first use: symbolic
// shape variables, buffers from outside. Scopes are not tracked; a binding
// anywhere counts.
class FreeUses {
 public:
  std::vector<Var> vars;
  std::vector<Buffer> buffers;

  explicit FreeUses(const PrimFunc& f) {
    for (const Buffer& b : f->params) bound_.insert(b.get());
    for (const Buffer& b : f->params) walk(b);
    walk(f->body);
    for (const auto& [k, v] : f->attrs) walk(v);
    std::erase_if(vars, [&](const Var& v) { return bound_.count(v.get()); });
    std::erase_if(buffers, [&](const Buffer& b) { return bound_.count(b.get()); });
  }

 private:
  void walk(const ObjectRef& o) {
    if (!o.defined() || !seen_.insert(o.get()).second) return;
    if (o.as<VarNode>()) vars.emplace_back(o.ptr());
    if (o.as<BufferNode>()) buffers.emplace_back(o.ptr());
    if (const auto* n = o.as<ForNode>()) bound_.insert(n->loop_var.get());
    if (const auto* n = o.as<LetStmtNode>()) bound_.insert(n->var.get());
    if (const auto* n = o.as<LetNode>()) bound_.insert(n->var.get());
    if (const auto* n = o.as<IterVarNode>()) bound_.insert(n->var.get());
    if (const auto* n = o.as<AllocateNode>()) bound_.insert(n->buffer.get());
    if (const auto* n = o.as<BlockNode>())
      for (const Buffer& b : n->alloc_buffers) bound_.insert(b.get());
    for_each_child(*o.get(), [&](const ObjectRef& c) { walk(c); });
  }

  std::unordered_set<const Object*> seen_, bound_;
};

// The `def` line says the name a module files the function under, made an
// identifier (the function's own name outside a module). The decorator
// carries the function's real name when the two differ, and in a module the
// key itself when it is not an identifier, so that both read back.
void print_func(std::ostream& os, const PrimFunc& f, const std::string& key, bool in_module, int indent) {
  const std::string def_name = to_identifier(key);
  std::string pad(indent * kIndentWidth, ' ');
  PrintContext ctx;
  StmtPrinter p(ctx, os);
  FreeUses free(f);
  for (const Var& v : free.vars) ctx.declare(v);

  os << pad << "@T.prim_func";
  bool show_name = def_name != f->name;
  bool show_key = in_module && def_name != key;
  if (show_name || show_key) {
    os << '(';
    if (show_name) os << "name=" << quote_string(f->name);
    if (show_key) os << (show_name ? ", " : "") << "key=" << quote_string(key);
    os << ')';
  }
  os << '\n' << pad << "def " << def_name << '(';
  for (size_t i = 0; i < f->params.size(); ++i) {
    const Buffer& b = f->params[i];
    if (i) os << ", ";
    os << ctx.name(b) << ": T.Buffer(" << ctx.buffer_args(b) << ')';
  }
  os << "):\n";
  int body = indent + 1;
  if (!f->attrs.empty()) {
    os << std::string(body * kIndentWidth, ' ') << "T.func_attr({";
    bool first = true;
    for (const auto& [k, v] : f->attrs) {
      os << (first ? "" : ", ") << quote_string(k) << ": " << ctx.str(v);
      first = false;
    }
    os << "})\n";
  }
  for (const Var& v : free.vars) p.declare_free_var(v, body);
  for (const Buffer& b : free.buffers) p.declare_free_buffer(b, body);
  p.suite(f->body, body);
}

}  // namespace

void print_stmt(std::ostream& os, PrintContext& ctx, const Stmt& s, int indent) { StmtPrinter(ctx, os).suite(s, indent); }

std::string to_string(const Stmt& s) {
  std::ostringstream os;
  os << s;
  return os.str();
}

std::string to_string(const PrimFunc& f) {
  std::ostringstream os;
  os << f;
  return os.str();
}

std::string to_string(const IRModule& m) {
  std::ostringstream os;
  os << m;
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const Stmt& s) {
  PrintContext ctx;
  print_stmt(os, ctx, s, 0);
  return os;
}

std::ostream& operator<<(std::ostream& os, const PrimFunc& f) {
  print_func(os, f, f->name, /*in_module=*/false, 0);
  return os;
}

std::ostream& operator<<(std::ostream& os, const IRModule& m) {
  os << "@I.ir_module\nclass Module:\n";
  if (m->functions.empty()) os << std::string(kIndentWidth, ' ') << "pass\n";
  bool first = true;
  for (const auto& [key, f] : m->functions) {
    if (!first) os << '\n';
    first = false;
    print_func(os, f, key, /*in_module=*/true, 1);
  }
  return os;
}

std::string first_line(const Stmt& s) {
  const std::string text = to_string(s);
  const size_t start = std::min(text.find_first_not_of(' '), text.size());
  return text.substr(start, text.find('\n', start) - start);
}

}  // namespace kiln
