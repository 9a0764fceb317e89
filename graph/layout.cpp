#include "graph/layout.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "graph/recognize.h"
#include "graph/shape_util.h"
#include "ops/blocked.h"
#include "ops/winograd.h"

namespace kiln::graph {
namespace {

using Shape = std::vector<int64_t>;

// The rearrangements of constants below pad channels up to the blocked
// count (Cp, Kp) with zeros: NDArray starts zero-filled.

// x[N, C, H, W] -> [N, Cp / b, H, W, b], the data of a constant.
NDArray block_activation(const NDArray& x, int64_t b, int64_t Cp) {
  const Shape& s = x.shape();
  const int64_t N = s[0], C = s[1], HW = s[2] * s[3];
  NDArray out(x.dtype(), {N, Cp / b, s[2], s[3], b});
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t i = 0; i < HW; ++i)
        out.set(((n * (Cp / b) + c / b) * HW + i) * b + c % b, x.get((n * C + c) * HW + i));
  return out;
}

// w[K, C, R, S] -> [Kp / kb, Cp / cb, R, S, cb, kb].
NDArray block_weight(const NDArray& w, int64_t cb, int64_t kb, int64_t Cp, int64_t Kp) {
  const Shape& s = w.shape();
  const int64_t K = s[0], C = s[1], RS = s[2] * s[3];
  NDArray out(w.dtype(), {Kp / kb, Cp / cb, s[2], s[3], cb, kb});
  for (int64_t k = 0; k < K; ++k)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t t = 0; t < RS; ++t)
        out.set((((k / kb) * (Cp / cb) + c / cb) * RS + t) * cb * kb + (c % cb) * kb + k % kb,
                w.get((k * C + c) * RS + t));
  return out;
}

// w[C, 1, R, S] -> [Cp / b, R, S, b].
NDArray block_depthwise_weight(const NDArray& w, int64_t b, int64_t Cp) {
  const Shape& s = w.shape();
  const int64_t C = s[0], RS = s[2] * s[3];
  NDArray out(w.dtype(), {Cp / b, s[2], s[3], b});
  for (int64_t c = 0; c < C; ++c)
    for (int64_t t = 0; t < RS; ++t) out.set(((c / b) * RS + t) * b + c % b, w.get(c * RS + t));
  return out;
}

// wq[K, C, R, S] (int8) -> [Kp / kb, Cp / cb, R, S, cb / 4, kb, 4]: four
// input channels together per output channel, conv2d_nchwc_dot4's weights.
NDArray block_weight_dot4(const NDArray& w, int64_t cb, int64_t kb, int64_t Cp, int64_t Kp) {
  const Shape& s = w.shape();
  const int64_t K = s[0], C = s[1], RS = s[2] * s[3];
  NDArray out(w.dtype(), {Kp / kb, Cp / cb, s[2], s[3], cb / 4, kb, 4});
  for (int64_t k = 0; k < K; ++k)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t t = 0; t < RS; ++t)
        out.set(((((k / kb) * (Cp / cb) + c / cb) * RS + t) * (cb / 4) + (c % cb) / 4) * kb * 4 + (k % kb) * 4 + c % 4,
                w.get((k * C + c) * RS + t));
  return out;
}

bool is_const_f32(const Graph& g, int id) {
  return id != Node::kNone && g.value(id).is_constant() && g.value(id).dtype == DataType::Float32();
}

// The operators of one output element from the same element of each
// input, which therefore run in any layout.
bool is_layout_agnostic_unary(const Node& n) {
  static const std::set<std::string> ops = {"Relu", "Sigmoid", "Tanh", "Erf", "Sqrt", "Identity", "Clip", kSiLU};
  return ops.count(n.op) || (n.op == "Dropout" && n.outputs.size() == 1);
}
// (De)QuantizeLinear of one scale and zero point: elementwise alike.
bool is_per_tensor_quantization(const Graph& g, const Node& n) {
  if (n.op != "QuantizeLinear" && n.op != "DequantizeLinear") return false;
  for (size_t i = 1; i < n.inputs.size(); ++i)
    if (n.inputs[i] != Node::kNone && g.value(n.inputs[i]).numel() != 1) return false;
  return true;
}
bool is_layout_agnostic_binary(const Node& n) {
  return n.op == "Add" || n.op == "Sub" || n.op == "Mul" || n.op == "Div";
}

