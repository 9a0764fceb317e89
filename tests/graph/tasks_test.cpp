// Task extraction: fused groups as functions, and identical ones as one
// task with a weight.
#include <gtest/gtest.h>

#include <cmath>

#include "graph/fuse.h"
#include "graph/onnx_import.h"
#include "graph/reference.h"
#include "graph/tasks.h"
#include "model_builder.h"
#include "ops/workload.h"
#include "tir/analysis/workload_key.h"
#include "tir/interp/interpreter.h"

namespace kiln::graph {
namespace {

using testing::ModelBuilder;
using testing::set_ints;

std::vector<Task> tasks_of(const Graph& g) { return extract_tasks(g, fuse_operators(g)); }

TEST(Tasks, ALoneConvIsItsWorkload) {
  // The model's Conv, alone in its group, is the function `kiln tune-op`
  // tunes for the workload string: same key, same FLOPs, so records tuned
  // either way serve both.
  ModelBuilder m;
  m.input("x", {1, 4, 6, 6}).weights("w", {8, 4, 3, 3}).output("y");
  set_ints(m.node("Conv", {"x", "w"}, {"y"}), "pads", {1, 1, 1, 1});
  const std::vector<Task> tasks = tasks_of(import_onnx_bytes(m.bytes()));
  ASSERT_EQ(tasks.size(), 1u);
  const ops::Workload w = ops::parse_workload("conv2d_nchw:N=1,C=4,H=6,W=6,K=8,R=3,S=3,stride=1,pad=1");
  EXPECT_EQ(tasks[0].key, workload_key(ops::build_workload(w)));
  EXPECT_EQ(tasks[0].flops, ops::workload_flops(w));
  EXPECT_EQ(tasks[0].signature, "Conv(float32[1, 4, 6, 6], float32[8, 4, 3, 3]) -> float32[1, 8, 6, 6]");
}

TEST(Tasks, TheWeightsAreTheParametersBoundToConstants) {
  // Conv(x, w, b) + Add(., r): x and r are activations, w and b weights;
  // tuning times the weights cold (search::ModelArgs).
  ModelBuilder m;
  m.input("x", {1, 4, 6, 6}).input("r", {1, 8, 6, 6}).weights("w", {8, 4, 3, 3}).weights("b", {8}).output("y");
  set_ints(m.node("Conv", {"x", "w", "b"}, {"c"}), "pads", {1, 1, 1, 1});
  m.node("Add", {"c", "r"}, {"y"});
  const Graph g = import_onnx_bytes(m.bytes());
  const std::vector<Task> tasks = tasks_of(g);
  ASSERT_EQ(tasks.size(), 1u);
  const std::vector<int>& args = tasks[0].args[0];
  std::vector<int> want;
  for (size_t p = 0; p < args.size(); ++p)
    if (g.value(args[p]).name == "w" || g.value(args[p]).name == "b") want.push_back(static_cast<int>(p));
  ASSERT_EQ(want.size(), 2u) << "the task binds both weights";
  EXPECT_EQ(constant_params(g, tasks[0]), want);
}

TEST(Tasks, IdenticalGroupsAreOneTaskWithAWeight) {
  // Before: three Conv+Relu groups, the first two alike (4 -> 4 channels),
  // the third not (4 -> 8). After: two tasks, weights 2 and 1.
  ModelBuilder m;
  m.input("x", {1, 4, 6, 6}).weights("w1", {4, 4, 3, 3}).weights("w2", {4, 4, 3, 3}).weights("w3", {8, 4, 3, 3});
  m.output("y");
  set_ints(m.node("Conv", {"x", "w1"}, {"c1"}), "pads", {1, 1, 1, 1});
  m.node("Relu", {"c1"}, {"r1"});
  set_ints(m.node("Conv", {"r1", "w2"}, {"c2"}), "pads", {1, 1, 1, 1});
  m.node("Relu", {"c2"}, {"r2"});
  set_ints(m.node("Conv", {"r2", "w3"}, {"c3"}), "pads", {1, 1, 1, 1});
  m.node("Relu", {"c3"}, {"y"});
  const std::vector<Task> tasks = tasks_of(import_onnx_bytes(m.bytes()));
  ASSERT_EQ(tasks.size(), 2u);
  EXPECT_EQ(tasks[0].groups, (std::vector<size_t>{0, 1}));
  EXPECT_EQ(tasks[0].weight(), 2);
  EXPECT_EQ(tasks[1].groups, (std::vector<size_t>{2}));
  EXPECT_EQ(tasks[0].name, "Conv+Relu");
  EXPECT_NE(tasks[0].key, tasks[1].key);
  // 2·C·R·S multiply-adds per output element, and one max for the ReLU.
  EXPECT_EQ(tasks[0].flops, (2.0 * 4 * 9 + 1) * 4 * 36);
  EXPECT_EQ(tasks[1].flops, (2.0 * 4 * 9 + 1) * 8 * 36);
}

TEST(Tasks, AGroupFunctionComputesWhatItsNodesDo) {
  // A residual block's second half as one function (the convolution, a
  // per-channel scale, the skip add and the ReLU), run on the interpreter,
  // against the graph's node-by-node reference.
  ModelBuilder m;
  m.input("x", {1, 4, 5, 5}).weights("w", {4, 4, 3, 3}).weights("s", {4, 1, 1}).output("y");
  set_ints(m.node("Conv", {"x", "w"}, {"c"}), "pads", {1, 1, 1, 1});
  m.node("Mul", {"c", "s"}, {"n"});
  m.node("Add", {"n", "x"}, {"a"});
  m.node("Relu", {"a"}, {"y"});
  const Graph g = import_onnx_bytes(m.bytes());
  const std::vector<FusedGroup> groups = fuse_operators(g);
  ASSERT_EQ(groups.size(), 1u);
  const GroupFunction gf = group_function(g, groups[0]);
  // Parameters: x, the two weights, then y.
  ASSERT_EQ(gf.args.size(), 4u);
  EXPECT_EQ(gf.args.front(), g.value_id("x"));
  EXPECT_EQ(gf.args.back(), g.value_id("y"));

  NDArray x(DataType::Float32(), {1, 4, 5, 5});
  x.fill_random(7);
  std::vector<NDArray> inputs;
  inputs.push_back(x.copy());
  const NDArray want = std::move(run_reference(g, inputs)[0]);
  NDArray got(DataType::Float32(), {1, 4, 5, 5});
  std::vector<HostBuffer> buffers;
  for (size_t k = 0; k + 1 < gf.args.size(); ++k) {
    const Value& v = g.value(gf.args[k]);
    const NDArray& a = v.is_constant() ? *v.data : x;
    buffers.push_back({v.dtype, v.shape, const_cast<void*>(a.data())});
  }
  buffers.push_back(got.host_buffer());
  interpret(gf.func, buffers);
  double worst = 0;
  int64_t positive = 0;
  for (int64_t i = 0; i < want.numel(); ++i) {
    ASSERT_TRUE(std::isfinite(want.get(i)) && std::isfinite(got.get(i))) << i;
    worst = std::max(worst, std::abs(want.get(i) - got.get(i)));
    positive += want.get(i) > 0;
  }
  EXPECT_LT(worst, 1e-5);
  EXPECT_GT(positive, want.numel() / 4);  // the ReLU let through enough to compare
}

TEST(Tasks, AGroupsKindIsItsHeaviestOperators) {
  EXPECT_EQ(task_kind("Reshape+Transpose+Reshape+Transpose+kiln.Attention"), "attention");
  EXPECT_EQ(task_kind("Transpose+Reshape+MatMul+Add+Add"), "dense");
  EXPECT_EQ(task_kind("kiln.ToNCHWc+kiln.ConvNCHWc"), "conv");
  EXPECT_EQ(task_kind("LayerNormalization"), "norm");
  EXPECT_EQ(task_kind("ReduceMean+Add+Sqrt"), "reduction");
  EXPECT_EQ(task_kind("LSTM+Tanh"), "recurrent");
  EXPECT_EQ(task_kind("kiln.MaxPoolNCHWc"), "reduction");
  EXPECT_EQ(task_kind("Reshape+Gelu+Reshape"), "elementwise");
}

}  // namespace
}  // namespace kiln::graph
