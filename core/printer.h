// The text form of expressions: TVMScript-flavoured, with as few parentheses
// as Python's precedence allows, and regular enough to be parsed back
// (docs/ir_text.md is the grammar). Every immediate that is not int32 or bool
// carries its type (`T.int64(3)`, `T.float32(0.5)`), so the text never loses
// a type.
//
//   x + y * 2            (x + y) // 4 % 3           T.Select(x < 4, x, 0)
//   A[i, k] * T.float32(0.5)                        T.sum(A[i, k], axis=[T.reduce_axis(k, 32)])
//
// Variables and buffers are named by identity, not by their name hint: two
// distinct variables both called `i` print as `i` and `i_1`. The naming lives
// in a PrintContext, which the statement printer (tir/printer.h) shares so
// that one text has one namespace.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "core/expr.h"

namespace kiln {

std::string to_string(const Expr& e);
std::ostream& operator<<(std::ostream& os, const Expr& e);

// One printed text's names and declarations. Not thread-safe; one per text.
class PrintContext {
 public:
  // The unique name of a Var or Buffer, chosen from its hint at first use:
  // made a valid identifier, kept clear of Python keywords and `T`, and
  // suffixed (`_1`, `_2`, ...) when another node already holds it.
  const std::string& name(const Var& v) { return name_of(v.get(), v.name()); }
  const std::string& name(const Buffer& b) { return name_of(b.get(), b.name()); }

  // Marks a variable as declared (bound by a loop, a let, a block axis, or a
  // declaration line). Declared variables print as their bare name; an
  // undeclared one that is not int32 prints as `T.Var("n", "int64")`, so
  // its type survives even in a lone expression.
  void declare(const Var& v) { declared_.insert(v.get()); }
  bool is_declared(const Var& v) const { return declared_.count(v.get()) != 0; }

  // Prints an expression with this context's names.
  void print(std::ostream& os, const Expr& e);
  std::string str(const Expr& e);

  // `min + extent`, folded when both are constants of one type: the stop of
  // a Python-style [start, stop) range (`2:6`, `vk * 4:vk * 4 + 4`).
  std::string stop(const Expr& min, const Expr& extent);
  // The arguments of a buffer declaration: `(64, 32), "float32"` plus
  // `scope=...`, `align_axis=...`, `align_factor=...`, `align_offset=...` when not default.
  std::string buffer_args(const Buffer& b);
  // An iteration domain as T.axis and T.reduce_axis take it: `64` when it
  // starts at zero of the extent's type, else `(2, 66)`.
  std::string domain(const Range& dom);
  // `, dtype="int64"` when a bound variable's type is not its extent's (the
  // type a reader infers), else nothing.
  static std::string dtype_kwarg(const Var& v, const Expr& extent);

 private:
  const std::string& name_of(const Object* node, const std::string& hint);

  std::unordered_map<const Object*, std::string> names_;
  std::unordered_set<std::string> taken_;
  std::unordered_set<const Object*> declared_;
};

// Text helpers shared by the printers.
// A double-quoted string literal with Python escapes.
std::string quote_string(std::string_view s);
// `T.float32`, `T.int64x4`: the type as an annotation or constructor.
std::string dtype_ref(DataType t);
// A Python identifier that is not a keyword or a name the text relies on
// (`T`, `I`, `range`).
bool is_plain_identifier(std::string_view s);
// `hint` made a plain identifier: bad characters become `_`, a leading digit
// or a reserved name gets a prefix or suffix. Plain identifiers stay as they are.
std::string to_identifier(const std::string& hint);

}  // namespace kiln
