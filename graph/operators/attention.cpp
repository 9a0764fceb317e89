// kiln.Attention (graph/recognize.h): scaled dot-product attention as one
// function, so that one task holds the two products and the softmax
// between them.
//
//   attention_qk[..., i, j]   = sum_d Q[..., i, d] * Kᵀ[..., d, j]
//   attention_scores          = where(keep, scale * qk + mask, fill)    (inlined)
//   attention_max             = the row's largest score
//   attention_probs[..., i, j] = exp(score - largest)                   (not normalized)
//   attention_sum             = the row's sum of probs
//   attention_pv[..., i, e]   = sum_j probs[..., i, j] * V[..., j, e]
//   attention[..., i, e]      = pv / sum
//
// The probabilities are a stage of their own, so that a schedule computes
// each exp once rather than once per column of V, and the row's sum adds
// them up rather than computing every exp again; they are divided by the
// sum after the second product, on [S, E] values instead of [S, T].
#include "graph/operators/common.h"
#include "graph/operators/families.h"
#include "graph/operators/reduce_util.h"
#include "graph/recognize.h"
#include "ops/broadcast.h"
#include "ops/common.h"

namespace kiln::graph::operators {
namespace {

using ops::i32;
using ops::i32s;

te::Tensor attention(const Graph& g, const Node& n, const Tensors& in) {
  const Shape &qs = required_input(g, n, 0).shape, &ks = required_input(g, n, 1).shape,
              &vs = required_input(g, n, 2).shape;
  const te::Tensor &q = in[0], &kt = in[1], &v = in[2];
  const Shape& out = out_shape(g, n);
  const size_t batch = out.size() - 2;
  Shape scores = out;
  scores.back() = ks.back();
  IterVar d = te::reduce_axis(Range(i32(0), i32(qs.back())), "d");
  te::Tensor qk = te::compute(
      i32s(scores),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> qi = batch_index(qs, i, batch), ki = batch_index(ks, i, batch);
        qi.push_back(i[batch]);
        qi.push_back(d.var());
        ki.push_back(d.var());
        ki.push_back(i[batch + 1]);
        return te::sum(q(qi) * kt(ki), {d});
      },
      "attention_qk");
  std::vector<te::Tensor> parts = {qk};
  const bool has_mask = g.input(n, 3) != nullptr, has_keep = g.input(n, 4) != nullptr;
  if (has_mask) parts.push_back(in[3]);
  if (has_keep) parts.push_back(in[4]);
  const double scale = n.attr_float("scale", 1.0), fill = n.attr_float("fill", 0.0);
  te::Tensor z = ops::map_n(
      parts,
      [&](const std::vector<Expr>& x) {
        Expr s = x[0] * make_const(x[0].dtype(), scale);
        if (has_mask) s = s + x[1];
        if (has_keep) s = select(x.back(), s, make_const(x[0].dtype(), fill));
        return s;
      },
      "attention_scores");
  std::vector<bool> last(scores.size(), false);
  last.back() = true;
  const te::Tensor max = reduce(z, scores, last, true, ReduceKind::kMax, identity, "attention_max");
  te::Tensor probs = te::compute(
      i32s(scores),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> row(i.begin(), i.end());
        row.back() = i32(0);
        std::vector<Expr> at(i.begin(), i.end());
        return call(Intrinsic::exp, {z(at) - max(row)});
      },
      "attention_probs");
  const te::Tensor sum = reduce(probs, scores, last, true, ReduceKind::kSum, identity, "attention_sum");
  IterVar t = te::reduce_axis(Range(i32(0), i32(ks.back())), "t");
  te::Tensor pv = te::compute(
      i32s(out),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> pi(i.begin(), i.begin() + static_cast<std::ptrdiff_t>(batch) + 1);
        pi.push_back(t.var());
        std::vector<Expr> vi = batch_index(vs, i, batch);
        vi.push_back(t.var());
        vi.push_back(i[batch + 1]);
        return te::sum(probs(pi) * v(vi), {t});
      },
      "attention_pv");
  return te::compute(
      i32s(out),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> at(i.begin(), i.end()), row(i.begin(), i.end());
        row.back() = i32(0);
        return div(pv(at), sum(row));
      },
      "attention");
}

}  // namespace

std::vector<OpDef> fused_ops() {
  return {
      {kAttention, "softmax(where(keep, scale * Q·Kᵀ + mask, fill)) · V", OpPattern::kAnchor, {}, one_output(attention)},
  };
}

}  // namespace kiln::graph::operators
