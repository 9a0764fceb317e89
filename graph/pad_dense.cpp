#include "graph/pad_dense.h"

#include <cstring>

namespace kiln::graph {
namespace {

// The columns `n` rounded up to a multiple of `block`.
int64_t round_up(int64_t n, int64_t block) { return (n + block - 1) / block * block; }

// `w` [K, N] with zero columns appended up to `padded`.
NDArray padded_columns(const NDArray& w, int64_t padded) {
  const int64_t rows = w.shape().at(0), cols = w.shape().at(1);
  NDArray out(w.dtype(), {rows, padded});
  std::memset(out.data(), 0, out.nbytes());
  for (int64_t r = 0; r < rows; ++r)
    std::memcpy(out.data_as<float>() + r * padded, w.data_as<float>() + r * cols, sizeof(float) * static_cast<size_t>(cols));
  return out;
}

}  // namespace

Graph pad_dense_columns(const Graph& in, int64_t lanes) {
  if (lanes < 2) return in;
  const int64_t block = 4 * lanes;
  Graph g = in;
  g.nodes.clear();
  for (const Node& n : in.nodes) {
    const Value* w = n.op == "MatMul" && n.inputs.size() == 2 ? in.input(n, 1) : nullptr;
    const bool awkward = w && w->is_constant() && w->dtype == DataType::Float32() && w->shape.size() == 2 &&
                         w->shape[1] >= kMinPaddedColumns && w->shape[1] % block != 0 &&
                         n.outputs.size() == 1 && n.outputs[0] != Node::kNone;
    if (!awkward) {
      g.nodes.push_back(n);
      continue;
    }
    const int64_t cols = w->shape[1], padded = round_up(cols, block);
    const int w_padded = g.add_constant(w->name + "_padded", padded_columns(*w->data, padded));
    Value y_padded = in.value(n.outputs[0]);
    y_padded.name += "_padded";
    y_padded.shape.back() = padded;
    const int y_padded_id = g.add_value(std::move(y_padded));

    Node matmul = n;
    matmul.inputs[1] = w_padded;
    matmul.outputs = {y_padded_id};
    g.nodes.push_back(std::move(matmul));
    Node slice;
    slice.name = n.name + "_columns";
    slice.op = "Slice";
    slice.inputs = {y_padded_id};
    slice.outputs = n.outputs;
    slice.attrs["starts"] = std::vector<int64_t>{0};
    slice.attrs["ends"] = std::vector<int64_t>{cols};
    slice.attrs["axes"] = std::vector<int64_t>{static_cast<int64_t>(in.value(n.outputs[0]).shape.size()) - 1};
    g.nodes.push_back(std::move(slice));
  }
  return g;
}

}  // namespace kiln::graph
