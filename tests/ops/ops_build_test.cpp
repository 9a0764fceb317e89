// Every op builds into a valid block-form function, and its documented FLOP
// formula agrees with the arithmetic its compute definition actually holds.
#include <gtest/gtest.h>

#include <set>

#include "ops/conv2d.h"
#include "ops/op_table.h"
#include "ops/pad.h"
#include "ops/workload.h"
#include "tir/analysis/verify.h"
#include "tir/functor.h"
#include "tir/printer.h"
#include "tir/te/create_prim_func.h"

namespace kiln {
namespace {

using ops::param;

// One example per op, exercising optional keys.
const std::vector<std::string> kExamples = {
    "matmul:M=4,N=5,K=6",
    "matmul_u8s8s32:M=4,N=5,K=6",
    "matmul_u8s7s32:M=4,N=5,K=6",
    "dense_u8s8s32:M=4,N=5,K=6",
    "conv2d_nchw_u8s8s32:N=1,C=3,H=7,W=7,K=4,R=3,S=3,stride=1,pad=1",
    "batch_matmul:B=2,M=3,N=4,K=5",
    "dense:M=4,N=5,K=6",
    "dense:M=4,N=5,K=6,bias=1,act=relu",
    "conv2d_nchw:N=1,C=4,H=7,W=7,K=8,R=3,S=3,stride=2,pad=1,groups=2",
    "conv2d_nhwc:N=1,C=3,H=9,W=7,K=2,R=3,S=3,stride=1,pad=2,dilation=2",
    "conv2d_nchw:N=1,C=3,H=6,W=6,K=2,R=1,S=1,stride=1,pad=0",
    "depthwise_conv2d_nchw:N=1,C=8,H=9,W=9,R=3,S=3,stride=1,pad=1",
    "conv2d_nchwc:N=1,C=4,H=7,W=7,K=8,R=3,S=3,stride=2,pad=1,cb=2,kb=4",
    "conv2d_nchwc_u8s8s32:N=1,C=8,H=7,W=7,K=16,R=3,S=3,stride=2,pad=1,cb=8,kb=16",
    "conv2d_nchwc_u8s7s32:N=1,C=8,H=7,W=7,K=16,R=3,S=3,stride=2,pad=1,cb=8,kb=16",
    "depthwise_conv2d_nchwc:N=1,C=8,H=9,W=9,R=3,S=3,stride=1,pad=1,b=4",
    "grouped_conv2d_nchwc:N=1,C=16,H=9,W=9,R=3,S=3,stride=2,pad=1,b=8,groups=4",
    "conv2d_winograd_nchwc:N=1,C=8,H=7,W=6,K=8,pad=1,cb=4,kb=4,m=2",
    "conv2d_winograd_nchwc:N=1,C=8,H=7,W=6,K=8,pad=1,cb=4,kb=4,m=4",
    "max_pool2d:N=1,C=2,H=6,W=6,R=3,S=3,stride=2,pad=1",
    "avg_pool2d:N=1,C=2,H=6,W=6,R=3,S=3,stride=1,pad=1",
    "avg_pool2d:N=1,C=2,H=6,W=6,R=2,S=2,stride=2,pad=0",
    "softmax:M=3,N=5",
    "layer_norm:M=3,N=5",
    "add:M=3,N=5",
    "mul:M=3,N=5",
    "relu:M=3,N=5",
    "reduce_sum:M=3,N=5",
};

// Arithmetic on values of type t, outside indices: what the FLOP convention counts.
class ArithCounter : public StmtVisitor {
 public:
  explicit ArithCounter(DataType t) : t_(t) {}
  using StmtVisitor::visit;
  double count = 0;

  void visit(const Expr& e) override {
    switch (e.kind()) {
      case ExprKind::Add:
      case ExprKind::Sub:
      case ExprKind::Mul:
      case ExprKind::Div:
      case ExprKind::Mod:
      case ExprKind::FloorDiv:
      case ExprKind::FloorMod:
      case ExprKind::Min:
      case ExprKind::Max:
      case ExprKind::Call:
        if (e.dtype() == t_) count += 1;
        break;
      case ExprKind::BufferLoad: return;  // indices are not data arithmetic
      default: break;
    }
    StmtVisitor::visit(e);
  }
  void visit_BufferStore(const BufferStoreNode* op, const Stmt&) override { visit(op->value); }