class Converter {
 public:
  Converter(const Graph& in, int64_t lanes) : in_(in), lanes_(lanes) {
    g_.values = in.values;
    g_.inputs = in.inputs;
    g_.outputs = in.outputs;
    g_.opset = in.opset;
    blocked_.assign(in.values.size(), Node::kNone);
    plain_.assign(in.values.size(), true);
    native_.assign(in.values.size(), false);
  }

  Graph run() {
    for (const Node& n : in_.nodes) {
      if (!convert_conv(n) && !convert_qlinear_conv(n) && !convert_pool(n) && !convert_global_pool(n) && !convert_elementwise(n)) keep(n);
    }
    for (int id : g_.outputs) plain(id);
    return std::move(g_);
  }

 private:
  ChannelBlocking blocking_of(int id) const {
    auto it = blocking_.find(id);
    return it != blocking_.end() ? it->second : channel_blocking(g_.value(id).shape.at(1), lanes_);
  }
  bool is_padded(int id) const { return blocking_of(id).padded != g_.value(id).shape.at(1); }

  bool is_4d(int id) const { return id != Node::kNone && g_.value(id).shape.size() == 4; }
  // Whether `id` was computed blocked (by a converted node), not transformed
  // from its plain form: what keeps the operators after it blocked.
  bool is_native(int id) const { return id != Node::kNone && native_[static_cast<size_t>(id)]; }
  bool has_blocked(int id) const { return id != Node::kNone && blocked_[static_cast<size_t>(id)] != Node::kNone; }

  int add_value(Value v) { return tracked(g_.add_value(std::move(v))); }
  int add_constant(const std::string& name, NDArray data) { return tracked(g_.add_constant(name, std::move(data))); }

  // A value just added to the graph, in the tables above.
  int tracked(int id) {
    blocked_.push_back(Node::kNone);
    plain_.push_back(true);
    native_.push_back(false);
    return id;
  }

  // A new value for the blocked form of plain value `id`.
  int blocked_value(int id) {
    const Value& v = g_.value(id);
    const auto [b, padded] = blocking_of(id);
    Value out;
    out.name = v.name + "_nchw" + std::to_string(b) + "c";
    out.dtype = v.dtype;
    out.shape = {v.shape[0], padded / b, v.shape[2], v.shape[3], b};
    return add_value(std::move(out));
  }

  // The blocked form of value `id`: already there, rearranged (a
  // constant), or computed by a ToNCHWc written now.
  int blocked(int id) {
    if (has_blocked(id)) return blocked_[static_cast<size_t>(id)];
    const std::string name = g_.value(id).name;
    const auto [b, padded] = blocking_of(id);
    int out;
    if (g_.value(id).is_constant()) {
      out = add_constant(name + "_nchw" + std::to_string(b) + "c", block_activation(*g_.value(id).data, b, padded));
    } else {
      out = blocked_value(id);
      Node n;
      n.name = name + "_to_nchwc";
      n.op = kToNCHWc;
      n.inputs = {id};
      n.outputs = {out};
      n.attrs["block"] = b;
      if (is_padded(id)) n.attrs["channels"] = padded;
      g_.nodes.push_back(std::move(n));
    }
    blocked_[static_cast<size_t>(id)] = out;
    return out;
  }

