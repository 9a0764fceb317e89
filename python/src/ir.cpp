// Expressions, variables and functions: what compute definitions are built
// from and what a schedule transforms.
//
// Python numbers meet expressions as TVM's users expect: `x * 2` and
// `x * 0.5` take x's type (a float32 x makes a float32 constant); two
// expressions of different types are a TypeError (kiln converts nothing
// implicitly: te.cast says which way). Integer expressions divide with //
// and %, rounding toward minus infinity, as Python's own integers do.
#include <pybind11/operators.h>
#include <pybind11/stl.h>

#include "core/expr.h"
#include "core/json.h"
#include "core/printer.h"
#include "python/src/bindings.h"
#include "python/src/convert.h"
#include "tir/analysis/workload_key.h"
#include "tir/parser/parser.h"
#include "tir/printer.h"
#include "tir/stmt.h"

namespace kiln::py {

DataType to_dtype(pyb::handle h) {
  std::string s;
  if (pyb::isinstance<pyb::str>(h)) {
    s = h.cast<std::string>();
  } else if (pyb::hasattr(h, "name") && pyb::isinstance<pyb::str>(h.attr("name"))) {
    s = h.attr("name").cast<std::string>();  // numpy.dtype
  } else if (pyb::hasattr(h, "__name__")) {
    s = h.attr("__name__").cast<std::string>();  // numpy.float32
  } else {
    s = pyb::str(h).cast<std::string>();  // torch.float32 prints "torch.float32"
  }
  if (s.rfind("torch.", 0) == 0) s = s.substr(6);
  try {
    return DataType::parse(s);
  } catch (const Error&) {
    throw pyb::type_error("not a data type kiln knows: " + pyb::repr(h).cast<std::string>());
  }
}

Expr to_expr(pyb::handle h, std::optional<DataType> like) {
  if (pyb::isinstance<Expr>(h)) return h.cast<Expr>();
  if (pyb::isinstance<IterVar>(h)) return h.cast<IterVar>().var();
  const DataType t = like.value_or(DataType::Int32());
  if (PyBool_Check(h.ptr())) {
    if (!like) return make_const(DataType::Bool(), h.ptr() == Py_True);
    return make_const(t, h.ptr() == Py_True ? 1 : 0);
  }
  if (PyLong_Check(h.ptr())) {
    const auto v = h.cast<int64_t>();
    return t.is_float() ? float_imm(t, static_cast<double>(v)) : make_const(t, static_cast<double>(v));
  }
  if (PyFloat_Check(h.ptr()) || pyb::hasattr(h, "__float__")) {
    const auto v = h.cast<double>();
    if (!like) return float_imm(DataType::Float32(), v);
    if (!t.is_float())
      throw pyb::type_error("the float " + pyb::repr(h).cast<std::string>() + " meets an expression of type " +
                            t.str() + "; cast one of them (te.cast)");
    return float_imm(t, v);
  }
  throw pyb::type_error("not an expression or a number: " + pyb::repr(h).cast<std::string>());
}

std::vector<Expr> to_exprs(pyb::handle seq, std::optional<DataType> like) {
  std::vector<Expr> out;
  if (pyb::isinstance<pyb::tuple>(seq) || pyb::isinstance<pyb::list>(seq)) {
    for (pyb::handle e : seq) out.push_back(to_expr(e, like));
  } else {
    out.push_back(to_expr(seq, like));
  }
  return out;
}

namespace {

using Fn = Expr (*)(Expr, Expr);

// a OP b, where one side may be a Python number taking the other's type.
Expr binary(Fn fn, const char* op, pyb::handle a, pyb::handle b) {
  const bool a_expr = pyb::isinstance<Expr>(a) || pyb::isinstance<IterVar>(a);
  Expr x = a_expr ? to_expr(a, std::nullopt) : Expr();
  Expr y = to_expr(b, a_expr ? std::optional(x.dtype()) : std::nullopt);
  if (!a_expr) x = to_expr(a, y.dtype());
  if (x.dtype() != y.dtype())
    throw pyb::type_error(std::string("'") + op + "' of " + x.dtype().str() + " and " + y.dtype().str() +
                          ": kiln converts no type implicitly; cast one of them (te.cast)");
  return fn(std::move(x), std::move(y));
}

Expr checked_div(Expr a, Expr b) {
  if (!a.dtype().is_float())
    throw pyb::type_error("'/' of " + a.dtype().str() + ": integers divide with // (floor) and % (floor modulo)");
  return div(std::move(a), std::move(b));
}

Expr power(Expr a, Expr b) { return call(Intrinsic::pow, {std::move(a), std::move(b)}); }

// The arithmetic every expression-like class (Expr, IterVar) has.
template <typename C>
void arithmetic(C& cls) {
  auto def = [&](const char* name, Fn fn, const char* op, bool reflected) {
    if (reflected)
      cls.def(name, [fn, op](pyb::handle self, pyb::handle other) { return binary(fn, op, other, self); },
              pyb::is_operator());
    else
      cls.def(name, [fn, op](pyb::handle self, pyb::handle other) { return binary(fn, op, self, other); },
              pyb::is_operator());
  };
  def("__add__", add, "+", false), def("__radd__", add, "+", true);
  def("__sub__", sub, "-", false), def("__rsub__", sub, "-", true);
  def("__mul__", mul, "*", false), def("__rmul__", mul, "*", true);
  def("__truediv__", checked_div, "/", false), def("__rtruediv__", checked_div, "/", true);
  def("__floordiv__", floordiv, "//", false), def("__rfloordiv__", floordiv, "//", true);
  def("__mod__", floormod, "%", false), def("__rmod__", floormod, "%", true);
  def("__pow__", power, "**", false), def("__rpow__", power, "**", true);
  def("__lt__", lt, "<", false), def("__le__", le, "<=", false);
  def("__gt__", gt, ">", false), def("__ge__", ge, ">=", false);
  def("__and__", logical_and, "&", false), def("__rand__", logical_and, "&", true);
  def("__or__", logical_or, "|", false), def("__ror__", logical_or, "|", true);
  cls.def("__neg__", [](pyb::handle self) { return -to_expr(self, std::nullopt); });
  cls.def("__invert__", [](pyb::handle self) { return logical_not(to_expr(self, std::nullopt)); });
  cls.def("__bool__", [](pyb::handle) -> bool {
    throw pyb::type_error("an expression has no truth value while it is being defined; use te.select for a choice");
  });
  cls.def("astype", [](pyb::handle self, pyb::handle t) { return cast(to_dtype(t), to_expr(self, std::nullopt)); },
          "The expression converted to another type: x.astype('float32').");
}

pyb::list param_info(const PrimFunc& f) {
  pyb::list out;
  for (const Buffer& b : f.params()) {
    pyb::list shape;
    for (const Expr& e : b.shape()) {
      if (const int64_t* v = as_const_int(e)) shape.append(*v);
      else shape.append(to_string(e));
    }
    pyb::dict d;
    d["name"] = b.name();
    d["shape"] = pyb::tuple(shape);
    d["dtype"] = b.dtype().str();
    out.append(d);
  }
  return out;
}

}  // namespace

void bind_ir(pyb::module_& m) {
  auto expr = pyb::class_<Expr>(m, "Expr", "A scalar expression: an element of a tensor, an index, a constant.");
  expr.def_property_readonly("dtype", [](const Expr& e) { return e.dtype().str(); })
      .def("__str__", [](const Expr& e) { return to_string(e); })
      .def("__repr__", [](const Expr& e) { return "Expr(" + to_string(e) + ")"; });
  arithmetic(expr);

  pyb::class_<Var, Expr>(m, "Var", "A variable: a loop's or an axis's index.")
      .def_property_readonly("name", [](const Var& v) { return v.name(); });

  auto iv = pyb::class_<IterVar>(m, "IterVar",
                                 "An axis: its variable over [min, min + extent). A reduction axis indexes as its variable.");
  iv.def_property_readonly("var", &IterVar::var)
      .def_property_readonly("dom", [](const IterVar& v) { return pyb::make_tuple(v.dom()->min, v.dom()->extent); })
      .def("__repr__", [](const IterVar& v) {
        return "IterVar(" + v.var().name() + ", " + (v.is_reduce() ? "reduce" : "spatial") + ")";
      });
  arithmetic(iv);

  pyb::class_<PrimFunc>(m, "PrimFunc",
                        "A tensor function in block form: what compute definitions become and schedules transform.\n\n"
                        "print(f) shows kiln's IR text (docs/ir_text.md).")
      .def_property_readonly("name", &PrimFunc::name)
      .def_property_readonly("params", &param_info,
                             "Its parameters in calling order, inputs then the output: name, shape, dtype.")
      .def_property_readonly("workload_key", [](const PrimFunc& f) { return workload_key(f); },
                             "The stable hash of its canonical form the tuning database keys it by (v1-...).")
      .def("script", [](const PrimFunc& f) { return to_string(f); }, "kiln's IR text of the function.")
      .def("__str__", [](const PrimFunc& f) { return to_string(f); })
      .def("__repr__", [](const PrimFunc& f) { return "<kiln.PrimFunc " + f.name() + " " + workload_key(f) + ">"; })
      .def("to_json", [](const PrimFunc& f) { return save_json(f); }, "The IR as JSON (docs/ir_json.md).")
      .def_static("from_json", [](const std::string& s) { return load_json_as<PrimFunc>(s); },
                  "A function from its JSON (docs/ir_json.md).")
      .def_static("from_text", [](const std::string& s) { return parse_prim_func(s); },
                  "A function from kiln's IR text (docs/ir_text.md).")
      .def("__eq__", [](const PrimFunc& a, const PrimFunc& b) { return workload_key(a) == workload_key(b); },
           "Whether the two compute the same (their canonical forms, as the workload key hashes them).")
      .def("__hash__", [](const PrimFunc& f) { return std::hash<std::string>()(workload_key(f)); });
}

}  // namespace kiln::py
