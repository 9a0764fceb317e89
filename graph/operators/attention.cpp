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
//
// With the attribute padded_keys = P > T (graph/pad_attention.h), the
// scores, probabilities and their reductions run over P columns: Kᵀ is
// read through a copy with zero columns past T (attention_keys), and a
// column past T scores -inf, so its probability is exactly 0 and the
// result is the same. A vector tile divides its axis (search/rules/rules.h),
// so T = 197 (ViT's) or 129 left the scores in scalars; P = 208 or 144
// vectorizes them.
#include <limits>

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

// `t` with its last axis, of `keys` columns, padded to `padded` with
// `fill`; as it is when that axis broadcasts (extent 1) or nothing pads.
te::Tensor pad_keys(const te::Tensor& t, int64_t keys, int64_t padded, Expr fill, const std::string& name) {
  const int64_t* last = t.ndim() > 0 ? as_const_int(t.shape().back()) : nullptr;
  if (padded == keys || !last || *last != keys) return t;
  std::vector<Expr> shape = t.shape();
  shape.back() = i32(padded);
  return te::compute(
      shape,
      [&](const std::vector<Var>& i) {
        std::vector<Expr> at(i.begin(), i.end());
        at.back() = min(Expr(i.back()), i32(keys - 1));  // in bounds for the lanes the select drops
        return select(lt(i.back(), i32(keys)), t(at), fill);
      },
      name);
}

te::Tensor attention(const Graph& g, const Node& n, const Tensors& in) {
  const Shape &qs = required_input(g, n, 0).shape, &ks = required_input(g, n, 1).shape,
              &vs = required_input(g, n, 2).shape;
  const te::Tensor &q = in[0], &v = in[2];
  const Shape& out = out_shape(g, n);
  const size_t batch = out.size() - 2;
  const DataType dtype = q.dtype();
  const int64_t keys = ks.back(), padded = std::max(n.attr_int(kPaddedKeys, keys), keys);
  const te::Tensor kt = pad_keys(in[1], keys, padded, make_const(dtype, 0), "attention_keys");
  Shape scores = out;
  scores.back() = padded;
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
  // The parts of a score: the product, then each optional one's index.
  std::vector<te::Tensor> parts = {qk};
  const bool has_mask = g.input(n, 3) != nullptr, has_keep = g.input(n, 4) != nullptr;
  const size_t mask_at = parts.size();
  if (has_mask) parts.push_back(pad_keys(in[3], keys, padded, make_const(dtype, 0), "attention_mask"));
  const size_t keep_at = parts.size();
  if (has_keep) parts.push_back(pad_keys(in[4], keys, padded, make_const(in[4].dtype(), 1), "attention_keep"));
  // 0 on the columns a key holds, -inf past them.
  const size_t pad_at = parts.size();
  if (padded > keys)
    parts.push_back(te::compute(
        {i32(padded)},
        [&](const std::vector<Var>& i) {
          return select(lt(i[0], i32(keys)), make_const(dtype, 0),
                        make_const(dtype, -std::numeric_limits<double>::infinity()));
        },
        "attention_columns"));
  const double scale = n.attr_float("scale", 1.0), fill = n.attr_float("fill", 0.0);
  te::Tensor z = ops::map_n(
      parts,
      [&](const std::vector<Expr>& x) {
        Expr s = x[0] * make_const(x[0].dtype(), scale);
        if (has_mask) s = s + x[mask_at];
        if (padded > keys) s = s + x[pad_at];
        if (has_keep) s = select(x[keep_at], s, make_const(x[0].dtype(), fill));
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
  // Over the keys alone: past them every probability is 0.
  IterVar t = te::reduce_axis(Range(i32(0), i32(keys)), "t");
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
