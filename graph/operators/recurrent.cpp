// Recurrent layers: RNN, GRU and LSTM as ONNX defines them (their default
// activations; forward, reverse or bidirectional; layout 0 or 1; clip;
// LSTM's peepholes and input_forget; GRU's linear_before_reset), unrolled
// over the static sequence length.
//
// Per direction, the input's product with W for every step at once (one
// matrix product over T·B rows), then per step s the recurrent product
// with R and the gates' arithmetic, each a stage of its own:
//
//   xw[t, b, g] = sum_k X[t, b, k] * W[g, k]         every step t, gate row g
//   hr_s[b, g]  = sum_k H_{s-1}[b, k] * R[g, k]
//   RNN:   H_s = tanh(xw + hr + Wb + Rb)
//   GRU:   z, r = sigmoid(...),  h~ = tanh(xw + (r ⊙ H_{s-1})·Rhᵀ + ...),  H_s = (1 - z) ⊙ h~ + z ⊙ H_{s-1}
//   LSTM:  i, o, f = sigmoid(...),  C_s = f ⊙ C_{s-1} + i ⊙ tanh(c~),  H_s = o ⊙ tanh(C_s)
//
// Y stacks the steps' H in time order, Y_h is the last step's, Y_c the
// last cell. sequence_lens, when the lengths are data, masks the steps past
// a batch row's length (a forward layer: the state stays, Y is 0 there, as
// ONNX says); constant lengths that all equal the sequence's change
// nothing. A layer is one task whose program holds every step, three or
// four stages each: right for the short sequences of the layers models
// export, and the stage count grows with the length.
#include <algorithm>
#include <cctype>

#include "graph/operators/common.h"
#include "graph/operators/families.h"
#include "ops/common.h"
#include "ops/transform.h"

namespace kiln::graph::operators {
namespace {

using ops::i32;
using ops::i32s;

// ONNX's inputs and outputs of the three, by position.
enum Input : size_t { kX, kW, kR, kB, kSequenceLens, kInitialH, kInitialC, kP };
enum Output : size_t { kY, kYh, kYc };

// Gate rows per hidden unit in W and R: RNN 1; GRU z, r, h; LSTM i, o, f, c.
int64_t gates_of(const Node& n) { return n.op == "LSTM" ? 4 : n.op == "GRU" ? 3 : 1; }

struct Dims {
  int64_t T = 0, B = 0, I = 0, H = 0, D = 1;
  bool batch_first = false;  // layout 1: X [B, T, I], Y [B, T, D, H], states [B, D, H]
  std::string direction;
};

Dims dims_of(const Graph& g, const Node& n) {
  const Value& x = required_input(g, n, kX);
  require_rank(n, x, 3);
  const int64_t layout = n.attr_int("layout", 0);
  if (layout != 0 && layout != 1) KILN_USER_ERROR() << n.describe() << ": layout is " << layout << "; it is 0 or 1";
  Dims d;
  d.batch_first = layout == 1;
  d.T = x.shape[d.batch_first ? 1 : 0];
  d.B = x.shape[d.batch_first ? 0 : 1];
  d.I = x.shape[2];
  d.direction = n.attr_string("direction", "forward");
  if (d.direction != "forward" && d.direction != "reverse" && d.direction != "bidirectional")
    KILN_USER_ERROR() << n.describe() << ": direction is \"" << d.direction
                      << "\"; it is \"forward\", \"reverse\" or \"bidirectional\"";
  d.D = d.direction == "bidirectional" ? 2 : 1;
  const Value& r = required_input(g, n, kR);
  d.H = n.attr_int("hidden_size", r.shape.size() == 3 ? r.shape[2] : 0);
  if (d.H < 1) KILN_USER_ERROR() << n.describe() << ": hidden_size is " << d.H;
  return d;
}

void expect_shape(const Graph& g, const Node& n, size_t i, const Shape& want) {
  const Value* v = g.input(n, i);
  if (v && v->shape != want)
    KILN_USER_ERROR() << n.describe() << ": input " << i << " ('" << v->name << "') has shape " << shape_str(v->shape)
                      << ", not " << shape_str(want);
}

Shape state_shape(const Dims& d) { return d.batch_first ? Shape{d.B, d.D, d.H} : Shape{d.D, d.B, d.H}; }

void recurrent_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, kX);
  require_float(n, x);
  const Dims d = dims_of(g, n);
  const int64_t G = gates_of(n);
  required_input(g, n, kW);
  if (n.has_attr("activations") || n.has_attr("activation_alpha") || n.has_attr("activation_beta"))
    not_yet(n, "activations other than the defaults");
  expect_shape(g, n, kW, {d.D, G * d.H, d.I});
  expect_shape(g, n, kR, {d.D, G * d.H, d.H});
  expect_shape(g, n, kB, {d.D, 2 * G * d.H});
  expect_shape(g, n, kSequenceLens, {d.B});
  expect_shape(g, n, kInitialH, state_shape(d));
  if (n.op == "LSTM") {
    expect_shape(g, n, kInitialC, state_shape(d));
    expect_shape(g, n, kP, {d.D, 3 * d.H});
  }
  for (size_t i : {kW, kR, kB, kInitialH, kInitialC, kP})
    if (const Value* v = g.input(n, i); v && v->dtype != x.dtype)
      KILN_USER_ERROR() << n.describe() << ": input " << i << " is " << v->dtype.str() << ", X " << x.dtype.str();
  if (const Value* v = g.input(n, kSequenceLens); v && v->dtype != DataType::Int32())
    KILN_USER_ERROR() << n.describe() << ": sequence_lens is " << v->dtype.str() << ", not int32";
  set_output(g, n, kY, x.dtype, d.batch_first ? Shape{d.B, d.T, d.D, d.H} : Shape{d.T, d.D, d.B, d.H});
  set_output(g, n, kYh, x.dtype, state_shape(d));
  if (n.op == "LSTM") set_output(g, n, kYc, x.dtype, state_shape(d));
}

