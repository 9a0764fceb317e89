// Static memory planning: where each intermediate value of a compiled model
// lives, in one arena allocated once, values whose lifetimes do not
// overlap sharing bytes.
//
//   step 0: %a = Conv+Relu(%x, ...)      a: [0, 64K)
//   step 1: %b = Conv+Relu(%a, ...)      b: [64K, 128K)  (a is read here)
//   step 2: %c = Conv+Add(%b, %a, ...)   c: [128K, 192K) (a, b read here)
//   step 3: %d = Relu(%c)                d: [0, 64K)     (a and b are dead)
//
// A step is a fused group (graph/fuse.h), run in order. A value is live
// from the step that writes it to the last step that reads it; a step's
// outputs are placed before that step's dead inputs are freed, so that a
// kernel never writes over what it reads. Placement is first fit over the
// free ranges, every offset a multiple of kAlignment. Graph inputs and
// outputs are the caller's buffers and constants are the weights: neither
// is in the arena.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/fuse.h"
#include "graph/graph.h"

namespace kiln::graph {

struct MemoryPlan {
  static constexpr int64_t kAlignment = 64;  // a cache line; AVX-512 loads want it
  static constexpr int64_t kNotPlanned = -1;
  std::vector<int64_t> offset;  // per value id: bytes into the arena, or kNotPlanned
  int64_t arena_bytes = 0;      // the plan's peak
  int64_t separate_bytes = 0;   // what the planned values take each in a buffer of its own
};

MemoryPlan plan_memory(const Graph& g, const std::vector<FusedGroup>& groups);

}  // namespace kiln::graph
