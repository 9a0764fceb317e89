// Graph passes that run before fusion: what `kiln compile`, `kiln run` and
// `kiln tune` apply to every model, in this order, and what `kiln graph
// --after-pass P` shows.
//
// fold_batch_norm: an inference BatchNormalization after a Conv (or a Gemm)
// whose output nothing else reads becomes part of its weights, per output
// channel c with f = scale[c] / sqrt(var[c] + epsilon):
//
//   %c = Conv(%x, %w, %b)                    %y = Conv(%x, %w', %b')
//   %y = BatchNormalization(%c, %s, %B,  ->    w'[c, ...] = w[c, ...] * f
//                           %mean, %var)       b'[c] = (b[c] - mean[c]) * f + B[c]
//
// so the tuned kernel does no per-element normalization at all. It folds
// only what is constant (weights and the four vectors), in float32.
//
// split_into_slices: a Split is one Slice per output, so that each output
// joins the group that reads it (graph/fuse.h: a head split into an
// attention) instead of one group copying every part out:
//
//   %q, %k, %v = Split(%qkv) {axis=2}    ->   %q = Slice(%qkv) {starts=[0], ends=[768], axes=[2]}
//                                             %k = Slice(%qkv) {starts=[768], ends=[1536], axes=[2]} ...
//
// eliminate_dead_code: drops the nodes none of whose outputs reaches a
// graph output (what a fold leaves behind, or a model's unused branches),
// and those folded at import, whose outputs are constants that hold their
// data already.
//
// pad_dense_columns (graph/pad_dense.h): a MatMul onto a constant weight
// whose columns no vector width divides (a vocabulary) computes on the
// weight padded with zero columns, and a Slice takes the columns back.
//
// convert_layout (graph/layout.h): convolutions in blocked channels, for a
// target whose vectors hold `lanes` float32 values; off when lanes is 0.
//
// fold_channel_scale (graph/fold_channel_scale.h): a squeeze and
// excitation's per-channel Mul in front of convolutions moves into their
// weights where those are fewer than the scaled elements.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace kiln::graph {

Graph fold_batch_norm(const Graph& g);
Graph split_into_slices(const Graph& g);
Graph eliminate_dead_code(const Graph& g);

struct PassOptions {
  // float32 lanes of the target's vectors, the widest channel block of
  // convert_layout; 0 keeps every convolution in NCHW.
  int64_t lanes = 0;
  // The same, for pad_dense_columns (a quarter of its column block) and
  // pad_attention_keys, whatever the layout; 0 keeps every weight and every
  // attention as it is.
  int64_t dense_lanes = 0;
};

// The passes in order, by name.
const std::vector<std::string>& pass_names();
// `g` after the passes up to and including `last` (all of them when empty).
// Throws kiln::Error for a name that is not a pass, listing them.
Graph run_passes(const Graph& g, const std::string& last = "", const PassOptions& options = {});

}  // namespace kiln::graph
