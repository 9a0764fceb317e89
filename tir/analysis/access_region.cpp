#include "tir/analysis/access_region.h"

#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "core/arith/linear.h"
#include "core/structural.h"
#include "tir/functor.h"

namespace kiln {

namespace {

// ---------------------------------------------------------------------------
// Affine forms: linear forms over int64 (arith::LinearForm), whose terms are
// atoms: variables, or subexpressions that the analysis holds fixed, kept in
// order of first appearance so that rebuilt expressions are the same in
// every run. Arithmetic that would overflow gives no form, and the
// dimension it bounds then covers the whole buffer.

using Affine = arith::LinearForm;

Affine constant_form(int64_t v) { return Affine{DataType::Int64(), {}, v}; }
Affine atom_form(const Expr& e) { return Affine{DataType::Int64(), {{e, 1}}, 0}; }
bool is_const(const Affine& a) { return a.terms.empty(); }

std::optional<Affine> add_scaled(const Affine& a, const Affine& b, int64_t k) { return arith::linear_combine(a, b, k); }
std::optional<Affine> scale(const Affine& a, int64_t k) { return add_scaled(constant_form(0), a, k); }
Affine with_constant(Affine a, int64_t c) {
  a.constant = c;
  return a;
}

// a - b when it is a constant.
std::optional<int64_t> const_diff(const Affine& a, const Affine& b) {
  std::optional<Affine> d = add_scaled(a, b, -1);
  if (!d || !is_const(*d)) return std::nullopt;
  return d->constant;
}

// The form as an expression of type t, atoms of other types cast to it, a
// negative constant subtracted: regions read `vo * 4 - 1`.
Expr to_expr(const Affine& a, DataType t) {
  if (is_const(a)) return int_imm(t, a.constant);
  Affine f{t, {}, 0};
  for (const auto& [atom, k] : a.terms) f.terms.emplace_back(atom.dtype() == t ? atom : cast(t, atom), k);
  Expr r = arith::linear_to_expr(f);
  if (a.constant > 0) return add(r, int_imm(t, a.constant));
  if (a.constant < 0) return sub(r, int_imm(t, -a.constant));
  return r;
}

// Inclusive bounds [lo, hi].
struct Bound {
  Affine lo, hi;
  static Bound point(const Affine& a) { return Bound{a, a}; }
};

std::optional<Bound> bound_of(const std::optional<Affine>& lo, const std::optional<Affine>& hi) {
  if (!lo || !hi) return std::nullopt;
  return Bound{*lo, *hi};
}

std::optional<Affine> pick(const Affine& a, const Affine& b, bool want_min) {
  std::optional<int64_t> d = const_diff(a, b);
  if (!d) return std::nullopt;
  return (want_min ? *d <= 0 : *d >= 0) ? a : b;
}

std::optional<Bound> hull(const Bound& a, const Bound& b) {
  std::optional<Affine> lo = pick(a.lo, b.lo, true);
  std::optional<Affine> hi = pick(a.hi, b.hi, false);
  if (!lo || !hi) return std::nullopt;
  return Bound{*lo, *hi};
}

// lo and hi share their variable part, and each of its coefficients is a
// multiple of d (and the part is not empty).
bool same_multiple_of(const Affine& lo, const Affine& hi, int64_t d) {
  if (is_const(lo) || !const_diff(lo, hi)) return false;
  for (const auto& t : lo.terms)
    if (t.second % d != 0) return false;
  return true;
}

bool truncating_kind(const Expr& e) { return e.kind() == ExprKind::Div || e.kind() == ExprKind::Mod; }

int64_t floordiv_i(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// ---------------------------------------------------------------------------
// Interval arithmetic over affine forms. Variables in `vars` range over their
// bound (nullopt: unknown); every other variable is fixed.

class BoundEvaluator {
 public:
  std::unordered_map<const Object*, std::optional<Bound>> vars;

  bool varies(const Expr& e) const {
    if (vars.empty()) return false;
    return uses_var(e, [&](const VarNode* v) { return vars.count(v) > 0; });
  }

  // The bound of a domain [min, min + extent).
  std::optional<Bound> range_bound(const Expr& min, const Expr& extent) {
    std::optional<Bound> lo = eval(min);
    std::optional<Bound> last = eval(add(min, sub(extent, make_const(extent.dtype(), 1))));
    if (!lo || !last) return std::nullopt;
    return Bound{lo->lo, last->hi};
  }

  std::optional<Bound> eval(const Expr& e) {
    switch (e.kind()) {
      case ExprKind::IntImm:
        return Bound::point(constant_form(e.as<IntImmNode>()->value));
      case ExprKind::Var: {
        auto it = vars.find(e.as<VarNode>());
        if (it != vars.end()) return it->second;
        return Bound::point(atom_form(e));
      }
      case ExprKind::Add: {
        const auto* op = e.as<AddNode>();
        std::optional<Bound> a = eval(op->a), b = eval(op->b);
        if (!a || !b) return std::nullopt;
        return bound_of(add_scaled(a->lo, b->lo, 1), add_scaled(a->hi, b->hi, 1));
      }
      case ExprKind::Sub: {
        const auto* op = e.as<SubNode>();
        std::optional<Bound> a = eval(op->a), b = eval(op->b);
        if (!a || !b) return std::nullopt;
        return bound_of(add_scaled(a->lo, b->hi, -1), add_scaled(a->hi, b->lo, -1));
      }
      case ExprKind::Mul: return eval_mul(e);
      case ExprKind::Cast: {
        const auto* op = e.as<CastNode>();
        if (e.dtype().is_integral() && op->value.dtype().is_integral()) return eval(op->value);
        return fixed_or_fail(e);
      }
      case ExprKind::FloorDiv:
      case ExprKind::Div:
      case ExprKind::FloorMod:
      case ExprKind::Mod: return eval_div_mod(e);
      case ExprKind::Min: return eval_min_max(e, e.as<MinNode>()->a, e.as<MinNode>()->b, true);
      case ExprKind::Max: return eval_min_max(e, e.as<MaxNode>()->a, e.as<MaxNode>()->b, false);
      case ExprKind::Select: {
        if (!varies(e)) return fixed(e);
        const auto* op = e.as<SelectNode>();
        std::optional<Bound> a = eval(op->true_value), b = eval(op->false_value);
        if (!a || !b) return std::nullopt;
        return hull(*a, *b);
      }
      case ExprKind::Ramp: {
        const auto* op = e.as<RampNode>();
        std::optional<Bound> base = eval(op->base);
        const int64_t* stride = as_const_int(op->stride);
        if (!base || !stride) return std::nullopt;
        int64_t span = *stride * (op->lanes - 1);
        if (span >= 0) base->hi.constant += span;
        else base->lo.constant += span;
        return base;
      }
      case ExprKind::Broadcast: return eval(e.as<BroadcastNode>()->value);
      default: return fixed_or_fail(e);
    }
  }

 private:
  // A subexpression that does not vary is one atom, whatever its operators.
  std::optional<Bound> fixed(const Expr& e) { return Bound::point(atom_form(e)); }
  std::optional<Bound> fixed_or_fail(const Expr& e) {
    if (varies(e)) return std::nullopt;
    return fixed(e);
  }

  std::optional<Bound> eval_mul(const Expr& e) {
    const auto* op = e.as<MulNode>();
    std::optional<Bound> a = eval(op->a), b = eval(op->b);
    if (!a || !b) return std::nullopt;
    auto as_const = [](const Bound& x) -> std::optional<int64_t> {
      if (is_const(x.lo) && is_const(x.hi) && x.lo.constant == x.hi.constant) return x.lo.constant;
      return std::nullopt;
    };
    const Bound* other = nullptr;
    std::optional<int64_t> k;
    if ((k = as_const(*b))) other = &*a;
    else if ((k = as_const(*a))) other = &*b;
    if (!other) return fixed_or_fail(e);
    if (*k >= 0) return bound_of(scale(other->lo, *k), scale(other->hi, *k));
    return bound_of(scale(other->hi, *k), scale(other->lo, *k));
  }

  std::optional<Bound> eval_div_mod(const Expr& e) {
    if (!varies(e)) return fixed(e);
    Expr x, y;
    if (const auto* op = e.as<FloorDivNode>()) x = op->a, y = op->b;
    if (const auto* op = e.as<DivNode>()) x = op->a, y = op->b;
    if (const auto* op = e.as<FloorModNode>()) x = op->a, y = op->b;
    if (const auto* op = e.as<ModNode>()) x = op->a, y = op->b;
    const int64_t* d = as_const_int(y);
    if (!d || *d <= 0) return std::nullopt;
    std::optional<Bound> b = eval(x);
    bool is_mod = e.kind() == ExprKind::FloorMod || e.kind() == ExprKind::Mod;
    if (b && !truncating_kind(e) && same_multiple_of(b->lo, b->hi, *d)) {
      // [d*X + lo, d*X + hi] with X fixed, as in (j0 * 64 + j1) // 64 over
      // j1 < 64: floor division and remainder act on the constants alone.
      Affine x = with_constant(b->lo, 0);
      for (auto& t : x.terms) t.second /= *d;
      const int64_t qlo = floordiv_i(b->lo.constant, *d), qhi = floordiv_i(b->hi.constant, *d);
      if (e.kind() == ExprKind::FloorDiv) return Bound{with_constant(x, qlo), with_constant(x, qhi)};
      if (qlo == qhi) return Bound{constant_form(b->lo.constant - qlo * *d), constant_form(b->hi.constant - qlo * *d)};
      return Bound{constant_form(0), constant_form(*d - 1)};
    }
    if (!b || !is_const(b->lo) || !is_const(b->hi)) {
      // Only the remainder is bounded without knowing the dividend.
      if (e.kind() == ExprKind::FloorMod) return Bound{constant_form(0), constant_form(*d - 1)};
      return std::nullopt;
    }
    int64_t lo = b->lo.constant, hi = b->hi.constant;
    bool truncating = truncating_kind(e);
    if (truncating && lo < 0) {
      // Truncating division is monotonic; truncating remainder takes the sign of the dividend.
      if (!is_mod) return Bound{constant_form(lo / *d), constant_form(hi / *d)};
      return Bound{constant_form(-(*d - 1)), constant_form(hi < 0 ? 0 : *d - 1)};
    }
    if (!is_mod) return Bound{constant_form(floordiv_i(lo, *d)), constant_form(floordiv_i(hi, *d))};
    if (floordiv_i(lo, *d) == floordiv_i(hi, *d))
      return Bound{constant_form(lo - floordiv_i(lo, *d) * *d), constant_form(hi - floordiv_i(hi, *d) * *d)};
    return Bound{constant_form(0), constant_form(*d - 1)};
  }

  std::optional<Bound> eval_min_max(const Expr& e, const Expr& a_e, const Expr& b_e, bool is_min) {
    if (!varies(e)) return fixed(e);
    std::optional<Bound> a = eval(a_e), b = eval(b_e);
    if (!a || !b) return std::nullopt;
    // min(a, b) lies in [min(a.lo, b.lo), min(a.hi, b.hi)]; either upper bound
    // alone is still an upper bound, so only the lower one must be ordered.
    // max is the mirror image.
    std::optional<Affine> lo, hi;
    if (is_min) {
      lo = pick(a->lo, b->lo, true);
      hi = pick(a->hi, b->hi, true);
      if (!hi) hi = a->hi;
    } else {
      lo = pick(a->lo, b->lo, false);
      hi = pick(a->hi, b->hi, false);
      if (!lo) lo = a->lo;
    }
    if (!lo || !hi) return std::nullopt;
    return Bound{*lo, *hi};
  }
};

// ---------------------------------------------------------------------------
// Collecting accesses.

// One access's view of one dimension: its bound, and the index itself when it
// names a single element that does not vary.
struct DimAccess {
  Expr point;
  std::optional<Bound> bound;
  DataType dtype;
};

struct BufferAccesses {
  Buffer buffer;
  std::vector<std::vector<DimAccess>> accesses;
};

class AccessCollector : public StmtVisitor {
 public:
  BoundEvaluator ev;
  std::vector<BufferAccesses> reads, writes;
  std::unordered_set<const Object*> local_buffers;
  const Object* only = nullptr;  // non-null: the accesses of this buffer alone

  void visit_BufferLoad(const BufferLoadNode* op, const Expr&) override {
    if (wanted(op->buffer)) record(reads, op->buffer, index_accesses(op->indices));
    for (const Expr& i : op->indices) visit(i);
  }

  void visit_BufferStore(const BufferStoreNode* op, const Stmt&) override {
    if (wanted(op->buffer)) record(writes, op->buffer, index_accesses(op->indices));
    visit(op->value);
    for (const Expr& i : op->indices) visit(i);
  }

  void visit_For(const ForNode* op, const Stmt&) override {
    visit(op->min);
    visit(op->extent);
    ev.vars[op->loop_var.get()] = ev.range_bound(op->min, op->extent);
    visit(op->body);
  }

  void visit_LetStmt(const LetStmtNode* op, const Stmt&) override {
    visit(op->value);
    ev.vars[op->var.get()] = ev.eval(op->value);
    visit(op->body);
  }

  void visit_Let(const LetNode* op, const Expr&) override {
    visit(op->value);
    ev.vars[op->var.get()] = ev.eval(op->value);
    visit(op->body);
  }

  void visit_Block(const BlockNode* op, const Stmt&) override {
    for (const Buffer& b : op->alloc_buffers) local_buffers.insert(b.get());
    if (op->init.defined()) visit(op->init);
    visit(op->body);
  }

  // A nested block is known by its recorded regions.
  void visit_BlockRealize(const BlockRealizeNode* op, const Stmt&) override {
    for (const Expr& v : op->iter_values) visit(v);
    visit(op->predicate);
    const auto* blk = op->block.as<BlockNode>();
    std::vector<std::pair<Var, Expr>> bind;
    for (size_t i = 0; i < blk->iter_vars.size(); ++i) bind.emplace_back(blk->iter_vars[i].var(), op->iter_values[i]);
    std::unordered_set<const Object*> inner_local;
    for (const Buffer& b : blk->alloc_buffers) inner_local.insert(b.get());
    auto add_regions = [&](std::vector<BufferAccesses>& out, const std::vector<BufferRegion>& regions) {
      for (const BufferRegion& r : regions) {
        if (inner_local.count(r.buffer().get()) || !wanted(r.buffer())) continue;
        std::vector<DimAccess> dims;
        for (const Range& rg : r->region) dims.push_back(region_access(rg, bind));
        record(out, r.buffer(), std::move(dims));
      }
    };
    add_regions(reads, blk->reads);
    add_regions(writes, blk->writes);
  }

 private:
  bool wanted(const Buffer& b) const { return !only || b.get() == only; }

  std::vector<DimAccess> index_accesses(const std::vector<Expr>& indices) {
    std::vector<DimAccess> dims;
    for (const Expr& i : indices) {
      DimAccess d;
      d.dtype = i.dtype().element_of();
      d.bound = ev.eval(i);
      if (i.dtype().is_scalar() && !ev.varies(i)) d.point = i;
      dims.push_back(std::move(d));
    }
    return dims;
  }

  DimAccess region_access(const Range& r, const std::vector<std::pair<Var, Expr>>& bind) {
    Expr min = substitute(r->min, bind);
    Expr extent = substitute(r->extent, bind);
    DimAccess d;
    d.dtype = min.dtype();
    d.bound = ev.range_bound(min, extent);
    if (is_one(extent) && !ev.varies(min)) d.point = min;
    return d;
  }

  static void record(std::vector<BufferAccesses>& list, const Buffer& buffer, std::vector<DimAccess> dims) {
    for (BufferAccesses& a : list) {
      if (a.buffer.same_as(buffer)) {
        a.accesses.push_back(std::move(dims));
        return;
      }
    }
    list.push_back(BufferAccesses{buffer, {std::move(dims)}});
  }
};

// ---------------------------------------------------------------------------
// Turning accesses into regions.

Range whole_dimension(const Buffer& b, size_t d) { return Range::from_extent(b.shape()[d]); }

Range merge_dimension(const BufferAccesses& acc, size_t d) {
  const DimAccess& first = acc.accesses[0][d];
  bool same_point = first.point.defined();
  for (const auto& a : acc.accesses) same_point = same_point && a[d].point.defined() && structural_equal(a[d].point, first.point);
  if (same_point) return Range(first.point, make_const(first.point.dtype(), 1));

  std::optional<Bound> hull_bound = first.bound;
  for (const auto& a : acc.accesses) {
    if (!hull_bound || !a[d].bound) return whole_dimension(acc.buffer, d);
    hull_bound = hull(*hull_bound, *a[d].bound);
  }
  if (!hull_bound) return whole_dimension(acc.buffer, d);
  std::optional<Affine> extent = add_scaled(hull_bound->hi, hull_bound->lo, -1);
  if (!extent) return whole_dimension(acc.buffer, d);
  extent->constant += 1;
  return Range(to_expr(hull_bound->lo, first.dtype), to_expr(*extent, first.dtype));
}

std::vector<BufferRegion> to_regions(const std::vector<BufferAccesses>& list,
                                     const std::unordered_set<const Object*>& skip) {
  std::vector<BufferRegion> out;
  for (const BufferAccesses& acc : list) {
    if (skip.count(acc.buffer.get())) continue;
    std::vector<Range> region;
    size_t ndim = acc.accesses[0].size();
    bool consistent = ndim == static_cast<size_t>(acc.buffer.ndim());
    for (const auto& a : acc.accesses) consistent = consistent && a.size() == ndim;
    if (!consistent) {
      // A flattened access to a multi-dimensional buffer: say "all of it".
      out.push_back(BufferRegion::full(acc.buffer));
      continue;
    }
    for (size_t d = 0; d < ndim; ++d) region.push_back(merge_dimension(acc, d));
    out.push_back(BufferRegion(acc.buffer, std::move(region)));
  }
  return out;
}

void relax(AccessCollector& c, const std::vector<IterVar>& relaxed) {
  // Domains first, then bind: a domain may not refer to a variable relaxed with it.
  std::vector<std::optional<Bound>> bounds;
  for (const IterVar& iv : relaxed) bounds.push_back(c.ev.range_bound(iv.dom()->min, iv.dom()->extent));
  for (size_t i = 0; i < relaxed.size(); ++i) c.ev.vars[relaxed[i].var().get()] = bounds[i];
}

}  // namespace

AccessRegions detect_access_regions(const Stmt& stmt, const std::vector<IterVar>& relaxed, const Buffer* only) {
  AccessCollector c;
  if (only) c.only = only->get();
  relax(c, relaxed);
  c.visit(stmt);
  return {to_regions(c.reads, c.local_buffers), to_regions(c.writes, c.local_buffers)};
}

AccessRegions block_access_regions(const Stmt& block) {
  const auto* blk = block.as<BlockNode>();
  KILN_ICHECK(blk) << "block_access_regions of a " << (block.defined() ? stmt_kind_name(block.kind()) : "null");
  AccessCollector c;
  c.visit(block);
  std::unordered_set<const Object*> skip_reads = c.local_buffers;
  if (blk->init.defined()) {
    for (const BufferAccesses& w : c.writes) skip_reads.insert(w.buffer.get());
  }
  return {to_regions(c.reads, skip_reads), to_regions(c.writes, c.local_buffers)};
}

// ---------------------------------------------------------------------------
// NestRegions.

struct NestRegions::Impl {
  struct Loop {
    const ForNode* node;
    int64_t lo, hi;  // inclusive
  };
  struct Access {
    std::vector<int> chain;  // the loops around it, outermost first (indices into loops)
    std::vector<Bound> dims;  // every loop variable fixed
    // Per dimension: the deepest position in `chain` whose variable a fixed
    // subexpression of the bound uses (-1: none). Relaxing that loop would
    // need interval arithmetic on the subexpression, which this skips.
    std::vector<int> opaque_depth;
  };

