#include "graph/operators/common.h"

#include <algorithm>

#include "ops/common.h"

namespace kiln::graph::operators {

int64_t product(const Shape& s, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < std::min(to, s.size()); ++i) p *= s[i];
  return p;
}

void require_float(const Node& n, const Value& v) {
  if (!v.dtype.is_float())
    KILN_UNSUPPORTED() << n.describe() << ": input '" << v.name << "' is " << v.dtype.str()
                      << "; other than floating-point tensors are not supported";
}

void require_rank(const Node& n, const Value& v, size_t rank) {
  if (v.shape.size() != rank)
    KILN_UNSUPPORTED() << n.describe() << ": input '" << v.name << "' has shape " << shape_str(v.shape)
                      << "; ranks other than " << rank << " are not supported yet";
}

void not_yet(const Node& n, const std::string& what) {
  KILN_UNSUPPORTED() << n.describe() << ": " << what << " is not supported yet";
}

void same_as_input(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  set_output(g, n, 0, x.dtype, x.shape);
}

const Shape& out_shape(const Graph& g, const Node& n, size_t i) { return g.value(n.outputs.at(i)).shape; }

LowerFn one_output(LowerOneFn f) {
  return [f = std::move(f)](const Graph& g, const Node& n, const Tensors& in) -> Tensors {
    for (size_t i = 1; i < n.outputs.size(); ++i)
      if (n.outputs[i] != Node::kNone) not_yet(n, "output " + std::to_string(i));
    return {f(g, n, in)};
  };
}

std::vector<Expr> batch_index(const Shape& operand, const std::vector<Var>& i, size_t batch) {
  const size_t tb = operand.size() >= 2 ? operand.size() - 2 : 0;
  std::vector<Expr> idx;
  for (size_t d = 0; d < tb; ++d) idx.push_back(operand[d] == 1 ? Expr(ops::i32(0)) : Expr(i[batch - tb + d]));
  return idx;
}

}  // namespace kiln::graph::operators
