#include "core/arith/rewriter.h"

#include "core/structural.h"

namespace kiln::arith {
namespace {

// How many rewrites may chain on one node before the rules are declared
// cyclic (a bug in a rule, reported rather than overflowing the stack).
constexpr int kMaxRewriteDepth = 2000;
constexpr size_t kMaxCache = 200000;

}  // namespace

bool fits_type(DataType t, __int128 v) {
  if (!t.is_integral()) return false;
  if (t.is_bool()) return v == 0 || v == 1;
  int bits = t.bits();
  if (t.is_int()) {
    __int128 half = __int128(1) << (bits - 1);
    return v >= -half && v < half;
  }
  return v >= 0 && v < (__int128(1) << bits);
}

Expr fold_constants(const Expr& e) {
  auto [a, b] = binary_operands(e);
  if (!a) return Expr();
  const int64_t* ia = as_const_int(*a);
  const int64_t* ib = as_const_int(*b);
  if (ia && ib) {
    DataType t = a->dtype();
    ExprKind k = e.kind();
    bool ring = k == ExprKind::Add || k == ExprKind::Sub || k == ExprKind::Mul || k == ExprKind::EQ ||
                k == ExprKind::NE || k == ExprKind::And || k == ExprKind::Or;
    // uint64 immediates above 2^63 are stored negative: only the ring
    // operations and equality see them right.
    if (t.is_uint() && t.bits() >= 64 && (*ia < 0 || *ib < 0) && !ring) return Expr();
    bool division = k == ExprKind::Div || k == ExprKind::Mod || k == ExprKind::FloorDiv || k == ExprKind::FloorMod;
    if (division && (*ib == 0 || (*ib == -1 && *ia == IntBound::kNegInf))) return Expr();
  } else if (!(as_const_float(*a) && as_const_float(*b))) {
    return Expr();
  }
  Expr r = pattern::build_binary(e.kind(), *a, *b);
  if (r.as<IntImmNode>() || r.as<FloatImmNode>()) return r;
  return Expr();
}

Expr Rewriter::mutate(const Expr& e) {
  switch (e.kind()) {
    case ExprKind::IntImm:
    case ExprKind::FloatImm:
    case ExprKind::StringImm: return e;
    case ExprKind::Var: return known_constant(e);
    default: break;
  }
  auto it = memo_.by_node.find(e.get());
  if (it != memo_.by_node.end()) return it->second.second;
  if (memo_.by_node.size() > kMaxCache) memo_ = {};
  // Small subtrees are not worth looking up: simplifying one costs little
  // more than the lookup.
  const NodeHashes::Hash hash = hashes_(e);
  const bool large = hash.nodes >= NodeHashes::kMemoSize;
  Expr r = large ? twin_result(e, hash.value) : Expr();
  if (!r.defined()) {
    r = known_constant(ExprMutator::mutate(e));
    if (large) memo_.by_structure.try_emplace(hash.value, e, r);
  }
  memo_.by_node.emplace(e.get(), std::make_pair(e, r));
  if (!r.same_as(e)) memo_.by_node.emplace(r.get(), std::make_pair(r, r));
  return r;
}

Expr Rewriter::twin_result(const Expr& e, uint64_t hash) {
  auto it = memo_.by_structure.find(hash);
  if (it == memo_.by_structure.end()) return Expr();
  const auto& [twin, result] = it->second;
  if (!structural_equal(twin, e)) return Expr();
  return result.same_as(twin) ? e : result;
}

Expr Rewriter::known_constant(const Expr& e) {
  DataType t = e.dtype();
  if (!t.is_integral() || e.as<IntImmNode>() || e.as<BroadcastNode>()) return e;
  IntBound b = bound(e);
  return b.is_const() ? const_like(t, b.min) : e;
}

Expr Rewriter::resimplify(const Expr& r) {
  struct Depth {
    int& depth;
    explicit Depth(int& d) : depth(d) { ++depth; }
    ~Depth() { --depth; }
  } guard(rewrite_depth_);
  KILN_ICHECK(rewrite_depth_ < kMaxRewriteDepth) << "simplifier rules do not terminate";
  return mutate(r);
}

IntBound Rewriter::diff_bound(const Expr& a, const Expr& b) {
  IntBound r = bound_add(bound(a), bound_scale(bound(b), -1));
  std::optional<LinearForm> la = linear_form(a);
  if (!la) return r;
  std::optional<LinearForm> lb = linear_form(b);
  if (!lb) return r;
  std::optional<LinearForm> d = linear_combine(*la, *lb, -1);
  if (!d) return r;
  IntBound l = linear_bound(*d, bounds_);
  IntBound both{std::max(r.min, l.min), std::min(r.max, l.max)};
  return both.min <= both.max ? both : r;
}

}  // namespace kiln::arith