  // Value `id` in its plain layout, a FromNCHWc written now where only its
  // blocked form exists. The plain value keeps its id, so readers and graph
  // outputs need no renaming.
  int plain(int id) {
    if (id == Node::kNone || plain_[static_cast<size_t>(id)]) return id;
    Node n;
    n.name = g_.value(id).name + "_from_nchwc";
    n.op = kFromNCHWc;
    n.inputs = {blocked_[static_cast<size_t>(id)]};
    n.outputs = {id};
    if (is_padded(id)) n.attrs["channels"] = g_.value(id).shape.at(1);
    g_.nodes.push_back(std::move(n));
    plain_[static_cast<size_t>(id)] = true;
    return id;
  }

  // `n` as it was, reading the plain form of every input.
  void keep(const Node& n) {
    Node out = n;
    for (int& id : out.inputs) id = plain(id);
    g_.nodes.push_back(std::move(out));
  }

  // `n` writing the blocked form of its one output `out` from `inputs`.
  void emit_blocked(const Node& n, const std::string& op, std::vector<int> inputs) {
    const int out = n.outputs.at(0);
    const int b = blocked_value(out);
    Node m = n;
    m.op = op;
    m.inputs = std::move(inputs);
    m.outputs = {b};
    g_.nodes.push_back(std::move(m));
    blocked_[static_cast<size_t>(out)] = b;
    plain_[static_cast<size_t>(out)] = false;
    native_[static_cast<size_t>(out)] = true;
  }

  // A MaxPool whose window ops/pool.h takes, of a value computed blocked.
  bool convert_pool(const Node& n) {
    if (n.op != "MaxPool" || n.outputs.size() != 1 || !is_native(n.inputs.at(0)) || !is_4d(n.outputs[0]))
      return false;
    const Shape kernel = n.attr_ints("kernel_shape", {});
    const Shape strides = n.attr_ints("strides", {1, 1}), dilations = n.attr_ints("dilations", {1, 1});
    const Shape pads = n.attr_ints("pads", {0, 0, 0, 0});
    if (kernel.size() != 2 || strides.size() != 2 || strides[0] != strides[1] || dilations != Shape{1, 1} ||
        pads.size() != 4 || pads[0] != pads[1] || pads[1] != pads[2] || pads[2] != pads[3] ||
        pads[0] >= std::min(kernel[0], kernel[1]) || n.attr_int("ceil_mode", 0) != 0 ||
        n.attr_string("auto_pad", "NOTSET") != "NOTSET")
      return false;
    const Shape& in = g_.value(n.inputs[0]).shape;
    const Shape& out = g_.value(n.outputs[0]).shape;
    for (size_t a = 0; a < 2; ++a)
      if (out[2 + a] != (in[2 + a] + 2 * pads[0] - kernel[a]) / strides[0] + 1) return false;
    emit_blocked(n, kMaxPoolNCHWc, {blocked(n.inputs[0])});
    return true;
  }

  // A GlobalAveragePool of a value computed blocked: the mean over its
  // rows and columns, ReduceMean {axes=[2, 3]} on the blocked value, which
  // stays blocked ([N, C/b, 1, 1, b]) for what reads it (a squeeze and
  // excitation's 1×1 convolutions, the broadcast Mul after them).
  bool convert_global_pool(const Node& n) {
    if (n.op != "GlobalAveragePool" || n.outputs.size() != 1 || !is_native(n.inputs.at(0)) || !is_4d(n.outputs[0]))
      return false;
    Node mean = n;
    mean.attrs.clear();
    mean.attrs["axes"] = Shape{2, 3};
    mean.attrs["keepdims"] = int64_t{1};
    emit_blocked(mean, "ReduceMean", {blocked(n.inputs[0])});
    return true;
  }