// One direction of a layer: what its steps read.
struct Direction {
  const Node& n;
  const Dims& d;
  int64_t dir;   // the index into W, R, B, the initial states and P
  bool reverse;  // steps from the last time to the first
  const Tensors& in;
  te::Tensor lens;  // the sequence lengths to mask with, or undefined
  std::string tag;  // of stage names: the operator and direction

  DataType t() const { return in[kX].dtype(); }
  Expr zero() const { return make_zero(t()); }
  Expr one() const { return make_const(t(), 1); }
  bool has(size_t i) const { return i < in.size() && in[i].defined(); }

  // W's bias of gate row g, and R's.
  Expr wb(Expr g) const { return has(kB) ? in[kB](i32(dir), g) : zero(); }
  Expr rb(Expr g) const { return has(kB) ? in[kB](i32(dir), g + i32(gates_of(n) * d.H)) : zero(); }
  Expr clip(Expr v) const {
    if (!n.has_attr("clip")) return v;
    const double c = n.attr_float("clip", 0);
    return max(make_const(t(), -c), min(make_const(t(), c), v));
  }
  Expr sigmoid(Expr v) const { return call(Intrinsic::sigmoid, {clip(v)}); }
  Expr tanh(Expr v) const { return call(Intrinsic::tanh, {clip(v)}); }

  // X·Wᵀ for every step: [T, B, G·H].
  te::Tensor input_product() const {
    const te::Tensor& X = in[kX];
    IterVar k = te::reduce_axis(Range(i32(0), i32(d.I)), "k");
    return te::compute(
        i32s({d.T, d.B, gates_of(n) * d.H}),
        [&](Var t, Var b, Var g) {
          const Expr x = d.batch_first ? X(b, t, k) : X(t, b, k);
          return te::sum(x * in[kW](i32(dir), g, k), {k});
        },
        tag + "_xw");
  }

  // The initial state of input `i` (initial_h, initial_c), zeros without.
  te::Tensor initial(size_t i, const std::string& name) const {
    return te::compute(
        i32s({d.B, d.H}),
        [&](Var b, Var j) {
          if (!has(i)) return zero();
          return d.batch_first ? in[i](b, i32(dir), j) : in[i](i32(dir), b, j);
        },
        tag + name);
  }

  // sum_k h[b, k] * R[row0 + g, k] for g < rows.
  te::Tensor recurrent_product(const te::Tensor& h, int64_t row0, int64_t rows, const std::string& name) const {
    IterVar k = te::reduce_axis(Range(i32(0), i32(d.H)), "k");
    return te::compute(
        i32s({d.B, rows}), [&](Var b, Var g) { return te::sum(h(b, k) * in[kR](i32(dir), g + i32(row0), k), {k}); },
        name);
  }

