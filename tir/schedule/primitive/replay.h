// Reading a recorded instruction's inputs, attributes and decision back when a trace
// replays. A trace may come from a file, so every read is checked and a
// mismatch is a BadArgumentError naming the position, never a crash.
#pragma once

#include <string>
#include <vector>

#include "tir/schedule/schedule.h"

namespace kiln::replay {

BlockRV block(const std::vector<InstInput>& in, size_t i);
LoopRV loop(const std::vector<InstInput>& in, size_t i);
ExprRV expr(const std::vector<InstInput>& in, size_t i);
std::vector<LoopRV> loops(const std::vector<InstInput>& in, size_t from = 0);
// A split factor: null (inferred), an integer, or a value handle.
Factor factor(const std::vector<InstInput>& in, size_t i);
void expect_inputs(const std::vector<InstInput>& in, size_t n);

// The attributes a primitive recorded, as its own type: a trace read from a
// file was checked by the kind's read_attrs, and a trace made in memory
// holds what the primitive recorded, so another type is a bug in kiln.
template <typename A>
const A& attrs(const InstAttrs& a, const char* primitive) {
  const A* typed = std::get_if<A>(&a);
  KILN_ICHECK(typed) << primitive << " replayed with attributes of another kind";
  return *typed;
}

// The decision a sampling primitive is handed: nullptr for none (draw
// again), else the decision, which must be a D (a DecisionError otherwise).
template <typename D>
const D* decision(const Decision& d, const char* primitive) {
  if (std::holds_alternative<std::monostate>(d)) return nullptr;
  if (const D* typed = std::get_if<D>(&d)) return typed;
  throw DecisionError(primitive, "decision " + decision_json(d).dump() + " is of another kind of draw");
}

template <typename H>
std::vector<RV> rvs(const std::vector<H>& hs) {
  std::vector<RV> out;
  for (const H& h : hs) out.push_back(h.rv());
  return out;
}

}  // namespace kiln::replay
