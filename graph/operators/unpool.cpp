// MaxUnpool: MaxPool's values put back where MaxPool's Indices output says
// they came from, zeros elsewhere (SegNet's and ENet's decoders).
//
// The indices are data, so this is a gather written backwards: each output
// position looks among the input positions whose pooling window covers it
// (ceil(kernel / stride) per axis, from the node's kernel, strides and
// pads) for one whose index names it. MaxPool's indices always name a
// position of their own window, so nothing else can; an index that names
// a position outside its window (indices not made by that MaxPool) is not
// seen.
#include "graph/operators/common.h"
#include "graph/operators/families.h"
#include "ops/broadcast.h"
#include "ops/common.h"

namespace kiln::graph::operators {
namespace {

using ops::i32;
using ops::i32s;

struct UnpoolSpec {
  Shape kernel, strides, pads;  // pads: begins, then ends
  Shape unpooled;               // the shape MaxPool's input had: (in - 1) * stride + kernel - pads
  Shape out;                    // the output's full shape: output_shape, or `unpooled`
};

UnpoolSpec unpool_spec(const Graph& g, const Node& n) {
  const Value& x = required_input(g, n, 0);
  if (x.shape.size() < 3) KILN_USER_ERROR() << n.describe() << ": input of shape " << shape_str(x.shape);
  const size_t k = x.shape.size() - 2;
  UnpoolSpec s;
  s.kernel = n.attr_ints("kernel_shape", {});
  s.strides = n.attr_ints("strides", Shape(k, 1));
  s.pads = n.attr_ints("pads", Shape(2 * k, 0));
  if (s.kernel.size() != k || s.strides.size() != k || s.pads.size() != 2 * k)
    KILN_USER_ERROR() << n.describe() << ": kernel_shape, strides and pads must give " << k << " spatial axes";
  for (size_t d = 0; d < k; ++d)
    if (s.kernel[d] < 1 || s.strides[d] < 1 || s.pads[d] < 0 || s.pads[d + k] < 0)
      KILN_USER_ERROR() << n.describe() << ": a kernel, stride or pad out of range on axis " << d;
  s.unpooled = {x.shape[0], x.shape[1]};
  for (size_t d = 0; d < k; ++d)
    s.unpooled.push_back((x.shape[d + 2] - 1) * s.strides[d] + s.kernel[d] - s.pads[d] - s.pads[d + k]);
  s.out = s.unpooled;
  if (g.input(n, 2)) {
    s.out = constant_ints(g, n, 2, "output_shape");
    if (s.out.size() != x.shape.size() || s.out[0] != x.shape[0] || s.out[1] != x.shape[1])
      KILN_USER_ERROR() << n.describe() << ": output_shape " << shape_str(s.out) << " for an input of shape "
                        << shape_str(x.shape);
  }
  for (int64_t e : s.unpooled)
    if (e < 1) KILN_USER_ERROR() << n.describe() << ": kernel, strides and pads leave a shape of " << shape_str(s.unpooled);
  for (int64_t e : s.out)
    if (e < 1) KILN_USER_ERROR() << n.describe() << ": an output of shape " << shape_str(s.out);
  return s;
}

void unpool_rule(const Node& n, Graph& g) {
  const Value &x = required_input(g, n, 0), &indices = required_input(g, n, 1);
  require_float(n, x);
  if (indices.shape != x.shape || indices.dtype != DataType::Int64())
    KILN_USER_ERROR() << n.describe() << ": indices are " << indices.dtype.str() << shape_str(indices.shape)
                      << ", not int64 of the input's shape";
  set_output(g, n, 0, x.dtype, unpool_spec(g, n).out);
}

te::Tensor unpool(const Graph& g, const Node& n, const Tensors& in) {
  const te::Tensor &x = in.at(0), &indices = in.at(1);
  const Shape& shape = required_input(g, n, 0).shape;
  const UnpoolSpec s = unpool_spec(g, n);
  const size_t k = shape.size() - 2;
  std::vector<IterVar> r;
  for (size_t d = 0; d < k; ++d)
    r.push_back(te::reduce_axis(Range(i32(0), i32((s.kernel[d] + s.strides[d] - 1) / s.strides[d])), "r" + std::to_string(d)));
  const DataType i64 = DataType::Int64();
  return te::compute(
      i32s(s.out),
      [&](const std::vector<Var>& p) {
        // The output position's flat index, as MaxPool's Indices count it:
        // in the unpooled shape, whose positions keep their coordinates in
        // a larger output_shape (the rest stays 0).
        Expr flat = cast(i64, p[0]);
        for (size_t d = 1; d < p.size(); ++d)
          flat = flat * make_const(i64, static_cast<double>(s.unpooled[d])) + cast(i64, p[d]);
        std::vector<Expr> at = {p[0], p[1]};
        Expr covers = make_const(DataType::Bool(), 1);
        for (size_t d = 0; d < k; ++d) {
          covers = logical_and(covers, lt(p[d + 2], i32(s.unpooled[d + 2])));
          // Input positions q whose window [q·S - P, q·S - P + K) holds p:
          // q = (p + P) / S - r for r below ceil(K / S).
          const Expr q = floordiv(p[d + 2] + i32(s.pads[d]), i32(s.strides[d])) - r[d].var();
          covers = logical_and(covers, logical_and(logical_and(ge(q, i32(0)), lt(q, i32(shape[d + 2]))),
                                                   gt(q * i32(s.strides[d]) - i32(s.pads[d]) + i32(s.kernel[d]), p[d + 2])));
          at.push_back(min(max(q, i32(0)), i32(shape[d + 2] - 1)));
        }
        const Expr hit = logical_and(covers, eq(indices(at), flat));
        return te::max_reduce(select(hit, x(at), min_value(x.dtype())), r);
      },
      "unpool_max");
}

}  // namespace

std::vector<OpDef> unpool_ops() {
  return {
      {"MaxUnpool", "MaxPool's values put back at its Indices, zeros elsewhere (output_shape a constant)",
       OpPattern::kReduction, unpool_rule,
       one_output([](const Graph& g, const Node& n, const Tensors& in) {
         const te::Tensor m = unpool(g, n, in);
         return ops::map(m, [](Expr v) { return select(eq(v, min_value(v.dtype())), make_zero(v.dtype()), v); }, "unpool");
       }),
       2},
  };
}

}  // namespace kiln::graph::operators
