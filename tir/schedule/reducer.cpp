#include "tir/schedule/reducer.h"

#include "core/functor.h"
#include "core/structural.h"

namespace kiln {

std::optional<Reducer> reducer_of(ExprKind op, DataType t) {
  switch (op) {
    case ExprKind::Add: return Reducer{op, make_zero(t)};
    case ExprKind::Mul: return Reducer{op, make_const(t, 1)};
    case ExprKind::Min: return Reducer{op, max_value(t)};
    case ExprKind::Max: return Reducer{op, min_value(t)};
    default: return std::nullopt;
  }
}

namespace {

template <typename N>
std::optional<std::pair<Expr, Expr>> operands(const Expr& e) {
  const auto* n = e.as<N>();
  if (!n) return std::nullopt;
  return std::make_pair(n->a, n->b);
}

bool reads_buffer(const Expr& e, const Buffer& buf) {
  bool found = false;
  post_order_visit(e, [&](const Expr& x) {
    if (const auto* l = x.as<BufferLoadNode>()) found |= l->buffer.same_as(buf);
  });
  return found;
}

}  // namespace

std::optional<ReductionUpdate> match_reduction_update(const BufferStoreNode* store) {
  const Expr& v = store->value;
  std::optional<std::pair<Expr, Expr>> ab;
  switch (v.kind()) {
    case ExprKind::Add: ab = operands<AddNode>(v); break;
    case ExprKind::Mul: ab = operands<MulNode>(v); break;
    case ExprKind::Min: ab = operands<MinNode>(v); break;
    case ExprKind::Max: ab = operands<MaxNode>(v); break;
    default: return std::nullopt;
  }
  Expr acc = buffer_load(store->buffer, store->indices);
  Expr value;
  if (structural_equal(ab->first, acc)) {
    value = ab->second;
  } else if (structural_equal(ab->second, acc)) {
    value = ab->first;
  } else {
    return std::nullopt;
  }
  if (reads_buffer(value, store->buffer)) return std::nullopt;
  return ReductionUpdate{*reducer_of(v.kind(), v.dtype()), value};
}

}  // namespace kiln
