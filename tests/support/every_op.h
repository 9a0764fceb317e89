// Workloads that reach every operator of ops/op_table.h at least once, at
// small sizes: odd shapes, extent 1 and types other than float32 reach more
// of the printer (casts, typed immediates) and of the code generators
// (partial vectors, integer widths). OpsRoundTrip.EveryOpHasAWorkload keeps
// the list complete as operators are added.
#pragma once

#include <vector>

namespace kiln::testing {

inline const std::vector<const char*> kEveryOpWorkloads = {
    "matmul:M=48,N=40,K=32",
    "matmul:M=13,N=7,K=1",
    "matmul:M=16,N=16,K=16,dtype=float16",
    "matmul_u8s8s32:M=5,N=32,K=12",
    "matmul_u8s7s32:M=5,N=32,K=12",
    "dense_u8s8s32:M=5,N=32,K=12",
    "matmul:M=8,N=8,K=8,dtype=int32",
    "batch_matmul:B=2,M=16,N=24,K=8",
    "dense:M=16,N=32,K=24,bias=1,act=relu",
    "dense:M=7,N=13,K=5",
    "conv2d_nchw:N=1,C=8,H=14,W=14,K=16,R=3,S=3,stride=1,pad=1",
    "conv2d_nchw:N=1,C=4,H=9,W=9,K=4,R=3,S=3,stride=1,pad=2,dilation=2,groups=2",
    "conv2d_nhwc:N=1,C=8,H=14,W=14,K=16,R=3,S=3,stride=1,pad=1",
    "conv2d_nhwc:N=2,C=3,H=7,W=5,K=1,R=1,S=1,stride=1,pad=0",
    "depthwise_conv2d_nchw:N=1,C=3,H=7,W=13,R=3,S=3,stride=2,pad=1",
    "max_pool2d:N=1,C=3,H=7,W=7,R=3,S=3,stride=2,pad=1",
    "max_pool2d:N=1,C=2,H=6,W=6,R=2,S=2,stride=2,pad=0,dtype=int32",
    "avg_pool2d:N=1,C=1,H=5,W=3,R=3,S=3,stride=2,pad=1",
    "avg_pool2d:N=1,C=2,H=6,W=6,R=3,S=3,stride=1,pad=1,dtype=float64",
    "conv2d_nchwc:N=1,C=4,H=7,W=7,K=8,R=3,S=3,stride=1,pad=1,cb=4,kb=8",
    "conv2d_nchwc_u8s8s32:N=1,C=8,H=6,W=6,K=16,R=3,S=3,stride=1,pad=1,cb=8,kb=16",
    "conv2d_nchwc_u8s7s32:N=1,C=8,H=6,W=6,K=16,R=3,S=3,stride=1,pad=1,cb=8,kb=16",
    "conv2d_nchw_u8s8s32:N=1,C=3,H=7,W=7,K=4,R=3,S=3,stride=1,pad=1",
    "depthwise_conv2d_nchwc:N=1,C=8,H=9,W=9,R=3,S=3,stride=2,pad=1,b=4",
    "grouped_conv2d_nchwc:N=1,C=16,H=9,W=9,R=3,S=3,stride=1,pad=1,b=4,groups=2",
    "conv2d_winograd_nchwc:N=1,C=8,H=7,W=7,K=8,pad=1,cb=4,kb=8,m=4",
    "softmax:M=16,N=64",
    "layer_norm:M=3,N=17",
    "add:M=16,N=32",
    "add:M=3,N=5,dtype=uint8",
    "mul:M=7,N=1",
    "relu:M=13,N=3",
    "reduce_sum:M=16,N=64",
    "reduce_sum:M=3,N=5,dtype=int32",
};

}  // namespace kiln::testing
