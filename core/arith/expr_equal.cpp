#include "core/arith/expr_equal.h"

#include <cstring>

#include "core/functor.h"

namespace kiln::arith {
namespace {

bool object_equal(const ObjectRef& a, const ObjectRef& b);

bool value_equal(const FieldValue& a, const FieldValue& b) {
  if (a.v.index() != b.v.index()) return false;
  if (const auto* r = std::get_if<ObjectRef>(&a.v)) return object_equal(*r, std::get<ObjectRef>(b.v));
  if (const auto* arr = std::get_if<FieldValue::Array>(&a.v)) {
    const auto& brr = std::get<FieldValue::Array>(b.v);
    if (arr->size() != brr.size()) return false;
    for (size_t i = 0; i < arr->size(); ++i)
      if (!value_equal((*arr)[i], brr[i])) return false;
    return true;
  }
  if (const auto* d = std::get_if<double>(&a.v)) {
    double e = std::get<double>(b.v);
    return std::memcmp(d, &e, sizeof(double)) == 0;
  }
  if (const auto* i = std::get_if<int64_t>(&a.v)) return *i == std::get<int64_t>(b.v);
  if (const auto* x = std::get_if<bool>(&a.v)) return *x == std::get<bool>(b.v);
  if (const auto* s = std::get_if<std::string>(&a.v)) return *s == std::get<std::string>(b.v);
  return std::get<DataType>(a.v) == std::get<DataType>(b.v);
}

bool fields_equal(const Object& a, const Object& b) {
  std::vector<FieldValue> fa, fb;
  a.write_fields(fa);
  b.write_fields(fb);
  if (fa.size() != fb.size()) return false;
  for (size_t i = 0; i < fa.size(); ++i)
    if (!value_equal(fa[i], fb[i])) return false;
  return true;
}

bool object_equal(const ObjectRef& a, const ObjectRef& b) {
  if (a.same_as(b)) return true;
  if (!a.defined() || !b.defined()) return false;
  if (a.as<ExprNode>() && b.as<ExprNode>()) return expr_equal(Expr(a.ptr()), Expr(b.ptr()));
  if (a.get()->has_identity()) return false;
  if (a.get()->type_key() != b.get()->type_key()) return false;
  return fields_equal(*a.get(), *b.get());
}

template <typename N>
bool binary_equal(const Expr& a, const Expr& b) {
  const auto* x = static_cast<const N*>(a.get());
  const auto* y = static_cast<const N*>(b.get());
  return expr_equal(x->a, y->a) && expr_equal(x->b, y->b);
}

}  // namespace

bool expr_equal(const Expr& a, const Expr& b) {
  if (a.same_as(b)) return true;
  if (!a.defined() || !b.defined()) return false;
  if (a.kind() != b.kind() || a.dtype() != b.dtype()) return false;
  switch (a.kind()) {
    case ExprKind::IntImm: return a.as<IntImmNode>()->value == b.as<IntImmNode>()->value;
    case ExprKind::FloatImm: {
      double x = a.as<FloatImmNode>()->value, y = b.as<FloatImmNode>()->value;
      return std::memcmp(&x, &y, sizeof(double)) == 0;
    }
    case ExprKind::Var: return false;  // identity only, and not the same object
#define X(Name, Sym) \
  case ExprKind::Name: return binary_equal<Name##Node>(a, b);
      KILN_FOR_EACH_BINARY_EXPR(X)
      KILN_FOR_EACH_CMP_EXPR(X)
      KILN_FOR_EACH_LOGIC_EXPR(X)
#undef X
    default: return fields_equal(*a.get(), *b.get());
  }
}

size_t expr_size(const Expr& e) {
  size_t n = 0;
  post_order_visit(e, [&](const Expr&) { ++n; });
  return n;
}

}  // namespace kiln::arith