  const Buffer buf;
  const bool writes;
  bool understood = true;
  std::vector<Loop> loops;
  std::vector<Access> accesses;
  BoundEvaluator ev;  // binds nothing: every variable is fixed

  Impl(const Buffer& b, bool w) : buf(b), writes(w) {}

  void walk(const Stmt& s, std::vector<int>& chain) {
    if (!understood) return;
    switch (s.kind()) {
      case StmtKind::For: {
        const auto* f = s.as<ForNode>();
        const int64_t* min = as_const_int(f->min);
        const int64_t* ext = as_const_int(f->extent);
        if (!min || !ext) {
          understood = false;
          return;
        }
        loops.push_back(Loop{f, *min, *min + *ext - 1});
        chain.push_back(static_cast<int>(loops.size()) - 1);
        walk(f->body, chain);
        chain.pop_back();
        return;
      }
      case StmtKind::SeqStmt:
        for (const Stmt& c : s.as<SeqStmtNode>()->seq) walk(c, chain);
        return;
      case StmtKind::BlockRealize: add_block(s.as<BlockRealizeNode>(), chain); return;
      default: understood = false;
    }
  }

  void add_block(const BlockRealizeNode* rz, const std::vector<int>& chain) {
    const auto* blk = rz->block.as<BlockNode>();
    for (const Buffer& b : blk->alloc_buffers)
      if (b.same_as(buf)) return;
    // detect_access_regions would also count loads in the bindings.
    auto loads = [](const Expr& e) {
      bool found = false;
      if (!e.defined()) return found;
      post_order_visit(e, [&](const Expr& x) { found = found || x.kind() == ExprKind::BufferLoad; });
      return found;
    };
    for (const Expr& v : rz->iter_values) understood = understood && !loads(v);
    understood = understood && !loads(rz->predicate);
    std::vector<std::pair<Var, Expr>> bind;
    for (size_t i = 0; i < blk->iter_vars.size(); ++i) bind.emplace_back(blk->iter_vars[i].var(), rz->iter_values[i]);
    for (const BufferRegion& r : writes ? blk->writes : blk->reads) {
      if (!r.buffer().same_as(buf)) continue;
      if (r->region.size() != static_cast<size_t>(buf.ndim())) {
        understood = false;
        return;
      }
      Access a{chain, {}, {}};
      for (const Range& rg : r->region) {
        std::optional<Bound> b = ev.range_bound(substitute(rg->min, bind), substitute(rg->extent, bind));
        if (!b) {
          understood = false;
          return;
        }
        a.opaque_depth.push_back(std::max(opaque_depth(b->lo, chain), opaque_depth(b->hi, chain)));
        a.dims.push_back(std::move(*b));
      }
      accesses.push_back(std::move(a));
    }
  }