  bool convert_conv(const Node& n) {
    if (n.op != "Conv" || n.outputs.size() != 1 || n.inputs.size() < 2) return false;
    const int x = n.inputs[0], w = n.inputs[1], bias = n.inputs.size() > 2 ? n.inputs[2] : Node::kNone;
    if (!is_4d(x) || !is_4d(n.outputs[0]) || g_.value(x).dtype != DataType::Float32() || !is_const_f32(g_, w) ||
        g_.value(w).shape.size() != 4 || (bias != Node::kNone && !is_const_f32(g_, bias)))
      return false;
    const Shape strides = n.attr_ints("strides", {1, 1}), dilations = n.attr_ints("dilations", {1, 1});
    if (strides.size() != 2 || dilations.size() != 2 || strides[0] != strides[1] || dilations[0] != dilations[1])
      return false;
    const Value wv = g_.value(w);  // a copy: adding values below moves them
    const int64_t C = g_.value(x).shape[1], K = wv.shape[0], group = n.attr_int("group", 1);
    const bool depthwise = is_depthwise_conv(g_, n);
    const auto [cb, Cp] = blocking_of(x);
    const auto [kb, Kp] = channel_blocking(K, lanes_);
    // Groups of gw channels in and out, whole groups in a block or whole
    // blocks in a group, the padded channels whole groups of zeros.
    const int64_t gw = wv.shape[1];
    const bool grouped = group > 1 && !depthwise && K == C && C == group * gw && ops::group_fits_block(gw, cb) &&
                         (Cp - C) % gw == 0;
    if (group != 1 && !depthwise && !grouped) return false;
    Node conv = n;
    conv.attrs["kernel_shape"] = Shape{wv.shape[2], wv.shape[3]};
    if (grouped) conv.attrs["group"] = Cp / gw;
    const int64_t tile = group > 1 ? 0 : winograd_tile_of(n, wv.shape);
    int wb;
    if (grouped) {
      // [K, gw, R, S] is a one-group weight of gw input channels: blocked
      // as one, it is ops/blocked.h's grouped [Kp / b, gw / cb', R, S, cb', b].
      wb = add_constant(wv.name + "_nchwc", block_weight(*wv.data, std::min(gw, cb), cb, gw, Cp));
    } else if (tile > 0) {
      const NDArray blocked_w = block_weight(*wv.data, cb, kb, Cp, Kp);
      const int64_t a = tile + 2;
      NDArray u(wv.dtype, {a, a, Kp / kb, Cp / cb, cb, kb});
      const std::vector<float> t = ops::winograd_transform_weights(blocked_w.data_as<float>(), Kp, Cp, cb, kb, tile);
      std::copy(t.begin(), t.end(), u.data_as<float>());
      wb = add_constant(wv.name + "_winograd" + std::to_string(tile), std::move(u));
      conv.attrs["winograd_tile"] = tile;
    } else {
      wb = add_constant(wv.name + "_nchwc", depthwise ? block_depthwise_weight(*wv.data, cb, Cp)
                                                      : block_weight(*wv.data, cb, kb, Cp, Kp));
    }
    std::vector<int> inputs{blocked(x), wb};
    if (bias != Node::kNone) {
      const Value bv = g_.value(bias);
      NDArray b(bv.dtype, {Kp / kb, kb});  // [K] is [K / kb, kb] in the same order, zeros after
      for (int64_t i = 0; i < K; ++i) b.set(i, bv.data->get(i));
      inputs.push_back(add_constant(bv.name + "_nchwc", std::move(b)));
    }
    emit_blocked(conv,
                 tile > 0    ? kWinogradConvNCHWc
                 : depthwise ? kDepthwiseConvNCHWc
                 : grouped   ? kGroupedConvNCHWc
                             : kConvNCHWc,
                 std::move(inputs));
    return true;
  }

  // winograd_tile for Conv `n` with weights of `w_shape`, or 0 where its
  // window is not a 3×3 at stride 1 and dilation 1, padded alike on all
  // sides (group 1 is checked by the caller).
  int64_t winograd_tile_of(const Node& n, const Shape& w_shape) const {
    const Shape strides = n.attr_ints("strides", {1, 1}), dilations = n.attr_ints("dilations", {1, 1});
    const Shape& in = g_.value(n.inputs[0]).shape;
    const Shape& out = g_.value(n.outputs[0]).shape;
    if (w_shape[2] != 3 || w_shape[3] != 3 || strides != Shape{1, 1} || dilations != Shape{1, 1}) return 0;
    const Shape pads = window_pads(n, {in[2], in[3]}, {3, 3}, strides, dilations);
    if (pads[0] != pads[1] || pads[1] != pads[2] || pads[2] != pads[3]) return 0;
    return winograd_tile(out[2], out[3]);
  }

