#include "graph/fold_qdq.h"

#include <cmath>
#include <map>
#include <tuple>

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

bool all_zero(const Graph& g, int id) {
  if (id == Node::kNone) return true;
  if (!is_constant(g, id)) return false;
  const NDArray& d = *g.value(id).data;
  for (int64_t i = 0; i < d.numel(); ++i)
    if (d.get(i) != 0) return false;
  return true;
}

class Folder {
 public:
  explicit Folder(const Graph& in) : g_(in), readers_(value_readers(in)), writer_(in.values.size(), -1) {
    for (size_t i = 0; i < g_.nodes.size(); ++i)
      for (int id : g_.nodes[i].outputs)
        if (id != Node::kNone) writer_[static_cast<size_t>(id)] = static_cast<int>(i);
  }

  Graph run() {
    drop_.assign(g_.nodes.size(), false);
    before_.assign(g_.nodes.size(), {});
    for (size_t i = 0; i < g_.nodes.size(); ++i)
      if (g_.nodes[i].op == "Conv") fold_conv(i);
    std::vector<Node> kept;
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      for (Node& n : before_[i]) kept.push_back(std::move(n));
      if (!drop_[i]) kept.push_back(std::move(g_.nodes[i]));
    }
    g_.nodes = std::move(kept);
    return std::move(g_);
  }

 private:
  // The node writing `id` when it is `op`, else null.
  const Node* written_by(int id, const std::string& op) const {
    if (id == Node::kNone) return nullptr;
    const int w = writer_[static_cast<size_t>(id)];
    return w >= 0 && g_.nodes[static_cast<size_t>(w)].op == op ? &g_.nodes[static_cast<size_t>(w)] : nullptr;
  }

  // The one node reading `id` (not a graph output), else -1.
  int only_reader(int id) const {
    const auto& r = readers_.nodes[static_cast<size_t>(id)];
    return r.size() == 1 && !readers_.is_output[static_cast<size_t>(id)] ? static_cast<int>(r[0]) : -1;
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
    const Node* dx = written_by(input_of(conv, 0), "DequantizeLinear");
    const Node* dw = written_by(input_of(conv, 1), "DequantizeLinear");
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
    if (r >= 0 && g_.nodes[static_cast<size_t>(r)].op == "Relu") {
      relu = true;
      chain.push_back(static_cast<size_t>(r));
      at = g_.nodes[static_cast<size_t>(r)].outputs.at(0);
      r = only_reader(at);
    }
    if (r < 0) return;
    const Node& q = g_.nodes[static_cast<size_t>(r)];
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
      Value f = g_.value(x);
      f.name = name + "_plus_128";
      f.dtype = DataType::Float32();
      f.data.reset();
      Value u = f;
      u.name = name + "_uint8";
      u.dtype = DataType::UInt(8);
      const int fid = g_.add_value(std::move(f)), uid = g_.add_value(std::move(u));
      Node dq, qn;
      dq.name = name + "_plus_128";
      dq.op = "DequantizeLinear";
      dq.inputs = {x, scale, zp};
      dq.outputs = {fid};
      qn.name = name + "_to_uint8";
      qn.op = "QuantizeLinear";
      qn.inputs = {fid, scale, zero};
      qn.outputs = {uid};
      before_[at].push_back(std::move(dq));
      before_[at].push_back(std::move(qn));
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

  Graph g_;
  ValueReaders readers_;
  std::vector<int> writer_;
  std::vector<bool> drop_;
  std::vector<std::vector<Node>> before_;  // per node: nodes written before it
  std::map<int, int> shifted_;             // int8 data -> its uint8 form
};

}  // namespace

Graph fold_qdq(const Graph& g) { return Folder(g).run(); }

}  // namespace kiln::graph
