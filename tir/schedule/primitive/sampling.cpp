// sample_perfect_tile, sample_tile, sample_categorical: random choices the
// trace records.
//
// The decision is what the search mutates: replaying with another decision
// gives another candidate of the same design space. A decision handed in
// (from a trace) is checked against the instruction, never trusted.
#include "tir/schedule/primitive/replay.h"

namespace kiln {
namespace {

// What a tile sample checks first: the loop's constant extent, and n.
struct TiledLoop {
  int64_t extent;
  std::string name;  // quoted, for messages
};

TiledLoop tiled_loop(const Stmt& l, int n, const char* primitive) {
  const auto* op = l.as<ForNode>();
  const int64_t* extent = as_const_int(op->extent);
  std::string name = "'" + op->loop_var.name() + "'";
  if (!extent || *extent < 1) throw LoopShapeError(primitive, "loop " + name + " has no positive constant extent");
  if (n < 1) throw BadArgumentError(primitive, "cannot tile loop " + name + " into " + std::to_string(n));
  return {*extent, std::move(name)};
}

}  // namespace

std::vector<ExprRV> Schedule::sample_perfect_tile(LoopRV loop, int n, int64_t max_innermost,
                                                  std::optional<std::vector<int64_t>> decision) {
  const TiledLoop t = tiled_loop(loop_stmt(loop, "sample_perfect_tile"), n, "sample_perfect_tile");
  std::vector<int64_t> f;
  if (decision) {
    f = *decision;
    if (static_cast<int>(f.size()) != n || tile_product(f) != t.extent)
      throw DecisionError("sample_perfect_tile", "decision " + nlohmann::json(f).dump() + " is not " +
                                                     std::to_string(n) + " factors of loop " + t.name + "'s extent " +
                                                     std::to_string(t.extent));
    if (max_innermost > 0 && f.back() > max_innermost && n > 1)
      throw DecisionError("sample_perfect_tile", "decision " + nlohmann::json(f).dump() +
                                                     " has an innermost factor above " + std::to_string(max_innermost));
  } else {
    f = kiln::sample_perfect_tile(rand(), t.extent, n, max_innermost);
  }
  std::vector<ExprRV> out;
  for (int64_t x : f) out.push_back(make_expr_rv(x));
  record(inst::sample_perfect_tile, {loop.rv()}, TileSampleAttrs{n, max_innermost}, replay::rvs(out), TileDecision{std::move(f)});
  return out;
}

std::vector<ExprRV> Schedule::sample_tile(LoopRV loop, int n, int64_t max_innermost,
                                          std::optional<std::vector<int64_t>> decision) {
  const TiledLoop t = tiled_loop(loop_stmt(loop, "sample_tile"), n, "sample_tile");
  const std::string& name = t.name;
  const std::string extent = std::to_string(t.extent);
  std::vector<int64_t> f;
  if (decision) {
    f = *decision;
    auto bad = [&](const std::string& why) {
      return DecisionError("sample_tile", "decision " + nlohmann::json(f).dump() + " " + why);
    };
    if (static_cast<int>(f.size()) != n)
      throw bad("is not " + std::to_string(n) + " factors of loop " + name);
    const std::vector<int64_t> inner(f.begin() + 1, f.end());
    for (int64_t x : inner)
      if (x < 1) throw bad("has a factor below 1");
    if (n > 1 && f.back() > t.extent) throw bad("has an innermost factor above loop " + name + "'s extent " + extent);
    if (max_innermost > 0 && n > 1 && f.back() > max_innermost)
      throw bad("has an innermost factor above " + std::to_string(max_innermost));
    // Less than the extent again to spare: {1, 1000, 1, 6} for 1024 rows
    // would run 6000 (a draw spares less than its innermost).
    const int64_t product = tile_product(inner);
    const int64_t outer = covering_outer(t.extent, inner);
    if (product >= 2 * t.extent)
      throw bad("runs " + std::to_string(outer * product) + " iterations, twice loop " + name + "'s extent " +
                extent + " or more");
    if (f[0] == TileDecision::kInferred) f[0] = outer;
    if (f[0] != outer) throw bad("does not cover loop " + name + "'s extent " + extent + " (outermost " +
                                 std::to_string(outer) + ")");
  } else {
    f = kiln::sample_tile(rand(), t.extent, n, max_innermost);
  }
  std::vector<ExprRV> out;
  for (int64_t x : f) out.push_back(make_expr_rv(x));
  record(inst::sample_tile, {loop.rv()}, TileSampleAttrs{n, max_innermost}, replay::rvs(out), TileDecision{std::move(f)});
  return out;
}

ExprRV Schedule::sample_categorical(const std::vector<int64_t>& candidates, const std::vector<double>& probs,
                                    std::optional<int64_t> decision) {
  if (candidates.empty() || candidates.size() != probs.size())
    throw BadArgumentError("sample_categorical", std::to_string(candidates.size()) + " candidates with " +
                                                     std::to_string(probs.size()) + " probabilities");
  double total = 0;
  for (double p : probs) {
    if (!(p >= 0)) throw BadArgumentError("sample_categorical", "negative probability " + std::to_string(p));
    total += p;
  }
  if (total <= 0) throw BadArgumentError("sample_categorical", "probabilities sum to zero");
  int64_t index;
  if (decision) {
    index = *decision;
    if (index < 0 || index >= static_cast<int64_t>(candidates.size()))
      throw DecisionError("sample_categorical", "decision " + std::to_string(index) + " is not an index into " +
                                                    std::to_string(candidates.size()) + " candidates");
  } else {
    index = rand().weighted_index(probs);
  }
  ExprRV out = make_expr_rv(candidates[index]);
  record(inst::sample_categorical, {}, CategoricalAttrs{candidates, probs}, {out.rv()}, CategoricalDecision{index});
  return out;
}

namespace inst {
namespace {
// sample_perfect_tile and sample_tile replay alike; only the draw differs.
using TileDraw = std::vector<ExprRV> (Schedule::*)(LoopRV, int, int64_t, std::optional<std::vector<int64_t>>);
std::vector<RV> replay_tile_sample(TileDraw draw, const char* name, Schedule& sch, const std::vector<InstInput>& in,
                                   const InstAttrs& attrs, const Decision& decision) {
  replay::expect_inputs(in, 1);
  const TileSampleAttrs& a = replay::attrs<TileSampleAttrs>(attrs, name);
  std::optional<std::vector<int64_t>> d;
  if (const auto* t = replay::decision<TileDecision>(decision, name)) d = t->factors;
  return replay::rvs((sch.*draw)(replay::loop(in, 0), static_cast<int>(a.levels), a.max_innermost, d));
}
}  // namespace

const InstructionKind sample_perfect_tile{
    .name = "sample_perfect_tile",
    .is_sampling = true,
    .apply =
        [](Schedule& sch, const std::vector<InstInput>& in, const InstAttrs& attrs, const Decision& decision) {
          return replay_tile_sample(&Schedule::sample_perfect_tile, "sample_perfect_tile", sch, in, attrs, decision);
        },
    .read_decision = [](const nlohmann::json& j) { return read_tile_decision(j, /*outermost_may_be_null=*/false); },
    .read_attrs = attrs_from_json<TileSampleAttrs>};

const InstructionKind sample_tile{
    .name = "sample_tile",
    .is_sampling = true,
    .apply =
        [](Schedule& sch, const std::vector<InstInput>& in, const InstAttrs& attrs, const Decision& decision) {
          return replay_tile_sample(&Schedule::sample_tile, "sample_tile", sch, in, attrs, decision);
        },
    .read_decision = [](const nlohmann::json& j) { return read_tile_decision(j, /*outermost_may_be_null=*/true); },
    .read_attrs = attrs_from_json<TileSampleAttrs>};

const InstructionKind sample_categorical{
    .name = "sample_categorical",
    .is_sampling = true,
    .apply =
        [](Schedule& sch, const std::vector<InstInput>& in, const InstAttrs& attrs, const Decision& decision) {
          replay::expect_inputs(in, 0);
          const CategoricalAttrs& a = replay::attrs<CategoricalAttrs>(attrs, "sample_categorical");
          std::optional<int64_t> d;
          if (const auto* c = replay::decision<CategoricalDecision>(decision, "sample_categorical")) d = c->index;
          return std::vector<RV>{sch.sample_categorical(a.candidates, a.probabilities, d).rv()};
        },
    .read_decision = read_categorical_decision,
    .read_attrs = attrs_from_json<CategoricalAttrs>};
}  // namespace inst
}  // namespace kiln
