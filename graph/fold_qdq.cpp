#include "graph/fold_qdq.h"

#include <cmath>
#include <map>
#include <tuple>

#include "graph/recognize/match.h"

namespace kiln::graph {
namespace {

bool is_constant(const Graph& g, int id) { return id != Node::kNone && g.value(id).is_constant(); }

// Input `i` of `n`, or kNone.
int input_of(const Node& n, size_t i) { return i < n.inputs.size() ? n.inputs[i] : Node::kNone; }

// Whether `n` is a (De)QuantizeLinear of one scale and zero point per
// tensor, both constant (the zero point may be absent).
bool per_tensor(const Graph& g, const Node& n) {
  const int scale = input_of(n, 1), zp = input_of(n, 2);
  return is_constant(g, scale) && g.value(scale).numel() == 1 &&
         (zp == Node::kNone || (is_constant(g, zp) && g.value(zp).numel() == 1));
}

using Shape = std::vector<int64_t>;

// An absent zero point, or one of zeros.
bool all_zero(const Graph& g, int id) { return id == Node::kNone || g.value(id).is_zeros(); }

class Folder {
 public:
  explicit Folder(const Graph& in) : in_(in), g_(in), match_(in) {}

  Graph run() {
    drop_.assign(g_.nodes.size(), false);
    before_.assign(g_.nodes.size(), {});
    for (size_t i = 0; i < g_.nodes.size(); ++i)
      if (g_.nodes[i].op == "Conv") fold_conv(i);
      else if (g_.nodes[i].op == "MatMul" || g_.nodes[i].op == "Gemm") fold_product(i);
    std::vector<Node> kept;
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      for (Node& n : before_[i]) kept.push_back(std::move(n));
      if (!drop_[i]) kept.push_back(std::move(g_.nodes[i]));
    }
    g_.nodes = std::move(kept);
    return std::move(g_);
  }

 private:
  // The index of the one node reading `id` (not a graph output), else -1.
  int only_reader(int id) const {
    const Node* r = match_.sole_reader(id);
    return r ? static_cast<int>(r - in_.nodes.data()) : -1;
  }

  // Whether the zero point `zp` (kNone: 0 of uint8) is its type's lowest value.
  bool is_lowest(int zp) const {
    if (zp == Node::kNone) return true;
    const Value& v = g_.value(zp);
    return v.data->get(0) == (v.dtype.is_uint() ? 0.0 : -128.0);
  }

