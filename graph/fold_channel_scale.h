// fold_channel_scale: a per-channel scale in front of convolutions moves
// into their weights, where there are fewer of them than scaled elements.
//
// A squeeze and excitation (EfficientNet, RegNet, MobileNetV3) ends in a
// Mul of the activation by one value per channel, computed from the
// activation itself, and a 1×1 convolution reads the product. That Mul is
// a pass over the whole activation at memory speed (EfficientNet-B0's
// sixteen of them: 0.44 ms of 3.8). A convolution is linear in each input
// channel, so the scale may go to the weights instead:
//
//   %y = Mul(%x, %s)          %w' = Mul(%w, Reshape(%s))      w'[k, c, r, s] = w[k, c, r, s] · s[c]
//   %z = Conv(%y, %w)   ->    %z  = Conv(%x, %w')
//
// (zero padding is zero either way). It pays where the weights are small
// beside the activation: 96 channels at 56² into 24 is 2,304 weights
// against 301,056 elements; 1152 at 7² into 320 is the other way round,
// and is left. Folded where the convolutions' weights number at most half
// the scaled elements; batch 1 only (the scale is per image).
//
// It takes Conv of one group in NCHW (the scale [1, C, 1, 1]) and
// kiln.ConvNCHWc (graph/layout.h; the scale [1, C/b, 1, 1, b], reshaped
// to [1, C/b, 1, 1, b, 1] against weights [K/kb, C/b, R, S, b, kb]),
// constant weights, and a Mul whose every reader is such a convolution
// reading it as its data. The weights then are computed per run: the
// tuner schedules them like any other input (no compile-time prepack).
#pragma once

#include "graph/graph.h"

namespace kiln::graph {

Graph fold_channel_scale(const Graph& g);

}  // namespace kiln::graph
