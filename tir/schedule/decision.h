// Decisions: what a sampling instruction drew, one type per kind of draw.
//
// The decision is the part of a trace that the search changes: it mutates
// a tile's factors, a categorical draw's index, a block's compute location,
// and replays. Typed, so that a mutation, a repair or a replay reads the
// factors it needs without parsing JSON (the search does this for every
// candidate it considers), and a decision of the wrong kind is caught by
// the replay that is handed it. The JSON form (docs/schedule_trace.md) exists
// only at a trace's edges: Trace::to_json and Trace::from_json.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace kiln {

// sample_perfect_tile, sample_tile: the factors, outermost first. A
// sample_tile's outermost may be kInferred, ceil(extent / the others),
// filled in when the trace replays (null in JSON): a mutation that changes
// the inner factors leaves it so.
struct TileDecision {
  static constexpr int64_t kInferred = 0;
  std::vector<int64_t> factors;
  bool operator==(const TileDecision&) const = default;
};

// sample_categorical: the index of the candidate drawn.
struct CategoricalDecision {
  int64_t index = 0;
  bool operator==(const CategoricalDecision&) const = default;
};

// sample_compute_location: inline, root, or the index of a loop among the
// block's legal locations (schedule.h).
struct LocationDecision {
  static constexpr int64_t kInline = -2;
  static constexpr int64_t kRoot = -1;
  int64_t location = kRoot;
  bool operator==(const LocationDecision&) const = default;
};

// No decision (an instruction that does not sample, or a draw left to be
// made again when the trace replays; null in JSON), or one of the above.
using Decision = std::variant<std::monostate, TileDecision, CategoricalDecision, LocationDecision>;

nlohmann::json decision_json(const Decision& d);

// The JSON forms the sampling kinds read (InstructionKind::read_decision).
// Each throws kiln::Error saying what is wrong; null reads as no decision.
Decision read_tile_decision(const nlohmann::json& j, bool outermost_may_be_null);
Decision read_categorical_decision(const nlohmann::json& j);
Decision read_location_decision(const nlohmann::json& j);

}  // namespace kiln
