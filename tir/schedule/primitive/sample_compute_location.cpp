// sample_compute_location: a random choice of where to compute a block,
// which the search mutates like any other decision (MetaSchedule's
// SampleComputeLocation).
//
// The candidates are inline (when compute_inline is legal), root (the block
// stays where it is) and the loops at which compute_at is legal, found by the
// primitives' own checks (compute_location.h), so that compute_at with the
// returned handle never fails. The decision is -2 for inline, -1 for root,
// else the index of the loop among the legal ones, listed in a pre-order walk
// of the body of the block that holds `block` (outer before inner, earlier
// before later), not entering nested blocks.
#include <algorithm>

#include "tir/schedule/block_util.h"
#include "tir/schedule/primitive/compute_location.h"
#include "tir/schedule/primitive/replay.h"

namespace kiln {
namespace {

// The loops of `s` (a pre-order walk through loops and sequences), each
// with its path from the function's root: `path` holds the statements from
// the root down to `s`, excluded.
void collect_loops(const Stmt& s, std::vector<Stmt>& path, std::vector<Located>& out) {
  if (const auto* f = s.as<ForNode>()) {
    out.push_back(Located{s, path});
    path.push_back(s);
    collect_loops(f->body, path, out);
    path.pop_back();
  } else if (const auto* q = s.as<SeqStmtNode>()) {
    path.push_back(s);
    for (const Stmt& c : q->seq) collect_loops(c, path, out);
    path.pop_back();
  }
}

// The loops at which compute_at(block) is legal, in the decision's order:
// the first `limit` of them. A replayed decision checks only the loops up
// to its own. The paths come from one walk of the enclosing block, not a
// search of the whole function per loop, and one MoveChecker checks them
// all.
std::vector<Var> legal_loops(const Located& blk, size_t limit = SIZE_MAX) {
  Stmt encl_stmt;
  const BlockNode* encl = enclosing_block(blk, &encl_stmt);
  if (!encl) return {};
  auto through_encl = std::find_if(blk.ancestors.rbegin(), blk.ancestors.rend(),
                                   [&](const Stmt& a) { return a.same_as(encl_stmt); });
  std::vector<Stmt> path(blk.ancestors.begin(), through_encl.base());
  std::vector<Located> all;
  collect_loops(encl->body, path, all);
  std::vector<Var> legal;
  MoveChecker checker(blk, /*reverse=*/false);
  for (const Located& lp : all) {
    if (legal.size() >= limit) break;
    if (!checker.error_at(lp)) legal.push_back(lp.stmt.as<ForNode>()->loop_var);
  }
  return legal;
}

}  // namespace

LoopRV Schedule::sample_compute_location(BlockRV block, std::optional<int64_t> decision) {
  const char* const P = "sample_compute_location";
  const Located blk = block_location(block, P);
  int64_t d;
  std::vector<Var> loops;
  if (decision) {
    d = *decision;
    if (d >= 0) loops = legal_loops(blk, static_cast<size_t>(d) + 1);
    const bool legal = d == LocationDecision::kRoot || (d == LocationDecision::kInline && !compute_inline_error(func_, blk)) ||
                       (d >= 0 && d < static_cast<int64_t>(loops.size()));
    if (!legal) {
      const bool can_inline = !compute_inline_error(func_, blk);
      throw DecisionError(P, "decision " + std::to_string(d) + " is not a location of block '" +
                                 block_of(blk.stmt)->name + "', which has " +
                                 std::to_string(legal_loops(blk).size()) + " legal loops and " +
                                 (can_inline ? "can" : "cannot") + " be inlined");
    }
  } else {
    loops = legal_loops(blk);
    const int64_t first = compute_inline_error(func_, blk) ? LocationDecision::kRoot : LocationDecision::kInline;
    d = first + rand().uniform_int(static_cast<int64_t>(loops.size()) - first);
  }
  LoopRV out = d == LocationDecision::kInline ? make_location_rv(LocationMark::kInline)
               : d == LocationDecision::kRoot ? make_location_rv(LocationMark::kRoot)
                                    : make_loop_rv(loops[d]);
  record(inst::sample_compute_location, {block.rv()}, NoAttrs{}, {out.rv()}, LocationDecision{d});
  return out;
}

namespace inst {
const InstructionKind sample_compute_location{
    "sample_compute_location", true,
    [](Schedule& sch, const std::vector<InstInput>& in, const InstAttrs&, const Decision& decision) {
      replay::expect_inputs(in, 1);
      std::optional<int64_t> d;
      if (const auto* l = replay::decision<LocationDecision>(decision, "sample_compute_location")) d = l->location;
      return std::vector<RV>{sch.sample_compute_location(replay::block(in, 0), d).rv()};
    },
    read_location_decision};
}  // namespace inst
}  // namespace kiln
