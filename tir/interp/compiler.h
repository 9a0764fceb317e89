// Compiles a PrimFunc into a Program (see program.h).
//
// The compiler keeps the lexical scopes: every binding site (parameter shape,
// loop, let, block iter var) gets a fresh slot, and every buffer declaration
// (parameter, Allocate, block alloc_buffers) a fresh buffer entry, so shadowing
// and reuse of one Var or Buffer in sibling scopes need no care at run time.
// Uses of a variable or buffer outside its scope are reported here, before
// anything runs, even in branches that would never execute.
//
// The expression, access and statement parts live in their own files.
#pragma once

#include <optional>
#include <unordered_map>
#include <vector>

#include "tir/interp/program.h"
#include "tir/stmt.h"

namespace kiln::interp {

class Compiler {
 public:
  Program compile(const PrimFunc& f);

  // compile_expr.cpp
  ExprPtr expr(const Expr& e);
  IndexCode index(const Expr& e);  // a scalar integer expression

  // compile_access.cpp
  ExprPtr load(const BufferLoadNode* op);
  StmtPtr store(const BufferStoreNode* op);

  // compile_stmt.cpp
  StmtPtr stmt(const Stmt& s);

  // Scopes. bind_var returns the variable's first slot (a vector variable has
  // one slot per lane); unbind_var ends the innermost binding.
  int bind_var(const Var& v);
  // Binds v to an existing scalar slot (an iter var bound to a loop var).
  void alias_var(const Var& v, int slot);
  void unbind_var(const Var& v);
  int slot_of(const VarNode* v) const;
  // Parameters are dense; intermediates honour storage_align.
  int declare_buffer(const Buffer& b, bool dense);
  void undeclare_buffer(const Buffer& b);
  int buffer_id(const Buffer& b) const;
  const BufferInfo& buffer_info(int id) const { return buffers_[id]; }

  // Constant value ranges [lo, hi] of slots, known for loop variables with
  // constant bounds; they let accesses and block bindings skip checks that
  // cannot fail. An empty range (lo > hi) means the code never runs.
  void set_range(int slot, int64_t lo, int64_t hi);
  void clear_range(int slot);
  // The range of an index: a constant's value, a slot's known range.
  std::optional<std::pair<int64_t, int64_t>> range_of(const IndexCode& i) const;
 private:
  std::unordered_map<const VarNode*, std::vector<int>> var_slots_;
  std::unordered_map<const BufferNode*, std::vector<int>> buffer_ids_;
  std::vector<BufferInfo> buffers_;
  std::unordered_map<int, std::pair<int64_t, int64_t>> ranges_;
  int num_slots_ = 0;
};

}  // namespace kiln::interp
