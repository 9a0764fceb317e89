// The entries of graph/op_table.h, by family, each family in its own file
// of graph/operators/. op_table() lists them in this order.
#pragma once

#include <vector>

#include "graph/op_table.h"

namespace kiln::graph::operators {

std::vector<OpDef> nn_ops();           // nn.cpp: convolutions, pools, Gemm, MatMul, BatchNormalization
std::vector<OpDef> elementwise_ops();  // elementwise.cpp: activations, arithmetic, Clip
std::vector<OpDef> quantize_ops();     // quantize.cpp: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear
std::vector<OpDef> qlinear_ops();      // qlinear.cpp: ConvInteger, QLinearConv, QLinearMatMul
std::vector<OpDef> reduction_ops();    // reduction.cpp: Softmax, LayerNormalization, reductions, global pools
std::vector<OpDef> movement_ops();     // movement.cpp: reshapes, Transpose, Concat, Slice, Pad, Gather
std::vector<OpDef> normalization_ops();  // normalization.cpp: LRN, MeanVarianceNormalization
std::vector<OpDef> selection_ops();    // selection.cpp: TopK, ReverseSequence
std::vector<OpDef> recurrent_ops();    // recurrent.cpp: RNN, GRU, LSTM
std::vector<OpDef> spectral_ops();     // spectral.cpp: DFT, STFT
std::vector<OpDef> unpool_ops();       // unpool.cpp: MaxUnpool
std::vector<OpDef> loss_ops();         // loss.cpp: NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss
std::vector<OpDef> resize_ops();       // resize.cpp: Resize, Upsample, GridSample
std::vector<OpDef> folded_ops();       // folded.cpp: Constant, Shape, ConstantOfShape, Range, windows
std::vector<OpDef> blocked_ops();      // blocked.cpp: graph/layout.h's internal operators
std::vector<OpDef> fused_ops();        // attention.cpp: graph/recognize.h's kiln.Attention

}  // namespace kiln::graph::operators
