// The losses of ONNX's default domain, computed as any inference node:
// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (its log
// probabilities, then the same loss).
//
// input [N, C, d...] holds (log) scores per class, target [N, d...] a class
// per position. The loss at a position is -input[n, target, d...] weighted
// by weight[target], 0 where the target is ignore_index; reduction "none"
// keeps them, "sum" adds them, "mean" divides the sum by the weights of
// the positions not ignored.
#include "graph/operators/common.h"
#include "graph/operators/families.h"
#include "graph/operators/reduce_util.h"
#include "ops/broadcast.h"
#include "ops/common.h"

namespace kiln::graph::operators {
namespace {

using ops::i32;
using ops::i32s;

void loss_rule(const Node& n, Graph& g) {
  const Value& x = required_input(g, n, 0);
  const Value& target = required_input(g, n, 1);
  require_float(n, x);
  if (!target.dtype.is_int()) KILN_USER_ERROR() << n.describe() << ": targets of " << target.dtype.str();
  if (x.shape.size() < 2 || target.shape.size() != x.shape.size() - 1 || target.shape[0] != x.shape[0] ||
      !std::equal(target.shape.begin() + 1, target.shape.end(), x.shape.begin() + 2))
    KILN_USER_ERROR() << n.describe() << ": scores " << shape_str(x.shape) << " and targets "
                      << shape_str(target.shape) << " do not fit ([N, C, d...] and [N, d...])";
  if (const Value* w = g.input(n, 2); w && w->shape != Shape{x.shape[1]})
    KILN_USER_ERROR() << n.describe() << ": weights " << shape_str(w->shape) << " for " << x.shape[1] << " classes";
  const std::string reduction = n.attr_string("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    KILN_USER_ERROR() << n.describe() << ": unknown reduction '" << reduction << "'";
  set_output(g, n, 0, x.dtype, reduction == "none" ? target.shape : Shape{});
  if (n.op == "SoftmaxCrossEntropyLoss") set_output(g, n, 1, x.dtype, x.shape);
}

Tensors loss(const Graph& g, const Node& n, const Tensors& in) {
  const Shape& shape = required_input(g, n, 0).shape;
  const Shape& tshape = required_input(g, n, 1).shape;
  const int64_t classes = shape[1];
  const bool softmax = n.op == "SoftmaxCrossEntropyLoss";
  const te::Tensor log_prob = softmax ? log_softmax_along(in.at(0), shape, 1) : in.at(0);
  const te::Tensor& target = in.at(1);
  const bool weighted = g.input(n, 2) != nullptr;
  const DataType t = log_prob.dtype();
  const bool ignores = n.has_attr("ignore_index");
  const int64_t ignore = n.attr_int("ignore_index", 0);

  // Per position: the class (clamped into [0, C): a compiled kernel must
  // not read outside its buffer), whether it counts, its weight.
  auto at = [&](const std::vector<Var>& i) { return std::vector<Expr>(i.begin(), i.end()); };
  auto counts = [&](const Expr& cls) {
    return ignores ? ne(cls, make_const(cls.dtype(), static_cast<double>(ignore))) : make_const(DataType::Bool(), 1);
  };
  auto clamped = [&](const Expr& cls) { return min(max(cast(DataType::Int32(), cls), i32(0)), i32(classes - 1)); };
  auto weight_of = [&](const Expr& cls) {
    const Expr w = weighted ? in.at(2)(clamped(cls)) : make_const(t, 1);
    return select(counts(cls), w, make_const(t, 0));
  };
  const te::Tensor per_position = te::compute(
      i32s(tshape),
      [&](const std::vector<Var>& i) {
        const Expr cls = target(at(i));
        std::vector<Expr> src{i[0], clamped(cls)};
        src.insert(src.end(), i.begin() + 1, i.end());
        return make_const(t, 0) - log_prob(src) * weight_of(cls);
      },
      "loss");
  const std::string reduction = n.attr_string("reduction", "mean");
  te::Tensor out = per_position;
  if (reduction != "none") {
    const std::vector<bool> all(tshape.size(), true);
    const te::Tensor total = reduce(per_position, tshape, all, false, ReduceKind::kSum, identity, "loss_sum");
    out = total;
    if (reduction == "mean") {
      const te::Tensor weights = te::compute(
          i32s(tshape), [&](const std::vector<Var>& i) { return weight_of(target(at(i))); }, "loss_weight");
      const te::Tensor denominator = reduce(weights, tshape, all, false, ReduceKind::kSum, identity, "loss_weights");
      out = ops::map2(total, denominator, [](Expr a, Expr b) { return div(a, b); }, "loss_mean");
    }
  }
  if (softmax && n.outputs.size() > 1 && n.outputs[1] != Node::kNone) return {out, log_prob};
  return {out};
}

}  // namespace

std::vector<OpDef> loss_ops() {
  return {
      {"NegativeLogLikelihoodLoss", "-input[n, target, d...] * weight[target], reduced (none, sum, mean)",
       OpPattern::kReduction, loss_rule, loss},
      {"SoftmaxCrossEntropyLoss", "NegativeLogLikelihoodLoss of LogSoftmax(scores) over axis 1; the log "
       "probabilities as output 1", OpPattern::kReduction, loss_rule, loss},
  };
}

}  // namespace kiln::graph::operators