  // Whether step time t is within batch row b's length.
  Expr valid(int64_t t, Expr b) const { return lt(i32(t), lens(b)); }
  // The state after a step: its new value, or the old one past the length.
  Expr masked(int64_t t, Expr b, Expr fresh, Expr old) const {
    return lens.defined() ? select(valid(t, b), fresh, old) : fresh;
  }
};

struct Unrolled {
  std::vector<te::Tensor> y;  // [B, H] per time, in time order
  te::Tensor h, c;            // the last states
};

// The step's Y: its H, or 0 past the batch row's length.
te::Tensor step_output(const Direction& L, int64_t t, const te::Tensor& h, const std::string& name) {
  if (!L.lens.defined()) return h;
  return te::compute(
      i32s({L.d.B, L.d.H}), [&](Var b, Var j) { return select(L.valid(t, b), h(b, j), L.zero()); }, name);
}

Unrolled unroll(const Direction& L) {
  const Dims& d = L.d;
  const int64_t H = d.H;
  const te::Tensor xw = L.input_product();
  Unrolled u;
  u.y.resize(static_cast<size_t>(d.T));
  te::Tensor h = L.initial(kInitialH, "_h0"), c;
  if (L.n.op == "LSTM") c = L.initial(kInitialC, "_c0");
  const bool lbr = L.n.attr_int("linear_before_reset", 0) != 0;
  for (int64_t s = 0; s < d.T; ++s) {
    const int64_t t = L.reverse ? d.T - 1 - s : s;
    const std::string step = L.tag + "_" + std::to_string(s);
    // The pre-activation of gate row g, with the recurrent product hr.
    auto pre = [&](const te::Tensor& hr, Expr b, Expr g) { return xw(i32(t), b, g) + L.wb(g) + L.rb(g) + hr(b, g); };
    te::Tensor next;
    if (L.n.op == "RNN") {
      const te::Tensor hr = L.recurrent_product(h, 0, H, step + "_hr");
      next = te::compute(
          i32s({d.B, H}), [&](Var b, Var j) { return L.masked(t, b, L.tanh(pre(hr, b, j)), h(b, j)); }, step + "_h");
    } else if (L.n.op == "GRU") {
      // z and r from their rows; h~ from the h rows, with r applied before
      // the product (linear_before_reset 0) or after it (1).
      const te::Tensor hr = L.recurrent_product(h, 0, lbr ? 3 * H : 2 * H, step + "_hr");
      auto gate = [&](Expr b, Expr j, int64_t row) { return L.sigmoid(pre(hr, b, j + i32(row * H))); };
      auto candidate = [&](Expr b, Expr j, Expr r, const te::Tensor& hh) {
        const Expr g = j + i32(2 * H);
        const Expr x = xw(i32(t), b, g) + L.wb(g);
        if (lbr) return L.tanh(x + r * (hr(b, g) + L.rb(g)));
        return L.tanh(x + hh(b, j) + L.rb(g));
      };
      te::Tensor hh;
      if (!lbr) {
        const te::Tensor rh = te::compute(
            i32s({d.B, H}), [&](Var b, Var j) { return gate(b, j, 1) * h(b, j); }, step + "_rh");
        hh = L.recurrent_product(rh, 2 * H, H, step + "_hh");
      }
      next = te::compute(
          i32s({d.B, H}),
          [&](Var b, Var j) {
            const Expr z = gate(b, j, 0);
            const Expr fresh = (L.one() - z) * candidate(b, j, lbr ? gate(b, j, 1) : Expr(), hh) + z * h(b, j);
            return L.masked(t, b, fresh, h(b, j));
          },
          step + "_h");
    } else {
      // LSTM: rows i, o, f, c; peepholes P = [Pi, Po, Pf].
      const te::Tensor hr = L.recurrent_product(h, 0, 4 * H, step + "_hr");
      auto peep = [&](int64_t which, Expr j, Expr cell) {
        return L.has(kP) ? L.in[kP](i32(L.dir), j + i32(which * H)) * cell : L.zero();
      };
      const bool coupled = L.n.attr_int("input_forget", 0) != 0;
      const te::Tensor cell = te::compute(
          i32s({d.B, H}),
          [&](Var b, Var j) {
            const Expr old = c(b, j);
            const Expr i = L.sigmoid(pre(hr, b, j) + peep(0, j, old));
            const Expr f = coupled ? L.one() - i : L.sigmoid(pre(hr, b, j + i32(2 * H)) + peep(2, j, old));
            return L.masked(t, b, f * old + i * L.tanh(pre(hr, b, j + i32(3 * H))), old);
          },
          step + "_c");
      next = te::compute(
          i32s({d.B, H}),
          [&](Var b, Var j) {
            const Expr o = L.sigmoid(pre(hr, b, j + i32(H)) + peep(1, j, cell(b, j)));
            // The output gate of the new cell; past the length, the old H.
            return L.masked(t, b, o * call(Intrinsic::tanh, {cell(b, j)}), h(b, j));
          },
          step + "_h");
      c = cell;
    }
    h = next;
    u.y[static_cast<size_t>(t)] = step_output(L, t, h, step + "_y");
  }
  u.h = h;
  u.c = c;
  return u;
}

