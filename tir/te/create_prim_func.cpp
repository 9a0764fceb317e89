#include "tir/te/create_prim_func.h"

#include <set>
#include <unordered_set>

#include "core/functor.h"
#include "tir/analysis/access_region.h"

namespace kiln::te {

namespace {

// Stages in an order where each follows the stages it reads (depth-first,
// inputs in order of first use, arguments in order), so the result depends
// only on the definition.
void topo_visit(const Tensor& t, std::unordered_set<const Object*>& seen, std::vector<Tensor>& order) {
  if (!seen.insert(t.get()).second) return;
  for (const Tensor& in : t.inputs()) topo_visit(in, seen, order);
  order.push_back(t);
}

std::string unique_name(const std::string& base, std::set<std::string>& used) {
  std::string name = base;
  for (int i = 1; !used.insert(name).second; ++i) name = base + "_" + std::to_string(i);
  return name;
}

// One compute stage: its loop nest around its block.
Stmt lower_stage(const Tensor& t, const std::string& block_name) {
  const auto* reduce_node = t.body().as<ReduceNode>();
  std::vector<IterVar> axes = t.axis();
  size_t num_spatial = axes.size();
  if (reduce_node) axes.insert(axes.end(), reduce_node->axis.begin(), reduce_node->axis.end());

  std::vector<Var> loop_vars;
  std::vector<IterVar> block_vars;
  std::vector<std::pair<Var, Expr>> to_block;
  for (size_t a = 0; a < axes.size(); ++a) {
    const IterVar& ax = axes[a];
    loop_vars.push_back(Var(ax.var().name(), DataType::Int32()));
    Var v("v_" + ax.var().name(), DataType::Int32());
    block_vars.push_back(IterVar(v, ax.dom(), a < num_spatial ? IterType::kSpatial : IterType::kReduce));
    to_block.emplace_back(ax.var(), v);
  }

  std::vector<Expr> out_index;
  for (size_t a = 0; a < num_spatial; ++a) out_index.push_back(block_vars[a].var());

  BlockFields f;
  f.name = block_name;
  f.iter_vars = block_vars;
  f.annotations = t->annotations;
  if (reduce_node) {
    Expr source = substitute(reduce_node->source, to_block);
    Expr acc = buffer_load(t.buffer(), out_index);
    f.init = buffer_store(t.buffer(), reduce_identity(reduce_node->combiner, t.dtype()), out_index);
    f.body = buffer_store(t.buffer(), reduce_combine(reduce_node->combiner, acc, source), out_index);
  } else {
    f.body = buffer_store(t.buffer(), substitute(t.body(), to_block), out_index);
  }
  auto [reads, writes] = block_access_regions(block(f));
  f.reads = std::move(reads);
  f.writes = std::move(writes);

  std::vector<Expr> iter_values(loop_vars.begin(), loop_vars.end());
  Stmt nest = block_realize(std::move(iter_values), Expr(), block(std::move(f)));
  for (size_t a = axes.size(); a-- > 0;) {
    const Range& dom = axes[a].dom();
    nest = for_loop(loop_vars[a], dom->min, dom->extent, ForKind::kSerial, nest);
  }
  return nest;
}

}  // namespace

PrimFunc create_prim_func(const std::vector<Tensor>& args, const std::string& name) {
  if (name.empty()) KILN_USER_ERROR() << "create_prim_func needs a function name";
  if (args.empty()) KILN_USER_ERROR() << "function " << name << " has no arguments";
  std::unordered_set<const Object*> is_arg;
  for (const Tensor& t : args) {
    if (!t.defined()) KILN_USER_ERROR() << "function " << name << " has an undefined argument";
    if (!is_arg.insert(t.get()).second)
      KILN_USER_ERROR() << "tensor " << t.name() << " is passed twice to function " << name;
  }

  std::unordered_set<const Object*> seen;
  std::vector<Tensor> order;
  for (const Tensor& t : args) topo_visit(t, seen, order);

  std::set<std::string> used_names{"root"};
  std::vector<Stmt> stages;
  std::vector<Buffer> intermediates;
  for (const Tensor& t : order) {
    if (t.is_placeholder()) {
      if (!is_arg.count(t.get()))
        KILN_USER_ERROR() << "placeholder " << t.name() << " is used by function " << name
                          << " but is not one of its arguments";
      continue;
    }
    if (!is_arg.count(t.get())) intermediates.push_back(t.buffer());
    stages.push_back(lower_stage(t, unique_name(t.name(), used_names)));
  }

  BlockFields root;
  root.name = "root";
  root.body = seq(std::move(stages));
  root.alloc_buffers = std::move(intermediates);
  Stmt body = block_realize({}, Expr(), block(std::move(root)));

  std::vector<Buffer> params;
  for (const Tensor& t : args) params.push_back(t.buffer());
  return PrimFunc(name, std::move(params), std::move(body));
}

}  // namespace kiln::te