  // An elementwise node whose (non-parameter) input was computed blocked
  // stays blocked; a binary one when either operand was, and both have its
  // output's shape (a broadcast would need the operand's own blocked form).
  // One whose inputs are plain stays plain, even where a blocked form
  // exists for a convolution's sake.
  bool convert_elementwise(const Node& n) {
    if (n.outputs.size() != 1 || !is_4d(n.outputs[0])) return false;
    if (is_layout_agnostic_unary(n) || is_per_tensor_quantization(g_, n)) {
      if (!is_native(n.inputs.at(0))) return false;
      std::vector<int> inputs = n.inputs;
      inputs[0] = blocked(inputs[0]);
      emit_blocked(n, n.op, std::move(inputs));
      return true;
    }
    if (!is_layout_agnostic_binary(n) || n.inputs.size() != 2) return false;
    if (n.op == "Div" && is_padded(n.outputs[0])) return false;  // 0 / 0 in the padded channels
    const Shape& shape = g_.value(n.outputs[0]).shape;
    // Each operand of the output's shape, or one value per channel
    // ([N, C, 1, 1]: a squeeze and excitation's scale), computed blocked:
    // blocked, it broadcasts over the rows and columns as it did before.
    auto fits = [&](int id, bool per_channel) {
      if (id == Node::kNone) return false;
      const Shape& s = g_.value(id).shape;
      return s == shape || (per_channel && is_native(id) && s == Shape{shape[0], shape[1], 1, 1});
    };
    for (int k = 0; k < 2; ++k)
      if (!fits(n.inputs[k], g_.value(n.inputs[1 - k]).shape == shape)) return false;
    if (!is_native(n.inputs[0]) && !is_native(n.inputs[1])) return false;
    emit_blocked(n, n.op, {blocked(n.inputs[0]), blocked(n.inputs[1])});
    return true;
  }

