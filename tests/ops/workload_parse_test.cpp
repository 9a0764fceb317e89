// Workload strings: canonical form, defaults, and one test per user error.
#include <gtest/gtest.h>

#include "support/error_of.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "ops/op_table.h"
#include "ops/workload.h"
#include "ops/window.h"
#include "ops/workload_docs.h"

namespace kiln {
namespace {

using ops::parse_workload;
using ops::Workload;

std::string error_of(const std::string& text) { return kiln::testing::error_of([&] { parse_workload(text); }); }

#define EXPECT_PARSE_ERROR(text, fragment)                                                    \
  do {                                                                                        \
    std::string msg_ = error_of(text);                                                        \
    EXPECT_NE(msg_.find(fragment), std::string::npos) << "'" << (text) << "' gave: " << msg_; \
  } while (0)

TEST(WorkloadParse, MatmulWithDefaults) {
  Workload w = parse_workload("matmul:M=512,N=256,K=128");
  EXPECT_EQ(w.op, "matmul");
  EXPECT_EQ(w.params.at("M"), 512);
  EXPECT_EQ(w.params.at("N"), 256);
  EXPECT_EQ(w.params.at("K"), 128);
  EXPECT_EQ(w.dtype, DataType::Float32());
  EXPECT_EQ(w.str(), "matmul:M=512,N=256,K=128,dtype=float32");
}

TEST(WorkloadParse, CanonicalStringOrdersKeysAndFillsDefaults) {
  Workload w = parse_workload(" conv2d_nchw: pad=1, stride=1, S=3,R=3,K=64,W=56,H=56,C=64,N=1 ");
  EXPECT_EQ(w.str(), "conv2d_nchw:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1,dilation=1,groups=1,dtype=float32");
  Workload d = parse_workload("dense:act=relu,K=3,N=2,M=1,dtype=float16");
  EXPECT_EQ(d.str(), "dense:M=1,N=2,K=3,bias=0,act=relu,dtype=float16");
  EXPECT_EQ(d.params.at("act"), 1);
  // An op whose name says its types has no dtype to write, nor to take.
  EXPECT_EQ(parse_workload("matmul_u8s8s32:K=3,N=2,M=1").str(), "matmul_u8s8s32:M=1,N=2,K=3");
  EXPECT_THROW(parse_workload("matmul_u8s8s32:M=1,N=2,K=3,dtype=int8"), Error);
}

TEST(WorkloadParse, EveryOpRoundTripsThroughItsCanonicalString) {
  const std::vector<std::string> examples = {
      "matmul:M=4,N=5,K=6",
      "matmul_u8s8s32:M=4,N=5,K=6",
      "matmul_u8s7s32:M=4,N=5,K=6",
      "dense_u8s8s32:M=4,N=5,K=6",
      "conv2d_nchw_u8s8s32:N=1,C=3,H=7,W=7,K=4,R=3,S=3,stride=1,pad=1",
    "matmul_u8s7s32:M=4,N=5,K=6",
    "dense_u8s8s32:M=4,N=5,K=6",
    "conv2d_nchw_u8s8s32:N=1,C=3,H=7,W=7,K=4,R=3,S=3,stride=1,pad=1",
      "batch_matmul:B=2,M=3,N=4,K=5,dtype=int8",
      "dense:M=4,N=5,K=6,bias=1,act=relu",
      "conv2d_nchw:N=1,C=4,H=7,W=7,K=8,R=3,S=3,stride=2,pad=1,groups=2,dilation=1",
      "conv2d_nhwc:N=1,C=4,H=7,W=7,K=8,R=3,S=3,stride=1,pad=0,dtype=float16",
      "depthwise_conv2d_nchw:N=1,C=8,H=9,W=9,R=3,S=3,stride=1,pad=1",
      "conv2d_nchwc:N=1,C=4,H=7,W=7,K=8,R=3,S=3,stride=1,pad=1,cb=4,kb=8",
      "conv2d_nchwc_u8s8s32:N=1,C=8,H=7,W=7,K=16,R=3,S=3,stride=2,pad=1,cb=8,kb=16",
      "conv2d_nchwc_u8s7s32:N=1,C=8,H=7,W=7,K=16,R=3,S=3,stride=2,pad=1,cb=8,kb=16",
    "conv2d_nchwc_u8s7s32:N=1,C=8,H=7,W=7,K=16,R=3,S=3,stride=2,pad=1,cb=8,kb=16",
      "depthwise_conv2d_nchwc:N=1,C=8,H=9,W=9,R=3,S=3,stride=2,pad=1,b=8",
      "grouped_conv2d_nchwc:N=1,C=16,H=9,W=9,R=3,S=3,stride=2,pad=1,b=8,groups=2",
      "conv2d_winograd_nchwc:N=1,C=16,H=14,W=14,K=32,pad=1,cb=16,kb=16,m=4",
      "max_pool2d:N=1,C=2,H=6,W=6,R=2,S=2,stride=2,pad=0,dtype=int32",
      "avg_pool2d:N=1,C=2,H=6,W=6,R=3,S=3,stride=1,pad=1,dtype=float64",
      "softmax:M=3,N=5",
      "layer_norm:M=3,N=5",
      "add:M=3,N=5,dtype=uint8",
      "mul:M=3,N=5",
      "relu:M=3,N=5",
      "reduce_sum:M=3,N=5,dtype=int32",
  };
  std::set<std::string> covered;
  for (const std::string& s : examples) {
    Workload w = parse_workload(s);
    std::string canonical = w.str();
    Workload again = parse_workload(canonical);
    EXPECT_TRUE(again == w) << s;
    EXPECT_EQ(again.str(), canonical);
    covered.insert(w.op);
  }
  for (const std::string& op : ops::list_ops()) EXPECT_TRUE(covered.count(op)) << "no round-trip example for " << op;
}

TEST(WorkloadParse, ListOpsFollowsTheTable) {
  std::vector<std::string> ops = ops::list_ops();
  ASSERT_EQ(ops.size(), ops::op_table().size());
  EXPECT_EQ(ops.front(), "matmul");
  for (const char* name : {"matmul", "batch_matmul", "dense", "conv2d_nchw", "conv2d_nhwc", "depthwise_conv2d_nchw",
                           "max_pool2d", "avg_pool2d", "softmax", "layer_norm", "add", "mul", "relu", "reduce_sum"})
    EXPECT_NE(std::find(ops.begin(), ops.end(), name), ops.end()) << name;
}

TEST(WorkloadFlops, FollowTheDocumentedFormulas) {
  EXPECT_DOUBLE_EQ(ops::workload_flops(parse_workload("matmul:M=512,N=512,K=512")), 2.0 * 512 * 512 * 512);
  EXPECT_DOUBLE_EQ(ops::workload_flops(parse_workload("batch_matmul:B=3,M=4,N=5,K=6")), 2.0 * 3 * 4 * 5 * 6);
  EXPECT_DOUBLE_EQ(ops::workload_flops(parse_workload("dense:M=4,N=5,K=6,bias=1,act=relu")), 2.0 * 120 + 20 + 20);
  // 56x56 output: 2 * N * K * P * Q * C * R * S.
  EXPECT_DOUBLE_EQ(ops::workload_flops(parse_workload("conv2d_nchw:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1")),
                   2.0 * 64 * 56 * 56 * 64 * 9);
  // stride 2 halves each output extent; groups divide the channels read.
  EXPECT_DOUBLE_EQ(
      ops::workload_flops(parse_workload("conv2d_nhwc:N=2,C=8,H=8,W=8,K=4,R=3,S=3,stride=2,pad=1,groups=2")),
      2.0 * 2 * 4 * 4 * 4 * 4 * 9);
  EXPECT_DOUBLE_EQ(ops::workload_flops(parse_workload("avg_pool2d:N=1,C=2,H=4,W=4,R=2,S=2,stride=2,pad=0")),
                   2.0 * 2 * 2 * (4 + 1));
  EXPECT_DOUBLE_EQ(ops::workload_flops(parse_workload("softmax:M=3,N=7")), 5.0 * 21);
  EXPECT_DOUBLE_EQ(ops::workload_flops(parse_workload("layer_norm:M=3,N=7")), 9.0 * 21 + 4 * 3);
  EXPECT_DOUBLE_EQ(ops::workload_flops(parse_workload("reduce_sum:M=3,N=7")), 21.0);
}

// --- errors: each names the bad part ------------------------------------------

TEST(WorkloadErrors, EmptyString) {
  EXPECT_PARSE_ERROR("", "empty workload string");
  EXPECT_PARSE_ERROR("   ", "empty workload string");
}

TEST(WorkloadErrors, UnknownOpListsTheKnownOnes) {
  std::string msg = error_of("matmult:M=1,N=1,K=1");
  EXPECT_NE(msg.find("unknown op 'matmult'"), std::string::npos) << msg;
  for (const std::string& op : ops::list_ops()) EXPECT_NE(msg.find(op), std::string::npos) << op;
}

TEST(WorkloadErrors, MissingOpName) { EXPECT_PARSE_ERROR(":M=1", "no op name"); }

TEST(WorkloadErrors, MissingKeys) {
  EXPECT_PARSE_ERROR("matmul", "matmul: missing key M (required keys: M, N, K)");
  EXPECT_PARSE_ERROR("matmul:", "missing key M");
  EXPECT_PARSE_ERROR("matmul:M=4,N=4", "matmul: missing key K");
}

TEST(WorkloadErrors, UnknownKey) {
  EXPECT_PARSE_ERROR("matmul:M=4,N=4,K=4,L=2", "matmul: unknown key 'L' (keys: M, N, K, dtype)");
  EXPECT_PARSE_ERROR("matmul:M=4,N=4,K=4,m=2", "unknown key 'm'");
}

TEST(WorkloadErrors, DuplicatedKey) {
  EXPECT_PARSE_ERROR("matmul:M=4,N=4,K=4,M=8", "matmul: key 'M' is given twice");
  EXPECT_PARSE_ERROR("matmul:M=4,N=4,K=4,dtype=float32,dtype=int8", "key 'dtype' is given twice");
}

TEST(WorkloadErrors, MalformedItems) {
  EXPECT_PARSE_ERROR("matmul:M4,N=4,K=4", "malformed item 'M4'");
  EXPECT_PARSE_ERROR("matmul:M=4,,N=4,K=4", "malformed item ''");
  EXPECT_PARSE_ERROR("matmul:M=4,N=4,K=4,", "malformed item ''");
  EXPECT_PARSE_ERROR("matmul:=4,N=4,K=4", "malformed item '=4'");
}

TEST(WorkloadErrors, NonIntegerValues) {
  EXPECT_PARSE_ERROR("matmul:M=abc,N=4,K=4", "matmul: M='abc' is not an integer");
  EXPECT_PARSE_ERROR("matmul:M=1.5,N=4,K=4", "M='1.5' is not an integer");
  EXPECT_PARSE_ERROR("matmul:M=,N=4,K=4", "M='' is not an integer");
  EXPECT_PARSE_ERROR("matmul:M=4x,N=4,K=4", "M='4x' is not an integer");
  EXPECT_PARSE_ERROR("matmul:M=99999999999999999999,N=4,K=4", "is too large");
  EXPECT_PARSE_ERROR("matmul:M=4294967296,N=4,K=4", "M=4294967296 is too large");
}

TEST(WorkloadErrors, NonPositiveValues) {
  EXPECT_PARSE_ERROR("matmul:M=0,N=4,K=4", "matmul: M=0 must be positive");
  EXPECT_PARSE_ERROR("matmul:M=4,N=-3,K=4", "N=-3 must be positive");
  EXPECT_PARSE_ERROR("max_pool2d:N=1,C=1,H=4,W=4,R=2,S=2,stride=1,pad=-1", "pad=-1 must be non-negative");
  EXPECT_PARSE_ERROR("max_pool2d:N=1,C=1,H=4,W=4,R=2,S=2,stride=0,pad=0", "stride=0 must be positive");
  EXPECT_PARSE_ERROR("dense:M=1,N=1,K=1,bias=2", "bias=2 must be between 0 and 1");
  EXPECT_PARSE_ERROR("dense:M=1,N=1,K=1,act=gelu", "act='gelu' is not one of none, relu");
}

TEST(WorkloadErrors, BadDtype) {
  EXPECT_PARSE_ERROR("matmul:M=4,N=4,K=4,dtype=float7", "matmul: bad dtype 'float7'");
  EXPECT_PARSE_ERROR("matmul:M=4,N=4,K=4,dtype=", "bad dtype ''");
  EXPECT_PARSE_ERROR("matmul:M=4,N=4,K=4,dtype=float32x4", "dtype float32x4 is not supported");
  EXPECT_PARSE_ERROR("matmul:M=4,N=4,K=4,dtype=bool", "dtype bool is not supported");
  EXPECT_PARSE_ERROR("softmax:M=4,N=4,dtype=int32", "softmax: dtype int32 is not supported (floating-point types only)");
  EXPECT_PARSE_ERROR("avg_pool2d:N=1,C=1,H=4,W=4,R=2,S=2,stride=1,pad=0,dtype=int8", "floating-point types only");
}

TEST(WorkloadErrors, PaddingTooLarge) {
  EXPECT_PARSE_ERROR("conv2d_nchw:N=1,C=3,H=8,W=8,K=4,R=3,S=3,stride=1,pad=3",
                     "conv2d_nchw: pad 3 is too large for kernel height 3 (at most 2)");
  EXPECT_PARSE_ERROR("max_pool2d:N=1,C=1,H=8,W=8,R=2,S=2,stride=2,pad=2", "pad 2 is too large");
  // Dilation widens the kernel, and with it the padding allowed.
  EXPECT_NO_THROW(parse_workload("conv2d_nchw:N=1,C=3,H=8,W=8,K=4,R=3,S=3,stride=1,pad=3,dilation=2"));
}

TEST(WorkloadErrors, OutputSizeNotPositive) {
  EXPECT_PARSE_ERROR("conv2d_nchw:N=1,C=3,H=2,W=8,K=4,R=5,S=3,stride=1,pad=0",
                     "conv2d_nchw: output height would be 0 or less");
  EXPECT_PARSE_ERROR("depthwise_conv2d_nchw:N=1,C=3,H=8,W=2,R=3,S=3,stride=1,pad=0", "output width would be 0 or less");
  EXPECT_PARSE_ERROR("avg_pool2d:N=1,C=3,H=8,W=8,R=5,S=9,stride=1,pad=0", "output width would be 0 or less");
}

// The arithmetic under both: the workloads' checked extents and the ONNX
// front end's shape inference (asymmetric pads, ceil_mode).
TEST(WindowCount, FloorOrCeilOfTheRoomOverTheStrideAndNoneWhenNothingFits) {
  EXPECT_EQ(ops::window_count(56, 3, 1, 1, 1, 1), 56);
  EXPECT_EQ(ops::window_count(224, 7, 2, 1, 3, 3), 112);
  EXPECT_EQ(ops::window_count(7, 3, 2, 1, 0, 0), 3);
  EXPECT_EQ(ops::window_count(8, 3, 2, 1, 0, 0), 3);
  EXPECT_EQ(ops::window_count(8, 3, 2, 1, 0, 0, /*ceil_mode=*/true), 4);
  EXPECT_EQ(ops::window_count(8, 3, 1, 2, 0, 1), 5);  // span 5, room 4
  EXPECT_EQ(ops::window_count(2, 5, 1, 1, 0, 0), 0);
}

TEST(WorkloadErrors, GroupsMustDivideChannels) {
  EXPECT_PARSE_ERROR("conv2d_nchw:N=1,C=6,H=8,W=8,K=4,R=3,S=3,stride=1,pad=1,groups=4",
                     "conv2d_nchw: groups=4 must divide both C=6 and K=4");
  EXPECT_PARSE_ERROR("conv2d_nhwc:N=1,C=6,H=8,W=8,K=4,R=3,S=3,stride=1,pad=1,groups=3", "groups=3 must divide");
}

TEST(WorkloadErrors, BlocksMustDivideChannels) {
  EXPECT_PARSE_ERROR("conv2d_nchwc:N=1,C=6,H=8,W=8,K=8,R=3,S=3,stride=1,pad=1,cb=4,kb=8",
                     "conv2d_nchwc: cb=4 must divide C=6");
  EXPECT_PARSE_ERROR("conv2d_nchwc:N=1,C=8,H=8,W=8,K=12,R=3,S=3,stride=1,pad=1,cb=4,kb=8",
                     "conv2d_nchwc: kb=8 must divide K=12");
  EXPECT_PARSE_ERROR("depthwise_conv2d_nchwc:N=1,C=12,H=8,W=8,R=3,S=3,stride=1,pad=1,b=8",
                     "depthwise_conv2d_nchwc: b=8 must divide C=12");
  EXPECT_PARSE_ERROR("grouped_conv2d_nchwc:N=1,C=24,H=8,W=8,R=3,S=3,stride=1,pad=1,b=8,groups=4",
                     "grouped_conv2d_nchwc: a group of C/groups=6 channels must divide b=8 or be a multiple of it");
}

TEST(WorkloadErrors, HandBuiltWorkloadsAreCheckedToo) {
  Workload w;
  w.op = "matmul";
  w.params = {{"M", 4}, {"N", 4}};
  EXPECT_THROW(ops::build_workload(w), Error);
  w.params["K"] = 4;
  w.params["Z"] = 1;
  EXPECT_THROW(ops::workload_flops(w), Error);
  w.params.erase("Z");
  EXPECT_NO_THROW(ops::build_workload(w));
}

// --- generated text -----------------------------------------------------------

TEST(WorkloadDocs, HelpListsEveryOpWithItsKeys) {
  std::string help = ops::workload_help();
  for (const ops::OpSpec& s : ops::op_table()) EXPECT_NE(help.find(s.name), std::string::npos) << s.name;
  EXPECT_NE(help.find("M,N,K,[bias=0],[act=none]"), std::string::npos) << help;
}

TEST(WorkloadDocs, DocsFileHoldsTheGeneratedReference) {
  const std::string root = KILN_SOURCE_DIR;
  std::ifstream in(root + "/docs/workloads.md");
  ASSERT_TRUE(in.good()) << "cannot read " << root << "/docs/workloads.md";
  std::stringstream doc;
  doc << in.rdbuf();
  EXPECT_NE(doc.str().find(ops::workload_reference_markdown()), std::string::npos)
      << "docs/workloads.md is out of date; its reference section must be:\n"
      << ops::workload_reference_markdown();
}

}  // namespace
}  // namespace kiln
