// kiln.te: compute definitions (tir/te/tensor.h) from Python.
//
//   A = te.placeholder((M, K), "float32", name="A")
//   k = te.reduce_axis((0, K), name="k")
//   C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
//   f = te.create_prim_func([A, B, C])
//
// The body function runs once, while compute() builds the tensor, on the
// index variables; the tensors it indexes are recorded then, as in C++.
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include "core/error.h"
#include "core/printer.h"
#include "python/src/bindings.h"
#include "python/src/convert.h"
#include "tir/te/create_prim_func.h"
#include "tir/te/tensor.h"

namespace kiln::py {
namespace {

std::vector<Expr> shape_of(pyb::handle shape) {
  std::vector<Expr> out;
  for (pyb::handle d : pyb::iter(shape)) out.push_back(to_expr(d, DataType::Int32()));
  return out;
}

std::vector<IterVar> axes_of(pyb::handle axis) {
  std::vector<IterVar> out;
  if (pyb::isinstance<IterVar>(axis)) return {axis.cast<IterVar>()};
  for (pyb::handle a : pyb::iter(axis)) {
    if (!pyb::isinstance<IterVar>(a)) throw pyb::type_error("axis takes reduction axes (te.reduce_axis)");
    out.push_back(a.cast<IterVar>());
  }
  return out;
}

Expr one(pyb::handle x) { return to_expr(x, std::nullopt); }

// Both sides as expressions of one type, a number taking the other's.
std::pair<Expr, Expr> pair_of(pyb::handle a, pyb::handle b) {
  const bool a_num = !pyb::isinstance<Expr>(a) && !pyb::isinstance<IterVar>(a);
  if (a_num) {
    Expr y = to_expr(b, std::nullopt);
    return {to_expr(a, y.dtype()), y};
  }
  Expr x = to_expr(a, std::nullopt);
  return {x, to_expr(b, x.dtype())};
}

}  // namespace

void bind_te(pyb::module_& parent) {
  pyb::module_ m = parent.def_submodule("te", "Compute definitions: placeholders, compute, reductions, math.");

  pyb::class_<te::Tensor>(m, "Tensor", "A placeholder or a computed tensor; T[i, j] is its element.")
      .def_property_readonly("name", &te::Tensor::name)
      .def_property_readonly("dtype", [](const te::Tensor& t) { return t.dtype().str(); })
      .def_property_readonly("ndim", &te::Tensor::ndim)
      .def_property_readonly("shape",
                             [](const te::Tensor& t) {
                               pyb::list s;
                               for (const Expr& e : t.shape()) {
                                 if (const int64_t* v = as_const_int(e)) s.append(*v);
                                 else s.append(e);
                               }
                               return pyb::tuple(s);
                             })
      .def_property_readonly("axis", &te::Tensor::axis, "A computed tensor's spatial axes.")
      .def("__getitem__",
           [](const te::Tensor& t, pyb::handle idx) {
             std::vector<Expr> indices = to_exprs(idx, DataType::Int32());
             if (static_cast<int>(indices.size()) != t.ndim())
               throw pyb::index_error(t.name() + " has " + std::to_string(t.ndim()) + " dimensions, indexed with " +
                                      std::to_string(indices.size()));
             return t(indices);
           })
      .def("__repr__", [](const te::Tensor& t) {
        std::string s = "Tensor(" + t.name() + ", (";
        for (size_t i = 0; i < t.shape().size(); ++i) s += (i ? ", " : "") + to_string(t.shape()[i]);
        return s + "), " + t.dtype().str() + ")";
      });

  m.def(
      "placeholder",
      [](pyb::handle shape, pyb::handle dtype, const std::string& name) {
        return te::placeholder(shape_of(shape), to_dtype(dtype), name);
      },
      pyb::arg("shape"), pyb::arg("dtype") = "float32", pyb::arg("name") = "placeholder",
      "An input tensor.\n\n    A = te.placeholder((64, 32), 'float32', name='A')");
  m.def(
      "compute",
      [](pyb::handle shape, const pyb::function& fcompute, const std::string& name) {
        std::vector<Expr> s = shape_of(shape);
        return te::compute(
            s,
            std::function<Expr(const std::vector<Var>&)>([&](const std::vector<Var>& vars) {
              pyb::tuple args(vars.size());
              for (size_t i = 0; i < vars.size(); ++i) args[i] = pyb::cast(vars[i]);
              pyb::object body = fcompute(*args);
              return to_expr(body, std::nullopt);
            }),
            name);
      },
      pyb::arg("shape"), pyb::arg("fcompute"), pyb::arg("name") = "compute",
      "A tensor whose element at (i, j, ...) is fcompute(i, j, ...); a reduction (te.sum, te.max, te.min) may be\n"
      "the body's root.\n\n    B = te.compute((M, N), lambda i, j: A[i, j] * te.sigmoid(A[i, j]), name='B')");
  m.def(
      "reduce_axis",
      [](pyb::handle dom, const std::string& name) {
        Expr lo = make_const(DataType::Int32(), 0), extent;
        if (pyb::isinstance<pyb::tuple>(dom) || pyb::isinstance<pyb::list>(dom)) {
          std::vector<Expr> b = to_exprs(dom, DataType::Int32());
          if (b.size() != 2) throw pyb::value_error("reduce_axis takes (begin, end) or an extent");
          lo = b[0];
          extent = b[1] - b[0];
        } else {
          extent = to_expr(dom, DataType::Int32());
        }
        return te::reduce_axis(Range(lo, extent), name);
      },
      pyb::arg("dom"), pyb::arg("name") = "k",
      "A reduction axis over [begin, end) (or [0, extent)).\n\n    k = te.reduce_axis((0, K), name='k')");
  m.def("sum", [](pyb::handle e, pyb::handle axis) { return te::sum(one(e), axes_of(axis)); }, pyb::arg("expr"),
        pyb::arg("axis"), "The sum of expr over the reduction axes, at the root of a compute body.");
  m.def("_max_reduce", [](pyb::handle e, pyb::handle axis) { return te::max_reduce(one(e), axes_of(axis)); });
  m.def("_min_reduce", [](pyb::handle e, pyb::handle axis) { return te::min_reduce(one(e), axes_of(axis)); });
  m.def("_max", [](pyb::handle a, pyb::handle b) { auto [x, y] = pair_of(a, b); return max(x, y); });
  m.def("_min", [](pyb::handle a, pyb::handle b) { auto [x, y] = pair_of(a, b); return min(x, y); });
  m.def(
      "select",
      [](pyb::handle cond, pyb::handle t, pyb::handle f) {
        auto [x, y] = pair_of(t, f);
        Expr c = one(cond);
        if (!c.dtype().is_bool()) throw pyb::type_error("select's condition is a comparison, not " + c.dtype().str());
        return select(c, x, y);
      },
      pyb::arg("cond"), pyb::arg("true_value"), pyb::arg("false_value"),
      "true_value where cond holds, else false_value: te.select(x > 0, x, 0.1 * x).");
  m.def("cast", [](pyb::handle x, pyb::handle t) { return cast(to_dtype(t), one(x)); }, pyb::arg("expr"),
        pyb::arg("dtype"), "expr converted to dtype: te.cast(i, 'float32').");
  m.def(
      "const", [](pyb::handle v, pyb::handle t) { return to_expr(v, to_dtype(t)); }, pyb::arg("value"),
      pyb::arg("dtype") = "float32", "A constant of a type: te.const(0.5, 'float16').");
#define X(name, arity)                                                                                      \
  if constexpr (arity == 1)                                                                                 \
    m.def(#name, [](pyb::handle x) { return call(Intrinsic::name, {one(x)}); }, pyb::arg("x"),              \
          "The elementwise " #name " of a float expression.");
  KILN_FOR_EACH_INTRINSIC(X)
#undef X
  m.def("pow", [](pyb::handle a, pyb::handle b) { auto [x, y] = pair_of(a, b); return call(Intrinsic::pow, {x, y}); },
        pyb::arg("x"), pyb::arg("y"), "x raised to y, elementwise.");
  m.def("fma", [](pyb::handle a, pyb::handle b, pyb::handle c) {
    Expr x = one(a);
    return call(Intrinsic::fma, {x, to_expr(b, x.dtype()), to_expr(c, x.dtype())});
  }, pyb::arg("a"), pyb::arg("b"), pyb::arg("c"), "a * b + c with one rounding.");
  m.def(
      "create_prim_func",
      [](const std::vector<te::Tensor>& args, const std::string& name) { return te::create_prim_func(args, name); },
      pyb::arg("args"), pyb::arg("name") = "main",
      "The function of the tensors: inputs (placeholders) then the output, in calling order.\n\n"
      "    f = te.create_prim_func([A, B, C], name='matmul')");
}

}  // namespace kiln::py