  // A QLinearConv of one group, uint8 data and constant int8 weights whose
  // zero points are zero, every quantization parameter constant: a
  // kQLinearConvNCHWc, the requantization's constants computed here.
  bool convert_qlinear_conv(const Node& n) {
    if (n.op != "QLinearConv" || n.outputs.size() != 1 || n.inputs.size() < 8) return false;
    const int x = n.inputs[0], w = n.inputs[3], bias = n.inputs.size() > 8 ? n.inputs[8] : Node::kNone;
    for (size_t i : {size_t{1}, size_t{2}, size_t{3}, size_t{4}, size_t{6}, size_t{7}})
      if (n.inputs[i] == Node::kNone || !g_.value(n.inputs[i]).is_constant()) return false;
    if (!is_4d(x) || g_.value(x).dtype != DataType::UInt(8) || g_.value(w).dtype != DataType::Int(8) ||
        g_.value(n.inputs[5]).dtype != DataType::Int(8) || n.attr_int("group", 1) != 1 ||
        (bias != Node::kNone && !g_.value(bias).is_constant()))
      return false;
    for (size_t i : {size_t{1}, size_t{2}, size_t{6}, size_t{7}})
      if (g_.value(n.inputs[i]).numel() != 1) return false;
    if (!g_.value(n.inputs[5]).is_zeros()) return false;
    const Shape strides = n.attr_ints("strides", {1, 1}), dilations = n.attr_ints("dilations", {1, 1});
    if (strides.size() != 2 || dilations.size() != 2 || strides[0] != strides[1] || dilations[0] != dilations[1])
      return false;
    // Input channels in blocks of a multiple of 4 (the dot products' depth).
    const int64_t C = g_.value(x).shape[1];
    if (!has_blocked(x) && blocking_of(x).block % 4 != 0) {
      const int64_t Cp = (C + 3) / 4 * 4;
      blocking_[x] = {channel_block(Cp, lanes_), Cp};
    }
    const auto [cb, Cp] = blocking_of(x);
    if (cb % 4 != 0) return false;
    const Value wv = g_.value(w);  // copies: adding values below moves them
    const int64_t K = wv.shape[0];
    // The dot products compute whole vectors of outputs.
    const auto [kb, Kp] = whole_vector_blocking(K, lanes_);
    blocking_[n.outputs[0]] = {kb, Kp};
    const NDArray& wq = *wv.data;
    const NDArray& w_scale = *g_.value(n.inputs[4]).data;
    const float x_scale = static_cast<float>(g_.value(n.inputs[1]).data->get(0));
    const float y_scale = static_cast<float>(g_.value(n.inputs[6]).data->get(0));
    const int64_t x_zp = static_cast<int64_t>(g_.value(n.inputs[2]).data->get(0));
    NDArray offset(DataType::Int(32), {Kp / kb, kb}), multiplier(DataType::Float32(), {Kp / kb, kb});
    const int64_t per = wq.numel() / K;
    for (int64_t k = 0; k < K; ++k) {
      int64_t sum = 0;
      for (int64_t i = 0; i < per; ++i) sum += static_cast<int64_t>(wq.get(k * per + i));
      const int64_t b = bias != Node::kNone ? static_cast<int64_t>(g_.value(bias).data->get(k)) : 0;
      offset.set(k, static_cast<double>(b - x_zp * sum));
      const float ws = static_cast<float>(w_scale.get(w_scale.numel() == 1 ? 0 : k));
      multiplier.set(k, x_scale * ws / y_scale);
    }
    Node conv = n;
    conv.attrs["kernel_shape"] = Shape{wv.shape[2], wv.shape[3]};
    conv.attrs["pad_value"] = x_zp;
    std::vector<int> inputs{blocked(x), add_constant(wv.name + "_nchwc_dot4", block_weight_dot4(wq, cb, kb, Cp, Kp)),
                            add_constant(n.name + "_offset", std::move(offset)),
                            add_constant(n.name + "_multiplier", std::move(multiplier)), n.inputs[7]};
    emit_blocked(conv, kQLinearConvNCHWc, std::move(inputs));
    return true;
  }

  const Graph& in_;
  const int64_t lanes_;
  Graph g_;
  std::map<int, ChannelBlocking> blocking_;  // values blocked otherwise than channel_blocking says
  std::vector<int> blocked_;  // per value: its blocked form's id, or kNone
  std::vector<bool> plain_;   // per value: whether its plain form is computed
  std::vector<bool> native_;  // per value: computed blocked (is_native)
};

}  // namespace

int64_t winograd_tile(int64_t P, int64_t Q) {
  const int64_t side = std::min(P, Q);
  return side >= 28 ? 4 : side >= 14 ? 2 : 0;
}

int64_t channel_block(int64_t channels, int64_t lanes) {
  int64_t b = 1;
  while (b * 2 <= lanes && channels % (b * 2) == 0) b *= 2;
  return b;
}

ChannelBlocking whole_vector_blocking(int64_t channels, int64_t lanes) {
  const int64_t b = channel_block(channels, lanes);
  const int64_t whole = (channels + lanes - 1) / lanes * lanes;
  if (b < lanes && lanes > 1 && 4 * whole <= 5 * channels) return {lanes, whole};
  return {b, channels};
}

ChannelBlocking channel_blocking(int64_t channels, int64_t lanes) {
  const ChannelBlocking whole = whole_vector_blocking(channels, lanes);
  if (whole.block < lanes && channels > lanes && channels < 2 * lanes && channels % 4 == 0) return {channels, channels};
  return whole;
}

Graph convert_layout(const Graph& g, int64_t lanes) {
  if (lanes < 2) return g;
  return Converter(g, lanes).run();
}

}  // namespace kiln::graph
