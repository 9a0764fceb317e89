// reorder: permute loops that lie on one chain.
//
//   for i: for j: for k: body        sch.reorder({k, i})
//                            ->      for k: for j: for i: body
//
// The loops named take the positions the named loops held, in the order
// given; other loops of the chain between them stay where they are. Every
// loop from the outermost named to the innermost named must be the only
// statement inside its parent, so that the permutation changes only the
// order in which the same iterations run. Blocks fix the meaning of each
// iteration, so any order of spatial and reduction loops is allowed; a
// loop's bounds may not use a loop that would move inside it.
#include <algorithm>

#include "tir/functor.h"
#include "tir/schedule/locate.h"
#include "tir/schedule/primitive/replay.h"

namespace kiln {
namespace {

std::string loop_name(const Stmt& l) { return "'" + l.as<ForNode>()->loop_var.name() + "'"; }

PrimFunc reorder_loops(const PrimFunc& f, const std::vector<Located>& named) {
  if (named.empty()) throw BadArgumentError("reorder", "no loops given");
  for (size_t i = 0; i < named.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (named[i].stmt.same_as(named[j].stmt))
        throw BadArgumentError("reorder", "loop " + loop_name(named[i].stmt) + " is named twice");

  // The deepest named loop; all others must be on its path.
  const Located* deepest = &named[0];
  for (const Located& l : named)
    if (l.ancestors.size() > deepest->ancestors.size()) deepest = &l;
  std::vector<Stmt> path = deepest->ancestors;
  path.push_back(deepest->stmt);
  size_t top = path.size();
  for (const Located& l : named) {
    auto it = std::find_if(path.begin(), path.end(), [&](const Stmt& s) { return s.same_as(l.stmt); });
    if (it == path.end())
      throw LoopsNotAdjacentError("reorder", "loops " + loop_name(l.stmt) + " and " + loop_name(deepest->stmt) +
                                                 " are not nested one in the other");
    top = std::min(top, static_cast<size_t>(it - path.begin()));
  }
  std::vector<Stmt> chain(path.begin() + top, path.end());
  for (size_t i = 0; i + 1 < chain.size(); ++i) {
    const auto* op = chain[i].as<ForNode>();
    if (!op || !op->body.same_as(chain[i + 1])) {
      const Stmt& inner = chain[i + 1];
      throw LoopsNotAdjacentError("reorder", (op ? "loop " + loop_name(chain[i])
                                                 : std::string("a ") + stmt_kind_name(chain[i].kind())) +
                                                 " holds other statements beside " +
                                                 (inner.as<ForNode>() ? "loop " + loop_name(inner) : "the next loop"));
    }
  }

  // Slots of the chain that named loops occupy, outermost first, get the
  // named loops in the order given.
  std::vector<const ForNode*> order;
  for (const Stmt& s : chain) order.push_back(s.as<ForNode>());
  size_t next = 0;
  for (size_t i = 0; i < chain.size(); ++i) {
    bool is_named = std::any_of(named.begin(), named.end(), [&](const Located& l) { return l.stmt.same_as(chain[i]); });
    if (is_named) order[i] = named[next++].stmt.as<ForNode>();
  }
  for (size_t i = 0; i < order.size(); ++i)
    for (size_t j = i + 1; j < order.size(); ++j)
      if (uses_var(order[i]->min, order[j]->loop_var) || uses_var(order[i]->extent, order[j]->loop_var))
        throw DependentLoopError("reorder", "the bounds of loop '" + order[i]->loop_var.name() +
                                                "' depend on loop '" + order[j]->loop_var.name() +
                                                "', which would move inside it");

  Stmt body = order.empty() ? Stmt() : chain.back().as<ForNode>()->body;
  for (size_t i = order.size(); i-- > 0;) {
    const ForNode* op = order[i];
    body = for_loop(op->loop_var, op->min, op->extent, op->for_kind, body, op->thread_tag, op->annotations);
  }
  return f.with_body(replace_stmt(f.body(), chain.front(), body));
}

}  // namespace

void Schedule::reorder(const std::vector<LoopRV>& loops) {
  std::vector<Located> named;
  std::vector<InstInput> inputs;
  for (LoopRV l : loops) {
    named.push_back(loop_location(l, "reorder"));
    inputs.emplace_back(l.rv());
  }
  update(reorder_loops(func_, named), "reorder");
  record(inst::reorder, std::move(inputs), NoAttrs{}, {});
}

namespace inst {
const InstructionKind reorder{"reorder", false,
                              [](Schedule& sch, const std::vector<InstInput>& in, const InstAttrs&,
                                 const Decision&) {
                                sch.reorder(replay::loops(in));
                                return std::vector<RV>{};
                              }};
}  // namespace inst
}  // namespace kiln
