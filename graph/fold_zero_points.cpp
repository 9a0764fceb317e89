#include "graph/fold_zero_points.h"

namespace kiln::graph {
namespace {

// Whether MatMulInteger `n` folds: B a constant matrix, A's zero point one
// value, B's absent or zeros.
bool folds(const Graph& g, const Node& n) {
  if (n.op != "MatMulInteger" || n.outputs.size() != 1) return false;
  const Value* b = g.input(n, 1);
  const Value* za = g.input(n, 2);
  const Value* zb = g.input(n, 3);
  return b && b->is_constant() && b->shape.size() == 2 && za && za->numel() == 1 &&
         (!zb || zb->is_zeros());
}

}  // namespace

Graph fold_zero_points(const Graph& in) {
  Graph g = in;
  g.nodes.clear();
  for (const Node& n : in.nodes) {
    if (!folds(in, n)) {
      g.nodes.push_back(n);
      continue;
    }
    const Value b = in.value(n.inputs[1]);  // a copy: adding values below moves them
    const int64_t K = b.shape[0], N = b.shape[1];
    NDArray sums(DataType::Int(32), {N});
    for (int64_t j = 0; j < N; ++j) {
      int64_t s = 0;
      for (int64_t k = 0; k < K; ++k) s += static_cast<int64_t>(b.data->get(k * N + j));
      sums.set(j, static_cast<double>(s));
    }
    const int colsum = g.add_constant(b.name + "_column_sums", std::move(sums));
    const Value& out = in.value(n.outputs[0]);
    auto value = [&](const std::string& suffix, std::vector<int64_t> shape) {
      Value v;
      v.name = out.name + suffix;
      v.dtype = DataType::Int(32);
      v.shape = std::move(shape);
      return g.add_value(std::move(v));
    };
    const int product = value("_product", out.shape), za = value("_zero_point_int32", in.value(n.inputs[2]).shape),
              correction = value("_correction", {N});
    Node mm = n, cast, mul, sub;
    mm.inputs = {n.inputs[0], n.inputs[1]};
    mm.outputs = {product};
    cast.name = n.name + "_zero_point_int32";
    cast.op = "Cast";
    cast.inputs = {n.inputs[2]};
    cast.outputs = {za};
    cast.attrs["to"] = int64_t{6};  // ONNX's INT32
    mul.name = n.name + "_correction";
    mul.op = "Mul";
    mul.inputs = {za, colsum};
    mul.outputs = {correction};
    sub.name = n.name + "_less_zero_point";
    sub.op = "Sub";
    sub.inputs = {product, correction};
    sub.outputs = {n.outputs[0]};
    for (Node* m : {&mm, &cast, &mul, &sub}) g.nodes.push_back(std::move(*m));
  }
  return g;
}

}  // namespace kiln::graph
