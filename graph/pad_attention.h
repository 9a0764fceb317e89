// pad_attention_keys: an attention whose key count T no vector width
// divides computes its scores over T rounded up to a multiple of the
// target's float32 lanes, the columns past T scoring -inf:
//
//   %o = kiln.Attention(%q, %kt, %v, ...)   ->   %o = kiln.Attention(%q, %kt, %v, ...) {padded_keys=208}
//        kt: [1, 12, 64, 197]
//
// The vector tiles of a kernel divide their axis (search/rules/rules.h), so
// the scores of ViT-B/16's 197 tokens (a prime) had no vector but one lane,
// and its attention ran at a third of BERT's GFLOP/s. The operator does the
// padding (graph/operators/attention.cpp, attention_keys and
// attention_columns): the values it reads and writes keep their shapes, and
// the result is the same, the padded columns' probabilities exactly 0.
// Only keys longer than one vector are padded (a handful of keys would
// compute mostly padding).
#pragma once

#include <cstdint>

#include "graph/graph.h"

namespace kiln::graph {

// `g` with its attentions' awkward key counts padded for vectors of
// `lanes` float32 values; `g` itself when lanes < 2 (the pass is off).
Graph pad_attention_keys(const Graph& g, int64_t lanes);

}  // namespace kiln::graph