  void fold_conv(size_t ci) {
    const Node conv = g_.nodes[ci];
    if (conv.outputs.size() != 1) return;
    const Node* dx = match_.writer(input_of(conv, 0), "DequantizeLinear");
    const Node* dw = match_.writer(input_of(conv, 1), "DequantizeLinear");
    if (!dx || !dw || !per_tensor(g_, *dx)) return;
    const int wq = input_of(*dw, 0), sw = input_of(*dw, 1);
    if (!is_constant(g_, wq) || g_.value(wq).dtype != DataType::Int(8) || !is_constant(g_, sw) ||
        !all_zero(g_, input_of(*dw, 2)))
      return;
    const int64_t K = g_.value(wq).shape.at(0);
    const int64_t per_axis = g_.value(sw).numel();
    if (per_axis != 1 && (per_axis != K || dw->attr_int("axis", 1) != 0)) return;
    const int bias = input_of(conv, 2);
    if (bias != Node::kNone && (!is_constant(g_, bias) || g_.value(bias).dtype != DataType::Float32())) return;
    // The chain after: an optional Relu, then the QuantizeLinear.
    int at = conv.outputs[0];
    std::vector<size_t> chain{ci};
    int r = only_reader(at);
    bool relu = false;
    if (r >= 0 && in_.nodes[static_cast<size_t>(r)].op == "Relu") {
      relu = true;
      chain.push_back(static_cast<size_t>(r));
      at = in_.nodes[static_cast<size_t>(r)].outputs.at(0);
      r = only_reader(at);
    }
    if (r < 0) return;
    const Node& q = in_.nodes[static_cast<size_t>(r)];
    if (q.op != "QuantizeLinear" || !per_tensor(g_, q) || (relu && !is_lowest(input_of(q, 2)))) return;
    chain.push_back(static_cast<size_t>(r));

    const int sx = input_of(*dx, 1);
    int xq = input_of(*dx, 0), zx = zero_point(input_of(*dx, 2), g_.value(xq).dtype, conv.name + "_x_zero_point");
    if (g_.value(xq).dtype == DataType::Int(8)) std::tie(xq, zx) = as_uint8(xq, zx, ci);
    Node out;
    out.name = conv.name + "_qlinear";
    out.op = "QLinearConv";
    out.attrs = conv.attrs;
    const int zw = input_of(*dw, 2) != Node::kNone
                       ? input_of(*dw, 2)
                       : g_.add_constant(conv.name + "_w_zero_point", NDArray(DataType::Int(8), {}));
    out.inputs = {xq, sx, zx, wq, sw, zw, input_of(q, 1),
                  zero_point(input_of(q, 2), DataType::UInt(8), conv.name + "_y_zero_point")};
    if (bias != Node::kNone) out.inputs.push_back(quantized_bias(bias, sx, sw, K, conv.name));
    out.outputs = {q.outputs.at(0)};
    g_.nodes[ci] = std::move(out);
    for (size_t k = 1; k < chain.size(); ++k) drop_[chain[k]] = true;
  }