  int opaque_depth(const Affine& a, const std::vector<int>& chain) const {
    int depth = -1;
    for (const auto& [atom, k] : a.terms) {
      if (atom.kind() == ExprKind::Var) continue;
      for (int p = static_cast<int>(chain.size()) - 1; p > depth; --p)
        if (uses_var(atom, loops[chain[p]].node->loop_var)) depth = p;
    }
    return depth;
  }

  // `a` with the loops chain[from..] ranging over their bounds: its least
  // (or greatest) value.
  Affine relax(const Affine& a, const std::vector<int>& chain, size_t from, bool want_min) const {
    Affine out = constant_form(a.constant);
    for (const auto& [atom, k] : a.terms) {
      const Loop* l = nullptr;
      if (atom.kind() == ExprKind::Var)
        for (size_t p = from; p < chain.size() && !l; ++p)
          if (loops[chain[p]].node->loop_var.get() == atom.get()) l = &loops[chain[p]];
      if (!l) out.terms.emplace_back(atom, k);  // the terms of `a` are distinct already
      else out.constant += k * ((k > 0) == want_min ? l->lo : l->hi);
    }
    return out;
  }
};

NestRegions::NestRegions(const Stmt& root, const Buffer& buf, bool writes)
    : impl_(std::make_unique<Impl>(buf, writes)) {
  std::vector<int> chain;
  impl_->walk(root, chain);
}
NestRegions::~NestRegions() = default;
NestRegions::NestRegions(NestRegions&&) noexcept = default;
NestRegions& NestRegions::operator=(NestRegions&&) noexcept = default;

std::optional<std::vector<int64_t>> NestRegions::constant_extents(const ForNode* loop) const {
  const Impl& m = *impl_;
  if (!m.understood) return std::nullopt;
  std::vector<std::optional<Bound>> merged(static_cast<size_t>(m.buf.ndim()));
  bool any = false;
  for (const Impl::Access& a : m.accesses) {
    size_t p = 0;
    while (p < a.chain.size() && m.loops[a.chain[p]].node != loop) ++p;
    if (p == a.chain.size()) continue;
    any = true;
    for (size_t d = 0; d < a.dims.size(); ++d) {
      if (a.opaque_depth[d] > static_cast<int>(p)) return std::nullopt;
      Bound b{m.relax(a.dims[d].lo, a.chain, p + 1, true), m.relax(a.dims[d].hi, a.chain, p + 1, false)};
      if (!merged[d]) merged[d] = std::move(b);
      else if (!(merged[d] = hull(*merged[d], b))) return std::nullopt;
    }
  }
  if (!any) return std::nullopt;
  std::vector<int64_t> extents;
  for (const std::optional<Bound>& b : merged) {
    std::optional<int64_t> span = const_diff(b->hi, b->lo);
    if (!span) return std::nullopt;
    extents.push_back(*span + 1);
  }
  return extents;
}

}  // namespace kiln
