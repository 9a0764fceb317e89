// Selection and reordering along an axis: TopK, the k largest (or
// smallest) elements and their indices, in order; ReverseSequence, each
// batch row's first elements reversed.
//
// A static graph has no sort, so TopK is two reductions that a compiled
// kernel runs like any other: each element's rank (how many elements of
// its row come before it in the output order: larger ones, or equal ones
// at lower indices, as ONNX orders ties), then, for each output position
// r < k, the element whose rank is r. That is O(n²) in the axis's extent n
// (n·k for the second stage): right for the small axes of detection heads
// and sampling over a few candidates, slow for a vocabulary's 50257 (a
// sort there is a task for a later library call). The ranks are a
// permutation, so exactly one element has each rank and the selection is
// exact.
#include "graph/operators/common.h"
#include "graph/operators/families.h"
#include "ops/common.h"

namespace kiln::graph::operators {
namespace {

using ops::i32;
using ops::i32s;

// k: an attribute before opset 10, since a constant input.
int64_t top_k_count(const Graph& g, const Node& n) {
  if (n.has_attr("k")) return n.attr_int("k", 0);
  const Shape k = constant_ints(g, n, 1, "k");
  if (k.size() != 1) KILN_USER_ERROR() << n.describe() << ": k must be one value, not " << k.size();
  return k[0];
}

void top_k_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  if (x.dtype.is_bool()) KILN_UNSUPPORTED() << n.describe() << ": a TopK of bool";
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  const size_t axis = static_cast<size_t>(shape_axis(n, n.attr_int("axis", -1), rank));
  const int64_t k = top_k_count(g, n);
  if (k < 1 || k > x.shape[axis])
    KILN_USER_ERROR() << n.describe() << ": k is " << k << "; the axis has " << x.shape[axis]
                      << " elements and k must be 1 to that";
  Shape out = x.shape;
  out[axis] = k;
  set_output(g, n, 0, x.dtype, out);
  set_output(g, n, 1, DataType::Int64(), out);
}

Tensors top_k(const Graph& g, const Node& n, const Tensors& in) {
  const te::Tensor& x = in.at(0);
  const Shape& shape = required_input(g, n, 0).shape;
  const size_t axis = static_cast<size_t>(shape_axis(n, n.attr_int("axis", -1), static_cast<int64_t>(shape.size())));
  const int64_t extent = shape[axis];
  const bool largest = n.attr_int("largest", 1) != 0;  // `sorted` asks for an order; this one is always sorted

  IterVar j = te::reduce_axis(Range(i32(0), i32(extent)), "j");
  const te::Tensor rank = te::compute(
      i32s(shape),
      [&](const std::vector<Var>& i) {
        const std::vector<Expr> self(i.begin(), i.end());
        std::vector<Expr> other = self;
        other[axis] = j.var();
        const Expr a = x(other), b = x(self);
        const Expr ahead = (largest ? gt(a, b) : lt(a, b)) || (eq(a, b) && lt(j.var(), i[axis]));
        return te::sum(select(ahead, i32(1), i32(0)), {j});
      },
      "topk_rank");

  // Output position r takes the one element of rank r.
  IterVar e = te::reduce_axis(Range(i32(0), i32(extent)), "e");
  auto pick = [&](const std::vector<Var>& r, Expr taken, Expr identity, bool smallest) {
    std::vector<Expr> at(r.begin(), r.end());
    at[axis] = e.var();
    const Expr v = select(eq(rank(at), Expr(r[axis])), taken, identity);
    return smallest ? te::min_reduce(v, {e}) : te::max_reduce(v, {e});
  };
  Shape out = shape;
  out[axis] = top_k_count(g, n);
  Tensors outs;
  outs.push_back(te::compute(
      i32s(out),
      [&](const std::vector<Var>& r) {
        std::vector<Expr> at(r.begin(), r.end());
        at[axis] = e.var();
        return pick(r, x(at), min_value(x.dtype()), false);
      },
      "topk_values"));
  const DataType i64 = DataType::Int64();
  outs.push_back(te::compute(
      i32s(out), [&](const std::vector<Var>& r) { return pick(r, cast(i64, e.var()), make_const(i64, extent), true); },
      "topk_indices"));
  return outs;  // an omitted output's stages are built and not read
}

void reverse_sequence_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  if (x.shape.size() < 2) KILN_USER_ERROR() << n.describe() << ": input of shape " << shape_str(x.shape) << "; it has at least 2 axes";
  const int64_t time = n.attr_int("time_axis", 0), batch = n.attr_int("batch_axis", 1);
  if (!((time == 0 && batch == 1) || (time == 1 && batch == 0)))
    KILN_USER_ERROR() << n.describe() << ": time_axis " << time << " and batch_axis " << batch << "; they are 0 and 1";
  const Value& lens = required_input(g, n, 1);
  if (lens.shape != Shape{x.shape[static_cast<size_t>(batch)]} || !lens.dtype.is_int())
    KILN_USER_ERROR() << n.describe() << ": sequence_lens is " << lens.dtype.str() << shape_str(lens.shape)
                      << "; it is one integer per batch row";
  same_as_input(n, g);
}

// y[t, b] = x[len[b] - 1 - t, b] for t < len[b], else x[t, b]. The lengths
// are data: the index is clamped into the axis, as Gather's is.
te::Tensor reverse_sequence(const Graph& g, const Node& n, const Tensors& in) {
  const te::Tensor &x = in.at(0), &lens = in.at(1);
  const Shape& shape = required_input(g, n, 0).shape;
  const size_t time = static_cast<size_t>(n.attr_int("time_axis", 0)), batch = 1 - time;
  return te::compute(
      i32s(shape),
      [&](const std::vector<Var>& i) {
        const Expr len = cast(DataType::Int32(), lens(i[batch]));
        const Expr t = i[time];
        std::vector<Expr> at(i.begin(), i.end());
        at[time] = select(lt(t, len), max(i32(0), min(i32(shape[time] - 1), len - i32(1) - t)), t);
        return x(at);
      },
      "reverse_sequence");
}

}  // namespace

std::vector<OpDef> selection_ops() {
  return {
      {"TopK", "the k largest (largest=0: smallest) along axis, sorted, ties to the lower index; values and int64 indices",
       OpPattern::kReduction, top_k_rule, top_k, 1},
      {"ReverseSequence", "each batch row's first sequence_lens elements along time_axis reversed", OpPattern::kInjective,
       reverse_sequence_rule, one_output(reverse_sequence)},
  };
}

}  // namespace kiln::graph::operators