  // A MatMul or Gemm of dequantized data by dequantized constant int8
  // weights of zero point 0: the integer product, scaled back to float.
  //   %y = MatMul(DQ(%a, sa, za), DQ(%W, sw, 0)) [+ C]
  //     -> %y = Add(Mul(Cast(MatMulInteger(%a, %W', za)), sa · sw), C)
  // (W' the weights as [K, N]; A of more than two axes reshaped to rows
  // and back). fold_zero_points then takes za out of the product.
  void fold_product(size_t pi) {
    const Node node = g_.nodes[pi];
    const bool gemm = node.op == "Gemm";
    if (node.outputs.size() != 1 || g_.value(node.outputs[0]).dtype != DataType::Float32()) return;
    if (gemm && (node.attr_int("transA", 0) != 0 || node.attr_float("alpha", 1.0) != 1.0 ||
                 node.attr_float("beta", 1.0) != 1.0))
      return;
    const Node* da = match_.writer(input_of(node, 0), "DequantizeLinear");
    const Node* dw = match_.writer(input_of(node, 1), "DequantizeLinear");
    if (!da || !dw || !per_tensor(g_, *da)) return;
    const int wq = input_of(*dw, 0), sw = input_of(*dw, 1);
    if (!is_constant(g_, wq) || g_.value(wq).dtype != DataType::Int(8) || g_.value(wq).shape.size() != 2 ||
        !is_constant(g_, sw) || !all_zero(g_, input_of(*dw, 2)))
      return;
    const bool trans_b = gemm && node.attr_int("transB", 0) != 0;
    const Shape w_shape = g_.value(wq).shape;
    const int64_t K = trans_b ? w_shape[1] : w_shape[0], N = trans_b ? w_shape[0] : w_shape[1];
    // The weights' scale: one, or one per output column (axis 1 of [K, N], 0 of [N, K]).
    const int64_t per = g_.value(sw).numel();
    const int64_t rank_w = 2;
    int64_t axis = dw->attr_int("axis", 1);
    if (axis < 0) axis += rank_w;
    if (per != 1 && (per != N || axis != (trans_b ? 0 : 1))) return;
    const int bias = gemm ? input_of(node, 2) : Node::kNone;
    if (bias != Node::kNone && (!is_constant(g_, bias) || g_.value(bias).dtype != DataType::Float32() ||
                                g_.value(bias).numel() != N || g_.value(bias).shape.back() != N))
      return;
    int a = input_of(*da, 0);
    const int sa = input_of(*da, 1);
    int za = input_of(*da, 2);
    if (g_.value(a).dtype == DataType::Int(8))
      std::tie(a, za) = as_uint8(a, zero_point(za, DataType::Int(8), node.name + "_a_zero_point"), pi);
    if (za != Node::kNone && all_zero(g_, za)) za = Node::kNone;
    const Shape a_shape = g_.value(a).shape;
    if (a_shape.size() < 2 || a_shape.back() != K) return;
    const Value out = g_.value(node.outputs[0]);
    int64_t rows = 1;
    for (size_t d = 0; d + 1 < a_shape.size(); ++d) rows *= a_shape[d];

    std::vector<Node>& at = before_[pi];
    const std::string& name = node.name;
    // A as rows, where it has more than two axes.
    int a2 = a;
    if (a_shape.size() > 2) a2 = reshape(a, {rows, K}, name + "_rows", at);
    // W as [K, N], int8.
    int w = wq;
    if (trans_b) {
      const NDArray& src = *g_.value(wq).data;
      NDArray t(DataType::Int(8), {K, N});
      for (int64_t k = 0; k < K; ++k)
        for (int64_t n = 0; n < N; ++n) t.set(k * N + n, src.get(n * K + k));
      w = g_.add_constant(g_.value(wq).name + "_kn", std::move(t));
    }
    const int acc = new_value(name + "_int32", DataType::Int(32), {rows, N});
    Node mm = make_node(name + "_integer", "MatMulInteger", {a2, w}, {acc});
    if (za != Node::kNone) mm.inputs.push_back(za);
    at.push_back(std::move(mm));
    const int f = new_value(name + "_float", DataType::Float32(), {rows, N});
    Node cast = make_node(name + "_float", "Cast", {acc}, {f});
    cast.attrs["to"] = int64_t{1};  // ONNX's FLOAT
    at.push_back(std::move(cast));
    // sa · sw, one value or one per column.
    NDArray scale(DataType::Float32(), {per});
    const float a_scale = static_cast<float>(g_.value(sa).data->get(0));
    for (int64_t n = 0; n < per; ++n) scale.set(n, a_scale * static_cast<float>(g_.value(sw).data->get(n)));
    const int scale_id = g_.add_constant(name + "_scale", std::move(scale));
    const bool reshaped = a_shape.size() > 2;
    const int scaled = bias == Node::kNone && !reshaped ? node.outputs[0]
                                                         : new_value(name + "_scaled", DataType::Float32(), {rows, N});
    at.push_back(make_node(name + "_scaled", "Mul", {f, scale_id}, {scaled}));
    int last = scaled;
    if (bias != Node::kNone) {
      const int biased = reshaped ? new_value(name + "_biased", DataType::Float32(), {rows, N}) : node.outputs[0];
      at.push_back(make_node(name + "_bias", "Add", {scaled, bias}, {biased}));
      last = biased;
    }
    if (reshaped) {
      const int shape = g_.add_constant(name + "_out_shape", shape_constant(out.shape));
      at.push_back(make_node(name + "_unrows", "Reshape", {last, shape}, {node.outputs[0]}));
    }
    drop_[pi] = true;
  }

  NDArray shape_constant(const Shape& s) {
    NDArray a(DataType::Int(64), {static_cast<int64_t>(s.size())});
    for (size_t i = 0; i < s.size(); ++i) a.set(static_cast<int64_t>(i), static_cast<double>(s[i]));
    return a;
  }

  // A Reshape of `x` to `shape`, written into `at`; its output.
  int reshape(int x, const Shape& shape, const std::string& name, std::vector<Node>& at) {
    const int s = g_.add_constant(name + "_shape", shape_constant(shape));
    const int out = new_value(name, g_.value(x).dtype, shape);
    at.push_back(make_node(name, "Reshape", {x, s}, {out}));
    return out;
  }

