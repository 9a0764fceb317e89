// Task extraction: each fused group of a model as one function to tune.
//
//   %r1 = Conv+BatchNormalization+Relu(%x, %w1, ...)   ┐ one task, weight 2:
//   %r2 = Conv+BatchNormalization+Relu(%r1, %w2, ...)  ┘ the same function
//   %y  = Conv(%r2, %w3)                                 a task of its own
//
// A group's function takes the values the group reads (weights included:
// they are arguments, not baked in) and then the values it writes; what the
// nodes inside compute in between are stages of the one function, which a
// schedule inlines or computes in place. Each node's stage comes from its
// compute definition (graph/lower.h), so a group of one operator is the
// same function as that operator's workload in ops/: a Conv alone has the
// workload key (tir/analysis/workload_key.h) of `kiln tune-op
// conv2d_nchw:...`, and records tuned either way serve both.
//
// Groups whose functions have the same workload key are one task; its
// weight is how many groups it stands for, which the task scheduler
// multiplies its latency by.
#pragma once

#include <string>
#include <vector>

#include "graph/fuse.h"
#include "graph/graph.h"

namespace kiln::graph {

// A group's function, and the values its parameters are bound to: the
// group's inputs that it computes with (parameter inputs, like Reshape's
// shape, are read from the graph when the function is built), then its
// outputs.
struct GroupFunction {
  PrimFunc func;
  std::vector<int> args;  // value ids, one per function parameter
};

GroupFunction group_function(const Graph& g, const FusedGroup& group);

struct Task {
  std::string name;          // the group's operators, "Conv+BatchNormalization+Relu"
  std::string key;           // workload_key(func)
  PrimFunc func;             // unscheduled, the first group's
  std::string signature;     // "Conv+Relu(float32[1, 64, 56, 56], float32[64, 64, 3, 3]) -> float32[1, 64, 56, 56]"
  double flops = 0;          // of one run (tir/analysis/flops.h)
  std::vector<size_t> groups;  // indices of the groups it stands for; its weight is their count
  // Per group of `groups`: the values its call binds (GroupFunction::args).
  std::vector<std::vector<int>> args;
  int64_t weight() const { return static_cast<int64_t>(groups.size()); }
};

// One task per distinct function, in order of first use.
std::vector<Task> extract_tasks(const Graph& g, const std::vector<FusedGroup>& groups);

// The positions of the task's parameters that its calls bind to
// constants: the weights, which tuning times cold (search::ModelArgs).
std::vector<int> constant_params(const Graph& g, const Task& t);

// What a group (or a task, a compiled call) named by its operators
// ("Reshape+Transpose+kiln.Attention", "MatMul+Add+Gelu") mostly does, by
// its heaviest operator: "attention", "conv", "dense" (MatMul, Gemm,
// Einsum), "recurrent" (RNN, GRU, LSTM), "norm" (LayerNormalization, InstanceNormalization, Softmax and
// their kin), "reduction" (pools, ReduceX), else "elementwise" (data
// movement included). How `kiln run --profile` sums time by kind.
std::string task_kind(const std::string& ops);

// The tasks as text, one per line: "task 0  x2  dense  3.7 MFLOP  v1-...  MatMul+Relu(...) -> ...".
std::string tasks_str(const std::vector<Task>& tasks);

}  // namespace kiln::graph
