#include "graph/tasks.h"

#include <algorithm>
#include <iomanip>
#include <map>
#include <sstream>

#include "graph/layout.h"
#include "graph/lower.h"
#include "graph/op_table.h"
#include "graph/recognize.h"
#include "ops/common.h"
#include "tir/analysis/flops.h"
#include "tir/analysis/workload_key.h"
#include "tir/te/create_prim_func.h"

namespace kiln::graph {
namespace {

std::string group_name(const Graph& g, const FusedGroup& group, const char* sep) {
  std::string name;
  for (size_t k = 0; k < group.nodes.size(); ++k) name += (k ? sep : "") + g.nodes[group.nodes[k]].op;
  return name;
}

}  // namespace

GroupFunction group_function(const Graph& g, const FusedGroup& group) {
  GroupFunction out;
  std::vector<te::Tensor> params;
  std::map<int, te::Tensor> tensors;  // value id -> its tensor: a placeholder, or a stage of the group
  for (size_t k = 0; k < group.nodes.size(); ++k) {
    const Node& n = g.nodes[group.nodes[k]];
    std::vector<te::Tensor> in(n.inputs.size());
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      const int id = n.inputs[i];
      if (id == Node::kNone || is_parameter_input(n, i)) continue;
      auto it = tensors.find(id);
      if (it == tensors.end()) {
        const Value& v = g.value(id);
        te::Tensor p = te::placeholder(ops::i32s(v.shape), v.dtype, "in" + std::to_string(params.size()));
        it = tensors.emplace(id, p).first;
        params.push_back(p);
        out.args.push_back(id);
      }
      in[i] = it->second;
    }
    const std::vector<te::Tensor> outs = lower_node(g, n, in);
    for (size_t i = 0; i < outs.size() && i < n.outputs.size(); ++i)
      if (n.outputs[i] != Node::kNone) tensors[n.outputs[i]] = outs[i];
  }
  for (int id : group.outputs) {
    params.push_back(tensors.at(id));
    out.args.push_back(id);
  }
  out.func = te::create_prim_func(params, group_name(g, group, "_"));
  return out;
}

std::vector<Task> extract_tasks(const Graph& g, const std::vector<FusedGroup>& groups) {
  std::vector<Task> tasks;
  std::map<std::string, size_t> by_key;
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    if (is_input_view(g, groups[gi])) continue;  // no kernel: the input read where it lies
    GroupFunction gf = group_function(g, groups[gi]);
    std::string key = workload_key(gf.func);
    auto it = by_key.find(key);
    if (it != by_key.end()) {
      tasks[it->second].groups.push_back(gi);
      tasks[it->second].args.push_back(std::move(gf.args));
      continue;
    }
    Task t;
    t.name = group_name(g, groups[gi], "+");
    t.key = key;
    t.flops = estimate_flops(gf.func);
    std::ostringstream sig;
    sig << t.name << "(";
    const size_t num_in = gf.args.size() - groups[gi].outputs.size();
    for (size_t k = 0; k < gf.args.size(); ++k) {
      if (k == num_in) sig << ") -> ";
      else if (k) sig << ", ";
      sig << type_str(g.value(gf.args[k]));
    }
    t.signature = sig.str();
    t.func = std::move(gf.func);
    t.groups.push_back(gi);
    t.args.push_back(std::move(gf.args));
    by_key.emplace(std::move(key), tasks.size());
    tasks.push_back(std::move(t));
  }
  return tasks;
}

std::string task_kind(const std::string& ops) {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> kinds = {
      {"attention", {kAttention}},
      {"conv", {"Conv", "ConvTranspose", kConvNCHWc, kDepthwiseConvNCHWc, kGroupedConvNCHWc, kWinogradConvNCHWc,
                "ConvInteger", "QLinearConv", kQLinearConvNCHWc}},
      {"dense", {"MatMul", "Gemm", "Einsum", "MatMulInteger", "QLinearMatMul"}},
      {"recurrent", {"RNN", "GRU", "LSTM"}},
      {"norm", {"LayerNormalization", "InstanceNormalization", "BatchNormalization", "Softmax", "LogSoftmax",
                "Hardmax"}},
  };
  std::vector<std::string> names;
  std::stringstream in(ops);
  for (std::string op; std::getline(in, op, '+');) names.push_back(op);
  for (const auto& [kind, members] : kinds)
    for (const std::string& op : names)
      if (std::find(members.begin(), members.end(), op) != members.end()) return kind;
  for (const std::string& op : names) {
    const OpDef* def = find_any_op_def(op);  // kiln.MaxPoolNCHWc is a reduction too
    if (def && def->pattern == OpPattern::kReduction) return "reduction";
  }
  return "elementwise";
}

std::string tasks_str(const std::vector<Task>& tasks) {
  std::ostringstream os;
  for (size_t i = 0; i < tasks.size(); ++i) {
    const Task& t = tasks[i];
    os << "task " << i << "  x" << t.weight() << "  " << task_kind(t.name) << "  " << std::fixed << std::setprecision(1) << t.flops / 1e6
       << " MFLOP  " << t.key << "  " << t.signature << "\n";
  }
  return os.str();
}

std::vector<int> constant_params(const Graph& g, const Task& t) {
  std::vector<int> out;
  if (t.args.empty()) return out;
  for (size_t p = 0; p < t.args[0].size(); ++p)  // alike groups bind constants at the same positions
    if (g.value(t.args[0][p]).is_constant()) out.push_back(static_cast<int>(p));
  return out;
}

}  // namespace kiln::graph
