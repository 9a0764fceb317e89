#include "search/transfer.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <tuple>

#include "tuning_logs/apply_record.h"
#include "tir/schedule/dataflow.h"
#include "tir/schedule/schedule.h"

namespace kiln::search {
namespace {

// The constant extent of the loop that tile sample `inst` of `t` tiles,
// `sch` holding the state before it.
std::optional<int64_t> extent_before(const Schedule& sch, const Trace& t, const Instruction& inst) {
  const RV* loop = inst.inputs.empty() ? nullptr : std::get_if<RV>(&inst.inputs[0]);
  std::optional<RV> here = loop ? replayed_handle(sch, t, *loop) : std::nullopt;
  if (!here) return std::nullopt;
  const int64_t* extent = as_const_int(sch.loop_stmt(LoopRV{here->id}, "transfer").as<ForNode>()->extent);
  if (!extent) return std::nullopt;
  return *extent;
}

// A tile decision mended for `extent`: a tile that may end partially
// (sample_tile) first keeps its inner factors, its outermost inferred
// (the replay says whether they fit, schedule.h); a perfect tile, or one
// whose inner factors did not fit, takes fit_tile's perfect tile.
TileDecision fit_decision(const Instruction& inst, const TileDecision& tile, int64_t extent) {
  std::vector<int64_t> f = tile.factors;
  if (inst.kind == &inst::sample_tile && !f.empty() && f[0] != TileDecision::kInferred) {
    f[0] = TileDecision::kInferred;
    return {f};
  }
  return {fit_tile(f, extent)};
}

}  // namespace

std::vector<int64_t> fit_tile(const std::vector<int64_t>& factors, int64_t extent) {
  std::vector<int64_t> out(factors.size(), 1);
  int64_t left = extent;
  for (size_t i = factors.size(); i-- > 1;) {
    out[i] = std::gcd(std::max<int64_t>(factors[i], 1), left);
    left /= out[i];
  }
  if (!out.empty()) out[0] = left;
  return out;
}

std::optional<int64_t> tiled_extent(const PrimFunc& f, const Trace& design, size_t i) {
  if (i >= design.size() || !is_tile_sample(design.instructions()[i])) return std::nullopt;
  Trace before;
  for (size_t k = 0; k < i; ++k) before.append(design.instructions()[k]);
  Schedule sch(f);
  try {
    before.apply(sch);
    return extent_before(sch, before, design.instructions()[i]);
  } catch (const Error&) {
    return std::nullopt;
  }
}

std::optional<Trace> transfer_design(const PrimFunc& f, const Trace& design) {
  Trace t = design.without_postproc();
  // Each failing decision is mended at most twice (a partial tile's inner
  // factors kept, then a perfect tile): two tries per instruction.
  for (size_t attempt = 0; attempt <= 2 * t.size(); ++attempt) {
    Schedule sch(f);
    try {
      t.apply(sch);
      return t;
    } catch (const TraceError& e) {
      if (e.kind() != ScheduleErrorKind::kDecision) return std::nullopt;
      const size_t i = e.instruction();
      const Instruction& inst = t.instructions()[i];
      if (inst.kind == &inst::sample_compute_location) {
        t = t.with_decision(i, Decision{});  // drawn again when replayed
        continue;
      }
      if (!is_tile_sample(inst)) return std::nullopt;
      // sch holds the state before instruction i: the loop it tiles, there.
      const std::optional<int64_t> extent = extent_before(sch, t, inst);
      const auto* tile = std::get_if<TileDecision>(&inst.decision);
      if (!extent || !tile) return std::nullopt;
      t = t.with_decision(i, fit_decision(inst, *tile, *extent));
    } catch (const Error&) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

namespace {

// What adopt_decisions compares: the sites of the instructions
// (tir/schedule/dataflow.h), without get_block's names and without
// get_block and compute_inline themselves when `blocks` is false; and
// where in the trace each is.
struct Steps {
  std::vector<uint64_t> sites;
  std::vector<size_t> at;
  std::vector<uint64_t> sorted() const {
    std::vector<uint64_t> out = sites;
    std::sort(out.begin(), out.end());
    return out;
  }
};

Steps steps_of(const Trace& t, bool blocks) {
  const std::vector<uint64_t> sites = instruction_sites(t, /*with_block_names=*/blocks);
  Steps s;
  for (size_t i = 0; i < t.size(); ++i) {
    const Instruction& inst = t.instructions()[i];
    if (!blocks && (inst.kind == &inst::get_block || inst.kind == &inst::compute_inline)) continue;
    s.sites.push_back(sites[i]);
    s.at.push_back(i);
  }
  return s;
}

}  // namespace

std::optional<Trace> adopt_decisions(const std::vector<Trace>& sketches, const Trace& design) {
  const Trace d = design.without_postproc();
  // The sketch that takes the same steps on the same blocks, if one does;
  // else one that does blocks aside. Steps are matched by site, so a
  // sketch whose rules now write them in another order still matches.
  for (bool blocks : {true, false}) {
    const Steps want = steps_of(d, blocks);
    const std::vector<uint64_t> want_sorted = want.sorted();
    for (const Trace& sketch : sketches) {
      const Steps have = steps_of(sketch, blocks);
      if (have.sorted() != want_sorted) continue;
      // The design's instructions at each site, in order: the k-th of a
      // site in the sketch takes the decision of the k-th in the design.
      std::map<uint64_t, std::vector<size_t>> from;
      for (size_t k = want.at.size(); k-- > 0;) from[want.sites[k]].push_back(want.at[k]);
      Trace out = sketch;
      for (size_t k = 0; k < have.at.size(); ++k) {
        std::vector<size_t>& same = from[have.sites[k]];
        const Instruction& source = d.instructions()[same.back()];
        same.pop_back();
        if (source.kind->is_sampling) out = out.with_decision(have.at[k], source.decision);
      }
      return out;
    }
  }
  return std::nullopt;
}

std::string anchor_op(const std::string& op) { return op.substr(0, op.find('+')); }

namespace {

// The "[...]" groups of a shape text, in order.
std::vector<std::string> shapes_in(const std::string& text) {
  std::vector<std::string> out;
  for (size_t open = text.find('['); open != std::string::npos; open = text.find('[', open + 1)) {
    const size_t close = text.find(']', open);
    if (close == std::string::npos) break;
    out.push_back(text.substr(open, close - open + 1));
  }
  return out;
}

}  // namespace

int shape_difference(const std::string& a, const std::string& b) {
  const std::vector<std::string> sa = shapes_in(a), sb = shapes_in(b);
  if (sa.empty() && sb.empty()) return a == b ? 0 : 1;
  int differ = static_cast<int>(std::max(sa.size(), sb.size()) - std::min(sa.size(), sb.size()));
  for (size_t i = 0; i < std::min(sa.size(), sb.size()); ++i) differ += sa[i] != sb[i];
  return differ;
}

std::vector<tuning::WorkloadEntry> similar_workloads(std::vector<tuning::WorkloadEntry> all,
                                                     const tuning::WorkloadEntry& entry) {
  const std::string anchor = anchor_op(entry.op);
  std::erase_if(all, [&](const tuning::WorkloadEntry& w) {
    return w.key == entry.key || w.flops <= 0 || anchor_op(w.op) != anchor;
  });
  auto rank = [&](const tuning::WorkloadEntry& w) {
    return std::make_tuple(std::abs(std::log(w.flops / entry.flops)), shape_difference(w.shape, entry.shape),
                           w.op != entry.op);
  };
  std::stable_sort(all.begin(), all.end(), [&](const auto& a, const auto& b) { return rank(a) < rank(b); });
  return all;
}

std::vector<Trace> similar_designs(tuning::Database& db, const tuning::WorkloadEntry& entry, const PrimFunc& f,
                                   const std::vector<Trace>& sketches, const std::string& target, int workloads,
                                   int designs) {
  std::vector<Trace> out;
  int used = 0;
  for (const tuning::WorkloadEntry& w : similar_workloads(db.workloads(), entry)) {
    if (used >= workloads) break;
    std::vector<tuning::TuningRecord> best = db.top_k(w.key, target, designs);
    used += !best.empty();
    for (const tuning::TuningRecord& r : best) {
      try {
        const Trace stored = tuning::record_trace(r);
        std::optional<Trace> design = adopt_decisions(sketches, stored);
        if (!design && w.op == entry.op) design = stored;  // a shape-dependent step: replayed as it is
        if (design && (design = transfer_design(f, *design))) out.push_back(std::move(*design));
      } catch (const Error&) {
        // An unreadable trace carries nothing over.
      }
    }
  }
  return out;
}

}  // namespace kiln::search
