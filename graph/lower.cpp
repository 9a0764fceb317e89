#include "graph/lower.h"

#include "core/error.h"
#include "graph/op_table.h"

namespace kiln::graph {

bool is_parameter_input(const Node& n, size_t i) { return op_def(n).is_parameter(i); }

bool is_parameter_input(const std::string& op, size_t i) {
  const OpDef* def = find_op_def(op);
  return def && def->is_parameter(i);
}

bool is_lowered(const Node& n) { return static_cast<bool>(op_def(n).lower); }

std::vector<te::Tensor> lower_node(const Graph& g, const Node& n, const std::vector<te::Tensor>& in) {
  const OpDef& def = op_def(n);
  if (!def.lower) KILN_USER_ERROR() << n.describe() << ": has no compute definition (it folds at import)";
  return def.lower(g, n, in);
}

}  // namespace kiln::graph
