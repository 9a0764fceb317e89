// Random integer expressions against the simplifier. For each expression e
// over a few bounded variables:
//  (a) simplify(e) has e's value for random assignments within the bounds
//      (checked by a small evaluator written here, independent of kiln's);
//  (b) simplifying the result again, with a fresh analyzer, changes nothing
//      structurally (idempotence) ...
//  (c) ... and returns the very same node.
// Divisors are non-zero constants, constants and ranges are small, and an
// expression whose evaluation leaves int32 is skipped: the simplifier may
// assume that signed arithmetic does not overflow.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <random>

#include "core/arith/analyzer.h"
#include "core/structural.h"
#include "core/printer.h"

namespace kiln {
namespace {

struct VarSpec {
  Var var;
  int64_t lo, hi;  // inclusive; bound into the analyzer unless `free`
  bool free;
};

using Env = std::vector<std::pair<const Object*, int64_t>>;

int64_t floordiv_ref(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// Evaluates integer and boolean expressions exactly (int64); nullopt when a
// value leaves int32 (`strict`) or a division by zero happens.
class Evaluator {
 public:
  Evaluator(const Env& env, bool strict, int64_t lane = 0) : env_(env), strict_(strict), lane_(lane) {}

  std::optional<int64_t> eval(const Expr& e) {
    std::optional<int64_t> v = compute(e);
    if (v && strict_ && (*v < INT32_MIN || *v > INT32_MAX)) return std::nullopt;
    return v;
  }

 private:
  std::optional<int64_t> compute(const Expr& e) {
    switch (e.kind()) {
      case ExprKind::IntImm: return e.as<IntImmNode>()->value;
      case ExprKind::Var: {
        for (const auto& [v, val] : env_)
          if (v == e.get()) return val;
        for (const auto& [v, val] : lets_)
          if (v == e.get()) return val;
        ADD_FAILURE() << "unbound variable " << to_string(e);
        return std::nullopt;
      }
      case ExprKind::Not: {
        auto a = eval(e.as<NotNode>()->a);
        if (!a) return a;
        return *a == 0;
      }
      case ExprKind::Select: {
        const auto* n = e.as<SelectNode>();
        auto c = eval(n->cond);
        auto t = eval(n->true_value);
        auto f = eval(n->false_value);
        if (!c || !t || !f) return std::nullopt;
        return *c ? *t : *f;
      }
      case ExprKind::Cast: {
        auto v = eval(e.as<CastNode>()->value);
        if (!v) return v;
        if (e.dtype().is_bool()) return *v != 0;
        return v;
      }
      case ExprKind::Ramp: {
        const auto* n = e.as<RampNode>();
        auto base = eval(n->base);
        auto stride = eval(n->stride);
        if (!base || !stride) return std::nullopt;
        return *base + lane_ * *stride;
      }
      case ExprKind::Broadcast: return eval(e.as<BroadcastNode>()->value);
      case ExprKind::Let: {
        const auto* n = e.as<LetNode>();
        auto v = eval(n->value);
        if (!v) return v;
        lets_.emplace_back(n->var.get(), *v);
        auto r = eval(n->body);
        lets_.pop_back();
        return r;
      }
      default: break;
    }
#define X(Name, Sym) \
  if (const auto* n = e.as<Name##Node>()) return binary(ExprKind::Name, n->a, n->b);
    KILN_FOR_EACH_BINARY_EXPR(X)
    KILN_FOR_EACH_CMP_EXPR(X)
    KILN_FOR_EACH_LOGIC_EXPR(X)
#undef X
    ADD_FAILURE() << "cannot evaluate " << to_string(e);
    return std::nullopt;
  }

  std::optional<int64_t> binary(ExprKind k, const Expr& ea, const Expr& eb) {
    auto a = eval(ea);
    auto b = eval(eb);
    if (!a || !b) return std::nullopt;
    int64_t x = *a, y = *b;
    bool division = k == ExprKind::Div || k == ExprKind::Mod || k == ExprKind::FloorDiv || k == ExprKind::FloorMod;
    if (division && y == 0) {
      ADD_FAILURE() << "division by zero in " << to_string(eb);
      return std::nullopt;
    }
    switch (k) {
      case ExprKind::Add: return x + y;
      case ExprKind::Sub: return x - y;
      case ExprKind::Mul: return x * y;
      case ExprKind::Div: return x / y;
      case ExprKind::Mod: return x % y;
      case ExprKind::FloorDiv: return floordiv_ref(x, y);
      case ExprKind::FloorMod: return x - floordiv_ref(x, y) * y;
      case ExprKind::Min: return std::min(x, y);
      case ExprKind::Max: return std::max(x, y);
      case ExprKind::EQ: return x == y;
      case ExprKind::NE: return x != y;
      case ExprKind::LT: return x < y;
      case ExprKind::LE: return x <= y;
      case ExprKind::GT: return x > y;
      case ExprKind::GE: return x >= y;
      case ExprKind::And: return x && y;
      case ExprKind::Or: return x || y;
      default: return std::nullopt;
    }
  }

  const Env& env_;
  bool strict_;
  int64_t lane_;
  std::vector<std::pair<const Object*, int64_t>> lets_;
};

// Builds expressions without the constructors' folding, so the simplifier
// sees constant operands too.
class Generator {
 public:
  Generator(uint64_t seed, const std::vector<VarSpec>& vars) : rng_(seed), vars_(vars) {}

  Expr int_expr(int depth) {
    if (depth == 0 || pick(5) == 0) return leaf();
    switch (pick(15)) {
      case 0:
      case 1: return bin(ExprKind::Add, int_expr(depth - 1), int_expr(depth - 1));
      case 2:
      case 3: return bin(ExprKind::Sub, int_expr(depth - 1), int_expr(depth - 1));
      case 4: return bin(ExprKind::Mul, int_expr(depth - 1), constant());
      case 5: return bin(ExprKind::Mul, int_expr(depth - 1), int_expr(depth - 2 < 0 ? 0 : depth - 2));
      case 6: return bin(ExprKind::FloorDiv, int_expr(depth - 1), divisor());
      case 7: return bin(ExprKind::FloorMod, int_expr(depth - 1), divisor());
      case 8: return bin(pick(2) ? ExprKind::Div : ExprKind::Mod, int_expr(depth - 1), divisor());
      case 9: return bin(ExprKind::Min, int_expr(depth - 1), int_expr(depth - 1));
      case 10: return bin(ExprKind::Max, int_expr(depth - 1), int_expr(depth - 1));
      case 11: {
        auto n = std::make_shared<SelectNode>();
        n->dtype = DataType::Int32();
        n->cond = bool_expr(depth - 1);
        n->true_value = int_expr(depth - 1);
        n->false_value = int_expr(depth - 1);
        return Expr(std::move(n));
      }
      case 12: {
        // A select comparing one of its own branches: min and max in
        // disguise, with constants near the edge.
        static const ExprKind kCmp[] = {ExprKind::LT, ExprKind::LE, ExprKind::GT, ExprKind::GE};
        Expr e = pick(2) ? Expr(vars_[pick(static_cast<int>(vars_.size()))].var) : int_expr(depth - 1);
        int c = pick(9) - 2;
        Expr other = pick(3) ? Expr(c + pick(3) - 1) : int_expr(depth - 1);
        auto n = std::make_shared<SelectNode>();
        n->dtype = DataType::Int32();
        n->cond = bin(kCmp[pick(4)], e, pick(3) ? Expr(c) : other);
        bool swap = pick(2);
        n->true_value = swap ? other : e;
        n->false_value = swap ? e : other;
        return Expr(std::move(n));
      }
      case 13: {
        // let v = value in body, with v usable in body's leaves.
        Var v("v" + std::to_string(lets_.size()));
        Expr value = int_expr(depth - 1);
        lets_.push_back(v);
        Expr body = int_expr(depth - 1);
        lets_.pop_back();
        auto n = std::make_shared<LetNode>();
        n->dtype = body.dtype();
        n->var = v;
        n->value = value;
        n->body = body;
        return Expr(std::move(n));
      }
      default: {
        auto n = std::make_shared<CastNode>();
        n->dtype = DataType::Int32();
        n->value = bool_expr(depth - 1);
        return Expr(std::move(n));
      }
    }
  }

  Expr bool_expr(int depth) {
    static const ExprKind kCmp[] = {ExprKind::LT, ExprKind::LE, ExprKind::GT,
                                    ExprKind::GE, ExprKind::EQ, ExprKind::NE};
    int r = pick(depth <= 0 ? 6 : 12);
    if (r < 6) {
      int d = depth <= 0 ? 0 : depth - 1;
      return bin(kCmp[r], int_expr(d), pick(2) ? constant() : int_expr(d));
    }
    if (r >= 9) {
      // Two comparisons of one expression with nearby constants, which the
      // rules merge or decide; the edge cases are where they go wrong.
      Expr e = pick(2) ? Expr(vars_[pick(static_cast<int>(vars_.size()))].var) : int_expr(depth - 1);
      int c = pick(9) - 2;
      Expr a = bin(kCmp[pick(6)], e, Expr(c));
      Expr b = bin(kCmp[pick(6)], e, Expr(c + pick(3) - 1));
      return bin(pick(2) ? ExprKind::And : ExprKind::Or, a, b);
    }
    if (r == 6) {
      auto n = std::make_shared<NotNode>();
      n->dtype = DataType::Bool();
      n->a = bool_expr(depth - 1);
      return Expr(std::move(n));
    }
    return bin(r == 7 ? ExprKind::And : ExprKind::Or, bool_expr(depth - 1), bool_expr(depth - 1));
  }

  // int32x4 expressions over ramps and broadcasts of scalar expressions.
  Expr vector_expr(int depth) {
    if (depth == 0 || pick(4) == 0) {
      if (pick(2)) return broadcast(int_expr(1), kLanes);
      return ramp(int_expr(1), pick(2) ? constant() : int_expr(1), kLanes);
    }
    switch (pick(9)) {
      case 0:
      case 1: return bin(ExprKind::Add, vector_expr(depth - 1), vector_expr(depth - 1));
      case 2: return bin(ExprKind::Sub, vector_expr(depth - 1), vector_expr(depth - 1));
      case 3: return bin(ExprKind::Mul, vector_expr(depth - 1), broadcast(constant(), kLanes));
      case 4: return bin(ExprKind::FloorDiv, vector_expr(depth - 1), broadcast(divisor(), kLanes));
      case 5: return bin(ExprKind::FloorMod, vector_expr(depth - 1), broadcast(divisor(), kLanes));
      case 6: return bin(pick(2) ? ExprKind::Min : ExprKind::Max, vector_expr(depth - 1), vector_expr(depth - 1));
      default: {
        auto n = std::make_shared<SelectNode>();
        n->dtype = DataType::Int(32, kLanes);
        n->cond = bin(pick(2) ? ExprKind::LT : ExprKind::EQ, vector_expr(depth - 1), vector_expr(depth - 1));
        n->true_value = vector_expr(depth - 1);
        n->false_value = vector_expr(depth - 1);
        return Expr(std::move(n));
      }
    }
  }

  // Index arithmetic as splits and fuses produce it: sums of strided
  // variables, divided and reduced by powers of two and small constants.
  Expr index_expr(int depth) {
    static const int kStrides[] = {1, 2, 3, 4, 8, 16, -1};
    static const int kDivisors[] = {2, 3, 4, 8, 16};
    if (depth == 0 || pick(4) == 0) {
      Expr v = vars_[pick(static_cast<int>(vars_.size()))].var;
      int r = pick(6);
      if (r < 3) return bin(ExprKind::Mul, v, Expr(kStrides[pick(7)]));
      if (r < 5) return v;
      return Expr(pick(33) - 8);
    }
    switch (pick(10)) {
      case 0:
      case 1:
      case 2: return bin(ExprKind::Add, index_expr(depth - 1), index_expr(depth - 1));
      case 3: return bin(ExprKind::Sub, index_expr(depth - 1), index_expr(depth - 1));
      case 4: return bin(ExprKind::Mul, index_expr(depth - 1), Expr(kStrides[pick(7)]));
      case 5:
      case 6: return bin(ExprKind::FloorDiv, index_expr(depth - 1), Expr(kDivisors[pick(5)]));
      case 7:
      case 8: return bin(ExprKind::FloorMod, index_expr(depth - 1), Expr(kDivisors[pick(5)]));
      default: return bin(pick(2) ? ExprKind::Min : ExprKind::Max, index_expr(depth - 1), index_expr(depth - 1));
    }
  }

  static constexpr int kLanes = 4;

  int pick(int n) { return static_cast<int>(rng_() % static_cast<uint64_t>(n)); }

 private:
  static Expr bin(ExprKind k, Expr a, Expr b) { return make_binary(k, std::move(a), std::move(b)); }
  Expr leaf() {
    int r = pick(10);
    if (r < 2 && !lets_.empty()) return lets_[pick(static_cast<int>(lets_.size()))];
    return r < 7 ? Expr(vars_[pick(static_cast<int>(vars_.size()))].var) : constant();
  }
  Expr constant() { return Expr(pick(21) - 10); }
  Expr divisor() {
    static const int kDivisors[] = {1, 2, 3, 4, 5, 8, 16, -1, -2, -3, 7, 6};
    return Expr(kDivisors[pick(12)]);
  }

  std::mt19937_64 rng_;
  std::vector<Var> lets_;
  const std::vector<VarSpec>& vars_;
};

// KILN_FUZZ_SEED, KILN_FUZZ_ITERS and KILN_FUZZ_DEPTH override the defaults
// for longer runs by hand (KILN_FUZZ_SHOW prints the first inputs and their
// simplified forms); the suite runs the fixed defaults.
int64_t env_or(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  return v ? std::atoll(v) : fallback;
}

// Checks (a), (b) and (c) for `iters` expressions from make(); returns the
// number of assignments checked and of expressions changed.
template <typename Make>
void fuzz(const std::vector<VarSpec>& vars, uint64_t seed, int64_t iters, const Make& make) {
  auto bind_all = [&](arith::Analyzer& ana) {
    for (const auto& v : vars)
      if (!v.free) ana.bind(v.var, arith::IntBound{v.lo, v.hi});
  };
  arith::Analyzer ana;
  bind_all(ana);
  std::mt19937_64 values(seed + 1);
  int64_t checked = 0, changed = 0;
  int failures = 0;
  for (int64_t iter = 0; iter < iters && failures < 10; ++iter) {
    Expr e = make(iter);
    Expr s = ana.simplify(e);
    if (!s.same_as(e)) ++changed;
    if (std::getenv("KILN_FUZZ_SHOW") && iter < 40) std::printf("%s\n  -> %s\n", to_string(e).c_str(), to_string(s).c_str());

    // (a) same value.
    for (int trial = 0; trial < 12; ++trial) {
      Env env;
      for (const auto& v : vars) {
        int64_t span = v.hi - v.lo + 1;
        int64_t val = trial == 0 ? v.lo : trial == 1 ? v.hi : v.lo + static_cast<int64_t>(values() % span);
        env.emplace_back(v.var.get(), val);
      }
      std::optional<int64_t> want = Evaluator(env, true).eval(e);
      if (!want) continue;  // leaves int32: outside the simplifier's assumptions
      ++checked;
      std::optional<int64_t> got = Evaluator(env, false).eval(s);
      if (got != want) {
        ++failures;
        std::string assignment;
        for (const auto& v : vars) {
          for (const auto& [p, val] : env)
            if (p == v.var.get()) assignment += " " + v.var.name() + "=" + std::to_string(val);
        }
        ADD_FAILURE() << "wrong value\n  input: " << to_string(e) << "\n    got: " << to_string(s)
                      << "\n  at" << assignment << ": " << (got ? std::to_string(*got) : "error") << " instead of "
                      << *want;
        break;
      }
    }

    // (b) idempotent and (c) the same node, without any memoised state.
    arith::Analyzer fresh;
    bind_all(fresh);
    Expr again = fresh.simplify(s);
    if (!structural_equal(again, s)) {
      ++failures;
      ADD_FAILURE() << "not idempotent\n  input: " << to_string(e) << "\n   once: " << to_string(s)
                    << "\n  twice: " << to_string(again);
    } else if (!again.same_as(s)) {
      ++failures;
      ADD_FAILURE() << "a new node for an already simplified expression\n  input: " << to_string(e)
                    << "\n   once: " << to_string(s);
    }
  }
  // The generator must exercise the simplifier, not just skip.
  EXPECT_GT(checked, iters * 5);
  EXPECT_GT(changed, iters / 2);
}

TEST(SimplifyFuzz, RandomIntegerExpressions) {
  const uint64_t seed = static_cast<uint64_t>(env_or("KILN_FUZZ_SEED", 20240611));
  const int64_t iters = env_or("KILN_FUZZ_ITERS", 6000);
  const int depth = static_cast<int>(env_or("KILN_FUZZ_DEPTH", 4));
  std::vector<VarSpec> vars = {
      {Var("x"), 0, 15, false},
      {Var("y"), -8, 7, false},
      {Var("z"), 1, 4, false},
      {Var("w"), -40, 40, true},
  };
  Generator gen(seed, vars);
  fuzz(vars, seed, iters, [&](int64_t iter) { return iter % 5 == 4 ? gen.bool_expr(depth) : gen.int_expr(depth); });
}

TEST(SimplifyFuzz, RandomIndexExpressions) {
  const uint64_t seed = static_cast<uint64_t>(env_or("KILN_FUZZ_SEED", 31337));
  const int64_t iters = env_or("KILN_FUZZ_ITERS", 6000);
  const int depth = static_cast<int>(env_or("KILN_FUZZ_DEPTH", 4));
  std::vector<VarSpec> vars = {
      {Var("a"), 0, 3, false},  {Var("b"), 0, 7, false},    {Var("c"), 0, 15, false},
      {Var("d"), 1, 4, false},  {Var("e"), -4, 3, false},   {Var("w"), -40, 40, true},
  };
  Generator gen(seed, vars);
  fuzz(vars, seed, iters, [&](int64_t) { return gen.index_expr(depth); });
}

TEST(SimplifyFuzz, RandomVectorExpressions) {
  std::vector<VarSpec> vars = {
      {Var("x"), 0, 15, false},
      {Var("y"), -8, 7, false},
      {Var("w"), -40, 40, true},
  };
  arith::Analyzer ana;
  for (const auto& v : vars)
    if (!v.free) ana.bind(v.var, arith::IntBound{v.lo, v.hi});
  Generator gen(static_cast<uint64_t>(env_or("KILN_FUZZ_SEED", 99)), vars);
  std::mt19937_64 values(3);
  const int64_t iters = env_or("KILN_FUZZ_ITERS", 1500);
  int checked = 0, failures = 0;
  for (int64_t iter = 0; iter < iters && failures < 10; ++iter) {
    Expr e = gen.vector_expr(3);
    Expr s = ana.simplify(e);
    if (std::getenv("KILN_FUZZ_SHOW") && iter < 25) std::printf("%s\n  -> %s\n", to_string(e).c_str(), to_string(s).c_str());
    ASSERT_EQ(s.dtype(), e.dtype()) << to_string(e);
    for (int trial = 0; trial < 6; ++trial) {
      Env env;
      for (const auto& v : vars) env.emplace_back(v.var.get(), v.lo + static_cast<int64_t>(values() % (v.hi - v.lo + 1)));
      for (int64_t lane = 0; lane < Generator::kLanes; ++lane) {
        std::optional<int64_t> want = Evaluator(env, true, lane).eval(e);
        if (!want) continue;
        ++checked;
        std::optional<int64_t> got = Evaluator(env, false, lane).eval(s);
        if (got != want) {
          ++failures;
          ADD_FAILURE() << "wrong value in lane " << lane << "\n  input: " << to_string(e)
                        << "\n    got: " << to_string(s);
          trial = 6;
          break;
        }
      }
    }
    arith::Analyzer fresh;
    for (const auto& v : vars)
      if (!v.free) fresh.bind(v.var, arith::IntBound{v.lo, v.hi});
    Expr again = fresh.simplify(s);
    if (!again.same_as(s)) {
      ++failures;
      ADD_FAILURE() << "not a fixed point\n  input: " << to_string(e) << "\n   once: " << to_string(s)
                    << "\n  twice: " << to_string(again);
    }
  }
  EXPECT_GT(checked, iters * 10);
}

}  // namespace
}  // namespace kiln
