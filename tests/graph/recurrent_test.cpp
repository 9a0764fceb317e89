// RNN, GRU and LSTM beyond ONNX's node tests (which run forward layers
// only): a bidirectional layer is its two directions, a reverse layer is a
// forward one over the time-reversed input, sequence lengths mask what
// lies past them, and one step against its arithmetic written out. TopK's
// order and ties. All on the reference executor.
#include <gtest/gtest.h>

#include <cmath>

#include "graph/onnx_import.h"
#include "graph/reference.h"
#include "model_builder.h"
#include "same_outputs.h"

namespace kiln::graph {
namespace {

using testing::ModelBuilder;
using testing::set_int;
using testing::set_string;

constexpr int64_t kT = 4, kB = 3, kI = 2, kH = 3;

int64_t gates(const std::string& op) { return op == "LSTM" ? 4 : op == "GRU" ? 3 : 1; }

// A layer whose X, W, R and B are inputs (for random values), with outputs
// Y and Y_h (and Y_c of an LSTM).
Graph layer(const std::string& op, const std::string& direction, int64_t dirs, bool lens = false) {
  const int64_t g = gates(op);
  ModelBuilder m;
  m.input("X", {kT, kB, kI}).input("W", {dirs, g * kH, kI}).input("R", {dirs, g * kH, kH}).input("B", {dirs, 2 * g * kH});
  std::vector<std::string> in = {"X", "W", "R", "B"};
  if (lens) {
    m.input("L", {kB}, onnx::TensorProto::INT32);
    in.push_back("L");
  }
  std::vector<std::string> out = {"Y", "Y_h"};
  if (op == "LSTM") out.push_back("Y_c");
  for (const std::string& o : out) m.output(o);
  onnx::NodeProto& n = m.node(op, in, out);
  set_int(n, "hidden_size", kH);
  set_string(n, "direction", direction);
  return import_onnx_bytes(m.bytes());
}

std::vector<NDArray> copies(const std::vector<NDArray>& a) {
  std::vector<NDArray> c;
  for (const NDArray& x : a) c.push_back(x.copy());
  return c;
}

// Direction `d` of a [dirs, ...] weight, as a [1, ...] one.
NDArray direction_of(const NDArray& w, int64_t d) {
  std::vector<int64_t> shape = w.shape();
  const int64_t per = w.numel() / shape[0];
  shape[0] = 1;
  NDArray out(w.dtype(), shape);
  for (int64_t i = 0; i < per; ++i) out.set(i, w.get(d * per + i));
  return out;
}

// X with its time axis reversed.
NDArray time_reversed(const NDArray& x) {
  NDArray r(x.dtype(), x.shape());
  const int64_t per = x.numel() / kT;
  for (int64_t t = 0; t < kT; ++t)
    for (int64_t i = 0; i < per; ++i) r.set((kT - 1 - t) * per + i, x.get(t * per + i));
  return r;
}

void expect_near(double got, double want, const std::string& where) {
  EXPECT_NEAR(got, want, 1e-5 + 1e-5 * std::abs(want)) << where;
}

class Recurrent : public ::testing::TestWithParam<std::string> {};

TEST_P(Recurrent, ABidirectionalLayerIsItsTwoDirections) {
  const std::string op = GetParam();
  const Graph both = layer(op, "bidirectional", 2);
  const std::vector<NDArray> in = testing::random_inputs(both, 5);
  const std::vector<NDArray> y = run_reference(both, in);
  for (int64_t d = 0; d < 2; ++d) {
    const Graph one = layer(op, d == 0 ? "forward" : "reverse", 1);
    std::vector<NDArray> part;
    part.push_back(in[0].copy());
    for (size_t i = 1; i < 4; ++i) part.push_back(direction_of(in[i], d));
    const std::vector<NDArray> want = run_reference(one, part);
    // Y: [T, D, B, H]; the states: [D, B, H].
    for (int64_t t = 0; t < kT; ++t)
      for (int64_t e = 0; e < kB * kH; ++e)
        expect_near(y[0].get((t * 2 + d) * kB * kH + e), want[0].get(t * kB * kH + e),
                    op + " Y t=" + std::to_string(t) + " d=" + std::to_string(d));
    for (size_t o = 1; o < y.size(); ++o)
      for (int64_t e = 0; e < kB * kH; ++e)
        expect_near(y[o].get(d * kB * kH + e), want[o].get(e), op + " output " + std::to_string(o));
  }
}

TEST_P(Recurrent, AReverseLayerIsAForwardOneOverTheReversedSequence) {
  const std::string op = GetParam();
  const Graph reverse = layer(op, "reverse", 1), forward = layer(op, "forward", 1);
  const std::vector<NDArray> in = testing::random_inputs(reverse, 7);
  std::vector<NDArray> flipped = copies(in);
  flipped[0] = time_reversed(in[0]);
  const std::vector<NDArray> got = run_reference(reverse, in), want = run_reference(forward, flipped);
  const NDArray want_y = time_reversed(want[0]);
  for (int64_t i = 0; i < want_y.numel(); ++i) expect_near(got[0].get(i), want_y.get(i), op + " Y " + std::to_string(i));
  for (size_t o = 1; o < got.size(); ++o)
    for (int64_t i = 0; i < got[o].numel(); ++i) expect_near(got[o].get(i), want[o].get(i), op + " state");
}

TEST_P(Recurrent, SequenceLengthsMaskTheStepsPastThem) {
  // Rows of lengths 4, 2, 1: each row's steps before its length are the
  // unmasked layer's, Y is 0 after, and Y_h is the row's last valid step.
  const std::string op = GetParam();
  const Graph masked = layer(op, "forward", 1, true), full = layer(op, "forward", 1);
  std::vector<NDArray> in = testing::random_inputs(full, 3);
  const std::vector<NDArray> want = run_reference(full, in);
  NDArray lens(DataType::Int32(), {kB});
  const int64_t length[kB] = {4, 2, 1};
  for (int64_t b = 0; b < kB; ++b) lens.set(b, static_cast<double>(length[b]));
  in.push_back(std::move(lens));
  const std::vector<NDArray> got = run_reference(masked, in);
  for (int64_t b = 0; b < kB; ++b)
    for (int64_t j = 0; j < kH; ++j) {
      for (int64_t t = 0; t < kT; ++t) {
        const int64_t i = (t * kB + b) * kH + j;
        const std::string where = op + " Y t=" + std::to_string(t) + " b=" + std::to_string(b);
        if (t < length[b]) expect_near(got[0].get(i), want[0].get(i), where);
        else EXPECT_EQ(got[0].get(i), 0.0) << where;
      }
      expect_near(got[1].get(b * kH + j), want[0].get(((length[b] - 1) * kB + b) * kH + j), op + " Y_h");
    }
}

INSTANTIATE_TEST_SUITE_P(Layers, Recurrent, ::testing::Values("RNN", "GRU", "LSTM"));

TEST(RecurrentStep, AnRnnStepIsItsArithmeticClipped) {
  // One step, one unit: y = tanh(clip(x·w + h0·r + wb + rb)), clip 0.5.
  ModelBuilder m(14);
  m.input("X", {1, 1, 1}).input("W", {1, 1, 1}).input("R", {1, 1, 1}).input("B", {1, 2}).input("H0", {1, 1, 1});
  m.output("Y_h");
  onnx::NodeProto& n = m.node("RNN", {"X", "W", "R", "B", "", "H0"}, {"", "Y_h"});
  set_int(n, "hidden_size", 1);
  onnx::AttributeProto* clip = n.add_attribute();
  clip->set_name("clip");
  clip->set_type(onnx::AttributeProto::FLOAT);
  clip->set_f(0.5f);
  const Graph g = import_onnx_bytes(m.bytes());
  auto scalar = [](std::vector<int64_t> shape, double v) {
    NDArray a(DataType::Float32(), std::move(shape));
    a.set(0, v);
    return a;
  };
  for (double x : {0.1, 2.0}) {
    std::vector<NDArray> in;
    in.push_back(scalar({1, 1, 1}, x));
    in.push_back(scalar({1, 1, 1}, 0.5));
    in.push_back(scalar({1, 1, 1}, -0.25));
    NDArray b(DataType::Float32(), {1, 2});
    b.set(0, 0.125);
    b.set(1, -0.0625);
    in.push_back(std::move(b));
    in.push_back(scalar({1, 1, 1}, 0.75));
    const double pre = x * 0.5 + 0.75 * -0.25 + 0.125 - 0.0625;
    const double want = std::tanh(std::max(-0.5, std::min(0.5, pre)));
    EXPECT_NEAR(run_reference(g, in)[0].get(0), want, 1e-6) << x;
  }
}

TEST(TopK, LargestFirstTiesToTheLowerIndex) {
  for (int64_t largest : {1, 0}) {
    ModelBuilder m(11);
    m.input("x", {2, 5}).ints("k", {3}).output("v").output("i");
    set_int(m.node("TopK", {"x", "k"}, {"v", "i"}), "largest", largest);
    const Graph g = import_onnx_bytes(m.bytes());
    NDArray x(DataType::Float32(), {2, 5});
    const double rows[10] = {1, 3, 3, -2, 0, 5, 5, 5, 5, 4};
    for (int64_t i = 0; i < 10; ++i) x.set(i, rows[i]);
    std::vector<NDArray> in;
    in.push_back(std::move(x));
    const std::vector<NDArray> out = run_reference(g, in);
    ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{2, 3}));
    ASSERT_EQ(out[1].dtype(), DataType::Int64());
    const double values[2][6] = {{3, 3, 1, 5, 5, 5}, {-2, 0, 1, 4, 5, 5}};
    const double indices[2][6] = {{1, 2, 0, 0, 1, 2}, {3, 4, 0, 4, 0, 1}};
    const int64_t which = largest ? 0 : 1;
    for (int64_t i = 0; i < 6; ++i) {
      EXPECT_EQ(out[0].get(i), values[which][i]) << "largest=" << largest << " " << i;
      EXPECT_EQ(out[1].get(i), indices[which][i]) << "largest=" << largest << " " << i;
    }
  }
}

TEST(TopK, AKBeyondTheAxisIsNamed) {
  ModelBuilder m(11);
  m.input("x", {2, 5}).ints("k", {6}).output("v").output("i");
  m.node("TopK", {"x", "k"}, {"v", "i"}, "top");
  try {
    import_onnx_bytes(m.bytes());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("node 'top' (TopK): k is 6; the axis has 5 elements"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace kiln::graph