 private:
  DataType t_;
};

// The arithmetic of every block but the root, or of the block named `only`.
double counted_flops(const PrimFunc& f, DataType t, const std::string& only = "") {
  double total = 0;
  post_order_visit(f.body(), [&](const Stmt& s) {
    const auto* b = s.as<BlockNode>();
    if (!b || b->name == "root" || (!only.empty() && b->name != only)) return;
    double points = 1;
    for (const IterVar& iv : b->iter_vars) points *= static_cast<double>(*as_const_int(iv.dom()->extent));
    ArithCounter c(t);
    c.visit(b->body);
    total += points * c.count;
  });
  return total;
}

TEST(OpsBuild, EveryExampleIsAValidFunction) {
  std::set<std::string> ops_seen;
  for (const std::string& text : kExamples) {
    SCOPED_TRACE(text);
    ops::Workload w = ops::parse_workload(text);
    ops_seen.insert(w.op);
    PrimFunc f = ops::build_workload(w);
    EXPECT_NO_THROW(verify(f)) << to_string(f);
    EXPECT_EQ(f.name(), w.op);

    std::set<std::string> names;
    post_order_visit(f.body(), [&](const Stmt& s) {
      if (const auto* b = s.as<BlockNode>()) {
        EXPECT_TRUE(names.insert(b->name).second) << "duplicate block " << b->name;
        if (b->name != "root") {
          EXPECT_FALSE(b->writes.empty()) << b->name;
          // No block reads nothing but the pad/identity of its own output.
          EXPECT_FALSE(b->reads.empty()) << b->name;
        }
      }
    });
    // The output parameter is written by the last stage.
    bool output_written = false;
    post_order_visit(f.body(), [&](const Stmt& s) {
      if (const auto* st = s.as<BufferStoreNode>()) output_written |= st->buffer.same_as(f.params().back());
    });
    EXPECT_TRUE(output_written);
    if (w.op != "conv2d_winograd_nchwc") {
      // An op whose name says its types counts in its output's (int32 sums).
      const DataType counted =
          ops::find_op(w.op).dtypes == ops::DTypeRule::kFixed ? f.params().back()->dtype : w.dtype;
      EXPECT_EQ(counted_flops(f, counted), ops::workload_flops(w)) << to_string(f);
      continue;
    }
    // Winograd's convolution counts the direct convolution's FLOPs, so that
    // its GFLOP/s compare with the direct kernel's; its own arithmetic is
    // the product over channels at α² tile positions, 2·α²·N·K·TH·TW·C, and
    // the transforms.
    const int64_t m = param(w, "m"), a = m + 2;
    const int64_t tiles_h = (param(w, "H") + 2 * param(w, "pad") - 2 + m - 1) / m;
    const int64_t tiles_w = (param(w, "W") + 2 * param(w, "pad") - 2 + m - 1) / m;
    EXPECT_EQ(counted_flops(f, w.dtype, "winograd_product"),
              2.0 * a * a * param(w, "N") * param(w, "K") * tiles_h * tiles_w * param(w, "C"));
    EXPECT_EQ(ops::workload_flops(w), 2.0 * param(w, "N") * param(w, "K") * (param(w, "H") + 2 * param(w, "pad") - 2) *
                                          (param(w, "W") + 2 * param(w, "pad") - 2) * param(w, "C") * 9);
  }
  for (const std::string& op : ops::list_ops()) EXPECT_TRUE(ops_seen.count(op)) << "no example for " << op;
}

TEST(OpsBuild, ParametersFollowTheDocumentedShapes) {
  PrimFunc conv = ops::build_workload(
      ops::parse_workload("conv2d_nhwc:N=2,C=6,H=9,W=7,K=4,R=3,S=2,stride=2,pad=1,groups=2"));
  ASSERT_EQ(conv.params().size(), 3u);
  auto extents = [](const Buffer& b) {
    std::vector<int64_t> v;
    for (const Expr& e : b.shape()) v.push_back(*as_const_int(e));
    return v;
  };
  EXPECT_EQ(extents(conv.params()[0]), (std::vector<int64_t>{2, 9, 7, 6}));
  EXPECT_EQ(extents(conv.params()[1]), (std::vector<int64_t>{3, 2, 3, 4}));
  EXPECT_EQ(extents(conv.params()[2]), (std::vector<int64_t>{2, 5, 4, 4}));

  PrimFunc dense = ops::build_workload(ops::parse_workload("dense:M=3,N=5,K=7,bias=1"));
  ASSERT_EQ(dense.params().size(), 4u);
  EXPECT_EQ(dense.params()[2].name(), "b");
  EXPECT_EQ(extents(dense.params()[1]), (std::vector<int64_t>{5, 7}));
}

TEST(OpsBuild, PaddingIsItsOwnStageAndAbsentWithoutPadding) {
  auto blocks = [](const std::string& text) {
    std::vector<std::string> names;
    post_order_visit(ops::build_workload(ops::parse_workload(text)).body(), [&](const Stmt& s) {
      if (const auto* b = s.as<BlockNode>()) names.push_back(b->name);
    });
    return names;
  };
  EXPECT_EQ(blocks("conv2d_nchw:N=1,C=2,H=5,W=5,K=2,R=3,S=3,stride=1,pad=1"),
            (std::vector<std::string>{"pad", "conv2d_nchw", "root"}));
  EXPECT_EQ(blocks("conv2d_nchw:N=1,C=2,H=5,W=5,K=2,R=3,S=3,stride=1,pad=0"),
            (std::vector<std::string>{"conv2d_nchw", "root"}));
  EXPECT_EQ(blocks("avg_pool2d:N=1,C=2,H=5,W=5,R=3,S=3,stride=1,pad=1"),
            (std::vector<std::string>{"pad", "pool_sum", "pool_avg", "root"}));
  EXPECT_EQ(blocks("softmax:M=2,N=3"),
            (std::vector<std::string>{"softmax_max", "softmax_exp", "softmax_sum", "softmax", "root"}));
  EXPECT_EQ(blocks("dense:M=2,N=3,K=4,bias=1,act=relu"),
            (std::vector<std::string>{"dense", "bias_add", "relu", "root"}));
}

TEST(OpsBuild, PadBodyGuardsAClampedLoad) {
  te::Tensor A = te::placeholder({Expr(4), Expr(5)}, DataType::Float32(), "A");
  te::Tensor P = ops::pad(A, {1, 0}, {2, 0}, Expr(0.0f));
  EXPECT_EQ(P.shape().size(), 2u);
  EXPECT_TRUE(is_const_int(P.shape()[0], 7));
  EXPECT_TRUE(is_const_int(P.shape()[1], 5));
  const auto* sel = P.body().as<SelectNode>();
  ASSERT_NE(sel, nullptr);
  const auto* load = sel->true_value.as<BufferLoadNode>();
  ASSERT_NE(load, nullptr);
  // Padded dimension: clamped into [0, 3]; unpadded: the axis itself.
  EXPECT_NE(load->indices[0].as<MinNode>(), nullptr);
  EXPECT_TRUE(load->indices[1].same_as(P.axis()[1].var()));
  EXPECT_TRUE(ops::pad(A, {0, 0}, {0, 0}, Expr(0.0f)).same_as(A));
}

TEST(OpsBuild, TensorLevelErrorsNameTheOperator) {
  te::Tensor data = te::placeholder({Expr(1), Expr(4), Expr(5), Expr(5)}, DataType::Float32(), "data");
  te::Tensor kernel = te::placeholder({Expr(2), Expr(3), Expr(3), Expr(3)}, DataType::Float32(), "kernel");
  try {
    ops::conv2d_nchw(data, kernel, ops::Conv2dConfig{1, 1, 1, 1});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("conv2d_nchw: kernel kernel has 3 input channels, expected C/groups = 4"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace kiln
