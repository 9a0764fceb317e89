#include "tir/transform/insert_barriers.h"

#include <map>

#include "core/functor.h"
#include "tir/functor.h"
#include "tir/thread_axes.h"

namespace kiln {
namespace {

// By identity, keeping the buffer for the report.
using BufferSet = std::map<const Object*, Buffer>;

struct Accesses {
  BufferSet reads, writes;
  void merge(const Accesses& o) {
    reads.insert(o.reads.begin(), o.reads.end());
    writes.insert(o.writes.begin(), o.writes.end());
  }
};

// What a statement does to shared memory, seen from outside: the accesses
// before its first barrier (head) and after its last (tail). Without a
// barrier inside, both are all of them.
struct Summary {
  Accesses head, tail;
  bool syncs = false;
};

// The shared buffer `next` reads that `before` wrote, or writes that
// `before` read; null when none. Two writes need no barrier between them:
// threads that store to one element without a read between race with or
// without one, and the stores of a cooperative fetch go to distinct elements.
const Buffer* conflict(const Accesses& before, const Accesses& next) {
  for (const auto& [b, ref] : next.reads)
    if (before.writes.count(b)) return &ref;
  for (const auto& [b, ref] : next.writes)
    if (before.reads.count(b)) return &ref;
  return nullptr;
}

bool is_shared(const Buffer& b) { return b->scope == "shared"; }

// Shared loads in an expression.
void add_loads(const Expr& e, Accesses& out) {
  if (!e.defined()) return;
  post_order_visit(e, [&](const Expr& x) {
    if (const auto* ld = x.as<BufferLoadNode>(); ld && is_shared(ld->buffer)) out.reads.emplace(ld->buffer.get(), ld->buffer);
  });
}

Summary plain(Accesses a) { return Summary{a, a, false}; }

// One walk for both questions: where barriers are missing (recorded), and
// the body with them inserted (when `insert`).
class Planner {
 public:
  explicit Planner(bool insert) : insert_(insert) {}
  std::vector<MissingBarrier> missing;

  Stmt visit(const Stmt& s, Summary& sum) {
    switch (s.kind()) {
      case StmtKind::BufferStore: {
        const auto* op = s.as<BufferStoreNode>();
        Accesses a;
        add_loads(op->value, a);
        for (const Expr& i : op->indices) add_loads(i, a);
        if (is_shared(op->buffer)) a.writes.emplace(op->buffer.get(), op->buffer);
        sum = plain(a);
        return s;
      }
      case StmtKind::Evaluate: {
        Accesses a;
        add_loads(s.as<EvaluateNode>()->value, a);
        sum = plain(a);
        return s;
      }
      case StmtKind::Barrier: sum = Summary{{}, {}, true}; return s;
      case StmtKind::Prefetch: sum = plain(Accesses{}); return s;  // reads nothing
      case StmtKind::SeqStmt: return visit_seq(s.as<SeqStmtNode>()->seq, sum, s);
      case StmtKind::For: return visit_for(s, sum);
      case StmtKind::IfThenElse: {
        const auto* op = s.as<IfThenElseNode>();
        Summary t, e;
        Stmt then_case = visit(op->then_case, t);
        Stmt else_case = op->else_case.defined() ? visit(op->else_case, e) : Stmt();
        Accesses cond;
        add_loads(op->condition, cond);
        if (t.syncs && e.syncs) {
          sum.head = cond;
          sum.head.merge(t.head);
          sum.head.merge(e.head);
          sum.tail = t.tail;
          sum.tail.merge(e.tail);
          sum.syncs = true;
        } else {
          // A path without a barrier: what either branch does is pending.
          Accesses all = cond;
          for (const Summary* b : {&t, &e}) {
            all.merge(b->head);
            all.merge(b->tail);
          }
          sum = plain(all);
        }
        if (then_case.same_as(op->then_case) && else_case.same_as(op->else_case)) return s;
        return if_then_else(op->condition, then_case, else_case);
      }
      case StmtKind::LetStmt: {
        const auto* op = s.as<LetStmtNode>();
        Stmt body = visit(op->body, sum);
        Accesses v;
        add_loads(op->value, v);
        sum.head.merge(v);
        if (!sum.syncs) sum.tail.merge(v);
        return body.same_as(op->body) ? s : let_stmt(op->var, op->value, body);
      }
      case StmtKind::Allocate: {
        const auto* op = s.as<AllocateNode>();
        Stmt body = visit(op->body, sum);
        return body.same_as(op->body) ? s : allocate(op->buffer, body);
      }
      case StmtKind::Block:
      case StmtKind::BlockRealize: break;
    }
    KILN_ICHECK(false) << "insert_barriers: " << stmt_kind_name(s.kind()) << " in a lowered function";
    return s;
  }

 private:
  Stmt visit_seq(const std::vector<Stmt>& stmts, Summary& sum, const Stmt& self) {
    std::vector<Stmt> out;
    bool changed = false;
    Accesses pending, head;
    bool synced = false;
    for (const Stmt& c : stmts) {
      Summary cs;
      Stmt nc = visit(c, cs);
      changed |= !nc.same_as(c);
      if (const Buffer* b = conflict(pending, cs.head)) {
        place(c, false, *b);
        if (insert_) {
          out.push_back(barrier());
          changed = true;
        }
        synced = true;
        pending = {};
      }
      if (!synced) head.merge(cs.head);
      if (cs.syncs) {
        synced = true;
        pending = cs.tail;
      } else {
        pending.merge(cs.head);
      }
      out.push_back(nc);
    }
    sum = Summary{head, pending, synced};
    return changed ? seq(std::move(out)) : self;
  }

  Stmt visit_for(const Stmt& s, Summary& sum) {
    const auto* op = s.as<ForNode>();
    Summary b;
    Stmt body = visit(op->body, b);
    Accesses bounds;
    add_loads(op->min, bounds);
    add_loads(op->extent, bounds);
    // A block or thread index: the block runs the body once, not in turns.
    const bool once = op->for_kind == ForKind::kThreadBinding && !is_vthread_tag(op->thread_tag);
    if (!once) {
      // The next iteration's head against this one's tail.
      if (const Buffer* buf = conflict(b.syncs ? b.tail : b.head, b.head)) {
        place(s, true, *buf);
        if (insert_) body = seq({body, barrier()});
        b.tail = {};
        b.syncs = true;
      }
    }
    b.head.merge(bounds);
    if (!b.syncs) b.tail = b.head;
    sum = b;
    return body.same_as(op->body) ? s : with_loop_body(s, body);
  }

  void place(const Stmt& at, bool end_of_loop, const Buffer& buf) {
    missing.push_back(MissingBarrier{at, end_of_loop, buf});
  }

  const bool insert_;
};

}  // namespace

std::vector<MissingBarrier> missing_barriers(const Stmt& body) {
  Planner p(false);
  Summary sum;
  p.visit(body, sum);
  return std::move(p.missing);
}

PrimFunc insert_barriers(const PrimFunc& f) {
  Planner p(true);
  Summary sum;
  return f.with_body(p.visit(f.body(), sum));
}

}  // namespace kiln
