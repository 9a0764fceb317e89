// Static memory planning: intermediates share one arena where their
// lifetimes allow, and two live values never overlap.
#include <gtest/gtest.h>

#include "graph/fuse.h"
#include "graph/memory_plan.h"
#include "graph/onnx_import.h"
#include "model_builder.h"

namespace kiln::graph {
namespace {

using testing::ModelBuilder;
using testing::set_ints;

// Every pair of planned values live at the same step has disjoint bytes.
void expect_no_overlap(const Graph& g, const std::vector<FusedGroup>& groups, const MemoryPlan& plan) {
  std::vector<int64_t> first(g.values.size(), -1), last(g.values.size(), -1);
  for (size_t s = 0; s < groups.size(); ++s) {
    for (int id : groups[s].outputs) first[static_cast<size_t>(id)] = last[static_cast<size_t>(id)] = static_cast<int64_t>(s);
    for (int id : groups[s].inputs) last[static_cast<size_t>(id)] = static_cast<int64_t>(s);
  }
  for (size_t a = 0; a < g.values.size(); ++a) {
    for (size_t b = a + 1; b < g.values.size(); ++b) {
      if (plan.offset[a] == MemoryPlan::kNotPlanned || plan.offset[b] == MemoryPlan::kNotPlanned) continue;
      const bool live_together = first[a] <= last[b] && first[b] <= last[a];
      if (!live_together) continue;
      const int64_t a_end = plan.offset[a] + g.values[a].numel() * 4, b_end = plan.offset[b] + g.values[b].numel() * 4;
      EXPECT_TRUE(a_end <= plan.offset[b] || b_end <= plan.offset[a])
          << "%" << g.values[a].name << " and %" << g.values[b].name << " overlap";
    }
  }
  for (int64_t off : plan.offset) {
    if (off == MemoryPlan::kNotPlanned) continue;
    EXPECT_EQ(off % MemoryPlan::kAlignment, 0);
    EXPECT_LT(off, plan.arena_bytes);
  }
}

TEST(MemoryPlan, AValueDeadAfterAStepGivesItsBytesToALaterOne) {
  // step 0: %a = Conv+Relu(%x)     a: [0, 1K)
  // step 1: %b = Conv+Relu(%a)     b: [1K, 2K)   a is read again at step 2
  // step 2: %c = Conv+Add(%b, %a)  c: [2K, 3K)   a and b die here
  // step 3: %d = Conv+Relu(%c)     d: [0, 1K)    a's bytes
  // step 4: %y = MaxPool(%d)       y is the caller's
  ModelBuilder m;
  m.input("x", {1, 4, 8, 8}).output("y");
  for (const char* w : {"w1", "w2", "w3", "w4"}) m.weights(w, {4, 4, 3, 3});
  set_ints(m.node("Conv", {"x", "w1"}, {"c1"}), "pads", {1, 1, 1, 1});
  m.node("Relu", {"c1"}, {"a"});
  set_ints(m.node("Conv", {"a", "w2"}, {"c2"}), "pads", {1, 1, 1, 1});
  m.node("Relu", {"c2"}, {"b"});
  set_ints(m.node("Conv", {"b", "w3"}, {"c3"}), "pads", {1, 1, 1, 1});
  m.node("Add", {"c3", "a"}, {"c"});
  set_ints(m.node("Conv", {"c", "w4"}, {"c4"}), "pads", {1, 1, 1, 1});
  m.node("Relu", {"c4"}, {"d"});
  set_ints(m.node("MaxPool", {"d"}, {"y"}), "kernel_shape", {2, 2});
  const Graph g = import_onnx_bytes(m.bytes());
  const std::vector<FusedGroup> groups = fuse_operators(g);
  ASSERT_EQ(groups.size(), 5u);
  const MemoryPlan plan = plan_memory(g, groups);
  auto at = [&](const char* name) { return plan.offset[static_cast<size_t>(g.value_id(name))]; };
  EXPECT_EQ(at("a"), 0);
  EXPECT_EQ(at("b"), 1024);
  EXPECT_EQ(at("c"), 2048);
  EXPECT_EQ(at("d"), 0);
  EXPECT_EQ(at("x"), MemoryPlan::kNotPlanned);
  EXPECT_EQ(at("y"), MemoryPlan::kNotPlanned);
  EXPECT_EQ(at("w1"), MemoryPlan::kNotPlanned);
  EXPECT_EQ(plan.arena_bytes, 3072);
  EXPECT_EQ(plan.separate_bytes, 4096);
  expect_no_overlap(g, groups, plan);
}

TEST(MemoryPlan, ALongChainOfMixedSizesNeverOverlaps) {
  // Sizes that do not divide one another, values read far from where they
  // are written: first fit must still keep live values apart.
  ModelBuilder m;
  m.input("x", {1, 3, 10, 10}).output("y");
  std::string prev = "x";
  std::vector<std::string> outs;
  for (int i = 0; i < 8; ++i) {
    const int64_t cin = i == 0 ? 3 : (i % 3) + 2, cout = ((i + 1) % 3) + 2;
    const std::string w = "w" + std::to_string(i), c = "c" + std::to_string(i), r = "r" + std::to_string(i);
    m.weights(w, {cout, cin, 3, 3});
    set_ints(m.node("Conv", {prev, w}, {c}), "pads", {1, 1, 1, 1});
    if (i >= 3 && ((i + 1) % 3) + 2 == ((i - 2) % 3) + 2) {
      m.node("Add", {c, outs[static_cast<size_t>(i - 3)]}, {r});  // a skip from three steps back
    } else {
      m.node("Relu", {c}, {r});
    }
    outs.push_back(r);
    prev = r;
  }
  m.node("Sigmoid", {prev}, {"s"});
  m.node("Flatten", {"s"}, {"y"});
  const Graph g = import_onnx_bytes(m.bytes());
  const std::vector<FusedGroup> groups = fuse_operators(g);
  const MemoryPlan plan = plan_memory(g, groups);
  expect_no_overlap(g, groups, plan);
  EXPECT_LT(plan.arena_bytes, plan.separate_bytes);
}

}  // namespace
}  // namespace kiln::graph