// Per-direction [B, H] states stacked into [D, B, H] (layout 1: [B, D, H]).
te::Tensor stack_states(const Dims& d, const std::vector<te::Tensor>& states, const std::string& name) {
  std::vector<te::Tensor> parts;
  for (size_t i = 0; i < states.size(); ++i)
    parts.push_back(ops::reshape(states[i], {1, d.B, d.H}, name + "_" + std::to_string(i)));
  const te::Tensor stacked = parts.size() == 1 ? parts[0] : ops::concat(parts, 0, name + "_stack");
  return d.batch_first ? ops::transpose(stacked, {1, 0, 2}, name) : stacked;
}

bool wanted(const Node& n, size_t i) { return i < n.outputs.size() && n.outputs[i] != Node::kNone; }

Tensors recurrent(const Graph& g, const Node& n, const Tensors& in) {
  const Dims d = dims_of(g, n);
  te::Tensor lens;
  if (const Value* v = g.input(n, kSequenceLens)) {
    const Shape given = v->is_constant() ? ints_of(*v->data) : Shape{};
    const bool full = v->is_constant() && std::all_of(given.begin(), given.end(), [&](int64_t l) { return l == d.T; });
    if (!full) {
      if (d.direction != "forward") not_yet(n, "sequence lengths of a reverse layer, unless each is the sequence's");
      lens = in.at(kSequenceLens);
    }
  }
  std::string op = n.op;
  std::transform(op.begin(), op.end(), op.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  std::vector<Unrolled> dirs;
  for (int64_t dir = 0; dir < d.D; ++dir) {
    const bool reverse = d.direction == "reverse" || dir == 1;
    dirs.push_back(unroll(Direction{n, d, dir, reverse, in, lens, op + (reverse ? "_bw" : "_fw")}));
  }
  Tensors outs(3);
  if (wanted(n, kY)) {
    // [T, D, B, H]: per direction the steps stacked along time, then the directions.
    std::vector<te::Tensor> per_dir;
    for (size_t i = 0; i < dirs.size(); ++i) {
      std::vector<te::Tensor> steps;
      for (const te::Tensor& y : dirs[i].y) steps.push_back(ops::reshape(y, {1, 1, d.B, d.H}, op + "_y_step"));
      per_dir.push_back(steps.size() == 1 ? steps[0] : ops::concat(steps, 0, op + "_y_" + std::to_string(i)));
    }
    const te::Tensor y = per_dir.size() == 1 ? per_dir[0] : ops::concat(per_dir, 1, op + "_y_stack");
    outs[kY] = d.batch_first ? ops::transpose(y, {2, 0, 1, 3}, op + "_y") : y;
  }
  std::vector<te::Tensor> hs, cs;
  for (const Unrolled& u : dirs) hs.push_back(u.h), cs.push_back(u.c);
  if (wanted(n, kYh)) outs[kYh] = stack_states(d, hs, op + "_y_h");
  if (n.op == "LSTM" && wanted(n, kYc)) outs[kYc] = stack_states(d, cs, op + "_y_c");
  outs.resize(n.outputs.size());
  return outs;
}

}  // namespace

std::vector<OpDef> recurrent_ops() {
  const char* shapes = "; X [T, B, I] (layout 1: [B, T, I]); default activations";
  return {
      {"RNN", std::string("H = tanh(X·Wᵀ + H·Rᵀ + Wb + Rb) over the steps") + shapes, OpPattern::kReduction,
       recurrent_rule, recurrent},
      {"GRU", std::string("gates z, r, h (linear_before_reset) over the steps") + shapes, OpPattern::kReduction,
       recurrent_rule, recurrent},
      {"LSTM", std::string("gates i, o, f, c, peepholes P, input_forget, over the steps") + shapes,
       OpPattern::kReduction, recurrent_rule, recurrent},
  };
}

}  // namespace kiln::graph::operators
