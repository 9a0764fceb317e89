// convert_layout: a model's convolutions in blocked channels (NCHW[x]c,
// ops/blocked.h), transforms only where the layout changes.
//
//   %c = Conv(%x, %w, %b)                %x_b = kiln.ToNCHWc(%x)             {block=8}
//   %r = Relu(%c)              ->        %c_b = kiln.ConvNCHWc(%x_b, %w', %b')
//   %y = Conv(%r, %w2)                   %r_b = Relu(%c_b)
//   %o = Flatten(%y)                     %y_b = kiln.ConvNCHWc(%r_b, %w2')
//                                        %y   = kiln.FromNCHWc(%y_b)
//                                        %o   = Flatten(%y)
//
// Weights and biases are constants, so they are rearranged here, once, and
// never at run time. Between convolutions the values stay blocked through
// the operators that do not care about the layout (elementwise ones of one
// shape: Relu, Clip, a residual Add, ...); any other reader, and every graph
// output, gets the plain value back from a FromNCHWc written where it is
// first needed. A value's block is the largest power of two up to the
// target's vector lanes that divides its channels, so the producer and
// every consumer of a value agree on it without asking each other (three
// input channels: a block of 1, which is NCHW's own order); where that is
// narrower than a vector and padding the channels up to whole vectors adds
// at most a quarter (440 channels: 448 in blocks of 16, not 55 blocks of
// 8), the blocked value has the padded channels, and where the channels
// lie between one vector and two (24 on AVX-512) they are one block of a
// vector and a part (channel_blocking). A
// convolution's output block is its vector width, so a half-width block
// ran regnet_y_400mf's 440-channel pointwise layers at half the speed of
// its 208-channel ones. The padded channels hold zeros where they enter
// (ToNCHWc, weights and biases padded with zeros) and finite values
// after (an activation of 0); every convolution reads them against zero
// weights, and FromNCHWc drops them. Div, whose 0/0 would be NaN, does not
// stay blocked on a padded value.
//
// What is converted: float32 Conv with a constant weight (and bias), one
// group, depthwise (one filter per channel), or grouped with groups of gw
// channels in and out where gw divides the channel block or the block gw
// (a RegNet's group width 8: GroupedConvNCHWc), the same stride and
// dilation on both axes. Other convolutions keep NCHW. A 3×3 stride-1
// convolution of one group where Winograd's algorithm pays
// (winograd_tile) becomes a WinogradConvNCHWc, its weights transformed
// here (ops/winograd.h). A QLinearConv of one group with uint8 data and
// int8 weights (graph/fold_qdq.h makes them of a QDQ model's convolutions)
// becomes a QLinearConvNCHWc, its data in blocks of a multiple of 4
// channels (three channels padded to 4), and (De)QuantizeLinear of one
// scale stay blocked like the elementwise operators. A MaxPool of a
// blocked value with a common window (ops/pool.h's: one stride, one pad
// all round, no dilation or ceil_mode) stays blocked too: a ResNet's pool
// between its first convolution and the next.
#pragma once

#include <cstdint>

#include "graph/graph.h"

namespace kiln::graph {

// The internal operators the pass writes (not ONNX's; the importer never
// takes them). Attributes: ToNCHWc {block}; the blocked convolutions keep
// the Conv's own (pads, strides, dilations, auto_pad) plus kernel_shape;
// MaxPoolNCHWc the MaxPool's.
inline constexpr const char* kToNCHWc = "kiln.ToNCHWc";
inline constexpr const char* kFromNCHWc = "kiln.FromNCHWc";
inline constexpr const char* kConvNCHWc = "kiln.ConvNCHWc";
inline constexpr const char* kDepthwiseConvNCHWc = "kiln.DepthwiseConvNCHWc";
// A grouped Conv (ops/blocked.h's grouped_conv2d_nchwc): attribute group
// counts the padded channels' groups.
inline constexpr const char* kGroupedConvNCHWc = "kiln.GroupedConvNCHWc";
// A 3×3 stride-1 Conv by Winograd's F(m×m, 3×3): the Conv's attributes
// plus winograd_tile (m); its weights U [m+2, m+2, K/kb, C/cb, cb, kb].
inline constexpr const char* kWinogradConvNCHWc = "kiln.WinogradConvNCHWc";
inline constexpr const char* kMaxPoolNCHWc = "kiln.MaxPoolNCHWc";
// A QLinearConv of one group on blocked uint8 data (ops/blocked.h's
// conv2d_nchwc_dot4, the int8 dot products' layout): inputs the data
// [N, C/cb, H, W, cb] (cb a multiple of 4), the int8 weights
// [K/kb, C/cb, R, S, cb/4, kb, 4], an int32 offset and a float32 multiplier
// per output channel ([K/kb, kb]) and y's zero point; out[k] =
// saturate(round((acc[k] + offset[k]) * multiplier[k]) + y_zp), with
// offset = bias - x_zp · (the sum of channel k's weights) and multiplier =
// x_scale · w_scale[k] / y_scale. The Conv's attributes plus pad_value:
// x's zero point, what its padding holds.
inline constexpr const char* kQLinearConvNCHWc = "kiln.QLinearConvNCHWc";

// The block of a value with `channels` channels for a target of `lanes`
// float32 lanes: the widest power of two up to `lanes` that divides them.
int64_t channel_block(int64_t channels, int64_t lanes);

// How a value of `channels` channels is blocked: its block, and its
// channels padded up to a multiple of it.
struct ChannelBlocking {
  int64_t block = 1;
  int64_t padded = 0;
};
// In whole vectors where padding adds at most a quarter, else in
// channel_block's (`channels` itself where that is `lanes` wide): what the
// int8 convolutions' outputs take, whose dot products fill whole vectors.
ChannelBlocking whole_vector_blocking(int64_t channels, int64_t lanes);
// A float32 value's: whole_vector_blocking's, except that channels between
// one vector and two, a multiple of 4 (24 on AVX-512, 12 on AVX2), are one
// block of them all, a vector and a part per pixel. A convolution writing
// 24 channels in blocks of 8 ran its FMAs half wide: mobilenet_v2's 96->24
// projection at 56² ran at 222 GFLOP/s in blocks of 8 and at 364 in one
// block of 24 (AMD EPYC Zen 5, 2 threads, 128 trials each), where padding
// to 32 would add a third to it and to every layer reading it.
ChannelBlocking channel_blocking(int64_t channels, int64_t lanes);

// The output tile m of Winograd's F(m×m, 3×3) for a 3×3 convolution of one
// group, stride 1 and dilation 1, onto a P×Q output;
// 0 where the direct convolution is kept: F(4,3) from 28×28, F(2,3) from
// 14×14 (where F(4,3)'s weights, 4× the direct ones, are read cold and
// its last tiles hang half out), direct below. docs/winograd.md has the
// measurements behind the choice.
int64_t winograd_tile(int64_t P, int64_t Q);

// `g` with its convolutions blocked for `lanes` lanes; `g` itself when
// lanes < 2 (the pass is off).
Graph convert_layout(const Graph& g, int64_t lanes);

}  // namespace kiln::graph