  int new_value(const std::string& name, DataType dtype, const Shape& shape) {
    Value v;
    v.name = name;
    v.dtype = dtype;
    v.shape = shape;
    return g_.add_value(std::move(v));
  }

  static Node make_node(const std::string& name, const std::string& op, std::vector<int> inputs,
                        std::vector<int> outputs) {
    Node n;
    n.name = name;
    n.op = op;
    n.inputs = std::move(inputs);
    n.outputs = std::move(outputs);
    return n;
  }

  // int8 data `x` of zero point `zx` as uint8 data of zero point zx + 128:
  // x + 128, computed by a DequantizeLinear (scale 1, zero point -128) and
  // a QuantizeLinear (scale 1, zero point 0 of uint8), exact, written
  // before node `at`, once per value. x - zx is unchanged, and the int8 dot
  // products take uint8 data.
  std::pair<int, int> as_uint8(int x, int zx, size_t at) {
    auto it = shifted_.find(x);
    if (it == shifted_.end()) {
      const std::string name = g_.value(x).name;
      NDArray one(DataType::Float32(), {});
      one.set(0, 1.0);
      NDArray minus(DataType::Int(8), {});
      minus.set(0, -128.0);
      const int scale = g_.add_constant(name + "_unit_scale", std::move(one));
      const int zp = g_.add_constant(name + "_minus_128", std::move(minus));
      const int zero = g_.add_constant(name + "_zero_uint8", NDArray(DataType::UInt(8), {}));
      const int fid = new_value(name + "_plus_128", DataType::Float32(), g_.value(x).shape);
      const int uid = new_value(name + "_uint8", DataType::UInt(8), g_.value(x).shape);
      before_[at].push_back(make_node(name + "_plus_128", "DequantizeLinear", {x, scale, zp}, {fid}));
      before_[at].push_back(make_node(name + "_to_uint8", "QuantizeLinear", {fid, scale, zero}, {uid}));
      it = shifted_.emplace(x, uid).first;
    }
    NDArray z(DataType::UInt(8), {});
    z.set(0, g_.value(zx).data->get(0) + 128);
    return {it->second, g_.add_constant(g_.nodes[at].name + "_x_zero_point_uint8", std::move(z))};
  }

  // A zero point input: `id`, or a constant 0 of `dtype` where it is absent.
  int zero_point(int id, DataType dtype, const std::string& name) {
    return id != Node::kNone ? id : g_.add_constant(name, NDArray(dtype, {}));
  }

  // The float bias in int32 steps of sx · sw[k], as QLinearConv takes it
  // (exact where the bias was such an int32, dequantized).
  int quantized_bias(int bias, int sx, int sw, int64_t K, const std::string& name) {
    const NDArray& b = *g_.value(bias).data;
    const NDArray& w_scale = *g_.value(sw).data;
    const double x_scale = g_.value(sx).data->get(0);
    NDArray out(DataType::Int(32), {K});
    for (int64_t k = 0; k < K; ++k) {
      const float step = static_cast<float>(x_scale) * static_cast<float>(w_scale.get(w_scale.numel() == 1 ? 0 : k));
      out.set(k, std::nearbyint(b.get(k) / step));
    }
    return g_.add_constant(name + "_bias_int32", std::move(out));
  }

  const Graph& in_;
  Graph g_;  // the graph folded: nodes replaced in place, values added
  // Writers and readers of in_: the nodes a fold reads, which it never changes.
  recognize::Matcher match_;
  std::vector<bool> drop_;
  std::vector<std::vector<Node>> before_;  // per node: nodes written before it
  std::map<int, int> shifted_;             // int8 data -> its uint8 form
};

}  // namespace

Graph fold_qdq(const Graph& g) { return Folder(g).run(); }

}  // namespace kiln::graph
