#include "graph/pad_attention.h"

#include "graph/recognize.h"

namespace kiln::graph {

Graph pad_attention_keys(const Graph& in, int64_t lanes) {
  if (lanes < 2) return in;
  Graph g = in;
  for (Node& n : g.nodes) {
    if (n.op != kAttention || n.attrs.count(kPaddedKeys)) continue;
    const Value* kt = g.input(n, 1);
    if (!kt || kt->shape.empty()) continue;
    const int64_t keys = kt->shape.back();
    if (keys <= lanes || keys % lanes == 0) continue;
    n.attrs[kPaddedKeys] = (keys + lanes - 1) / lanes * lanes;
  }
  return g;
}

}  // namespace kiln::graph
