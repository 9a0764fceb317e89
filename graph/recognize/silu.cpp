// recognize_silu (graph/recognize.h): Mul(x, Sigmoid(x)) in either operand
// order, the Sigmoid read by the Mul alone.
#include "graph/recognize.h"
#include "graph/recognize/match.h"

namespace kiln::graph {

Graph recognize_silu(const Graph& in) {
  return recognize::replace_matches(in, "Mul", [](const recognize::Matcher& m, const Node& root, Graph&) {
    std::optional<recognize::Replacement> none;
    if (root.inputs.size() != 2 || root.outputs.size() != 1) return none;
    for (size_t k = 0; k < 2; ++k) {
      const int s = root.inputs[k], x = root.inputs[1 - k];
      const Node* sigmoid = m.writer(s, "Sigmoid");
      if (!sigmoid || sigmoid->inputs.at(0) != x || s == x || m.readers(s) != 1) continue;
      if (m.graph().value(x).dtype != DataType::Float32()) continue;
      Node silu;
      silu.name = root.name;
      silu.op = kSiLU;
      silu.inputs = {x};
      silu.outputs = root.outputs;
      return std::optional<recognize::Replacement>({&root, std::move(silu)});
    }
    return none;
  });
}

}  // namespace kiln::graph
