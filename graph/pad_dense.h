// pad_dense_columns: a MatMul whose constant weight has a column count no
// vector width divides (a vocabulary of 50257 = 29 x 1733) computes on the
// weight padded with zero columns to a multiple of `4 x lanes`, and a Slice
// takes the columns the model asked for:
//
//   %y = MatMul(%x, %w)          ->     %y_padded = MatMul(%x, %w_padded)   w_padded: [768, 50304]
//        w: [768, 50257]                %y = Slice(%y_padded) {starts=[0], ends=[50257], axes=[-1]}
//
// The tiles of a kernel's vector axis divide it (search/rules/rules.h: no
// vector is ever partial), so on 50257 columns the widest vector tile was
// 29 lanes, one zmm and a partial one: GPT-2's language-model head ran at
// 157 GFLOP/s where its other layers ran at 200. Padded, the 47 extra
// columns (0.09%) cost less than the awkward vectors did. Only weights of
// at least kMinPaddedColumns columns are padded (a 10-class head stays as
// it is: its padding would outweigh it), and only float32 ones.
#pragma once

#include <cstdint>

#include "graph/graph.h"

namespace kiln::graph {

inline constexpr int64_t kMinPaddedColumns = 256;

// `g` with its MatMuls' awkward constant weights padded for vectors of
// `lanes` float32 values; `g` itself when lanes < 2 (the pass is off).
Graph pad_dense_columns(const Graph& g, int64_t lanes);

}  // namespace kiln::graph
