// What each identifier of one text stands for. The printer gives every
// distinct Var and Buffer of a text its own identifier (docs/ir_text.md,
// Names), so the inverse is one object per identifier: binding a name that
// was bound before, in a sibling scope, binds the same object again (as
// unrolled copies of a loop do). Distinct objects come only from distinct
// names, and structural equality sees the same sharing on both sides.
//
// Visibility is lexical, as in Python: a loop variable is usable in its body,
// a block's axes and buffers in the block, a let's variable in its body.
// A name used outside every binding of it is an error, as is binding a name
// again while it is visible.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "core/expr.h"
#include "tir/parser/lexer.h"

namespace kiln::parser {

class NameTable {
 public:
  // Names bound between open_scope() and the matching close_scope() stop
  // being visible at the close.
  void open_scope() { scope_starts_.push_back(bound_.size()); }
  void close_scope();

  // Binds the identifier `name` to a variable of type `t`: a new Var, or the
  // one this name was bound to before (which must have type t).
  Var bind_var(const Token& name, DataType t);
  // Binds `name` to `declared` (named after it), or to the buffer the name
  // was bound to before, which must be declared the same way.
  Buffer bind_buffer(const Token& name, const Buffer& declared);
  // Makes an object from outside the text visible everywhere under `name`.
  void add_free(const Token& at, const std::string& name, const ObjectRef& object);
  // The variable `T.Var("n", "int64")` names: the one called n, or a new
  // free variable.
  Var free_var(const Token& at, const std::string& name, DataType t);

  // The visible object `name` stands for; throws for an undefined name or a
  // name outside the scope that binds it.
  const ObjectRef& lookup(const Token& name) const;

 private:
  void make_visible(const Token& at, const std::string& name);

  std::unordered_map<std::string, ObjectRef> objects_;
  std::unordered_map<std::string, int> visible_;
  std::vector<std::string> bound_;  // in binding order, for close_scope
  std::vector<size_t> scope_starts_;
};

// Opens a scope for the lifetime of the guard.
class ScopeGuard {
 public:
  explicit ScopeGuard(NameTable& names) : names_(names) { names_.open_scope(); }
  ~ScopeGuard() { names_.close_scope(); }
  ScopeGuard(const ScopeGuard&) = delete;
  ScopeGuard& operator=(const ScopeGuard&) = delete;

 private:
  NameTable& names_;
};

}  // namespace kiln::parser
