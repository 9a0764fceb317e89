#include "tir/transform/lower_blocks.h"

#include "tir/functor.h"

namespace kiln {
namespace {

class BlockLowerer : public StmtMutator {
 public:
  using StmtMutator::mutate;

  Stmt visit_BlockRealize(const BlockRealizeNode* op, const Stmt&) override {
    const auto* b = op->block.as<BlockNode>();
    std::vector<std::pair<Var, Expr>> bind;
    Expr at_start;  // every reduce iter var at its domain's start
    for (size_t i = 0; i < b->iter_vars.size(); ++i) {
      const IterVar& iv = b->iter_vars[i];
      Expr value = mutate(op->iter_values[i]);
      bind.emplace_back(iv.var(), value);
      if (iv.is_reduce()) {
        Expr first = eq(value, iv.dom()->min);
        at_start = at_start.defined() ? logical_and(at_start, first) : first;
      }
    }
    Stmt body = substitute(mutate(b->body), bind);
    if (b->init.defined()) {
      Stmt init = substitute(mutate(b->init), bind);
      body = at_start.defined() ? seq({if_then_else(at_start, init), body}) : seq({init, body});
    }
    for (auto it = b->alloc_buffers.rbegin(); it != b->alloc_buffers.rend(); ++it) body = allocate(*it, body);
    if (!is_const_int(op->predicate, 1)) body = if_then_else(substitute(mutate(op->predicate), bind), body);
    return body;
  }

  Stmt visit_Block(const BlockNode* op, const Stmt&) override {
    KILN_ICHECK(false) << "block " << op->name << " outside a block realize";
    return Stmt();
  }
};

}  // namespace

PrimFunc lower_blocks(const PrimFunc& f) { return f.with_body(BlockLowerer().mutate(f.body())); }

}  // namespace kiln
