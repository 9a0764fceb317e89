// compute_at, reverse_compute_at: move a block into another nest's loop,
// computing there only the part of its buffer that loop needs.
//
//   compute_at(B_global, j0):                 reverse_compute_at(C_local, j0):
//     for j0:                                   for j0:
//       for ax0, ax1:  (B's tile for j0)          for k, j1: block C (writes C_local)
//         block B_global                          for ax0, ax1: (the tile C wrote)
//       for k, j1: block C (reads B_global)         block C_local (reads C_local)
//
// compute_at moves a producer under a loop of its consumers; the new loops
// cover the region of the produced buffer that the blocks under the loop
// read in one iteration. reverse_compute_at moves a consumer under a loop of
// its producer; the new loops cover the region the blocks under the loop
// write in one iteration. The moved block's nest must hold nothing else, and
// each dimension of the linking buffer must be indexed by one of its axes
// (as copy blocks and elementwise stages do); other axes keep their whole
// domain. Legality, so that no value is read before it is complete:
//  - no statement between the two nests touches the linking buffer, writes
//    a buffer the block reads, or touches one it writes;
//  - compute_at: every reader of the buffer is under the loop, and no block
//    there writes it (a reduction's update after its init);
//  - reverse_compute_at: every writer of the buffer is under the loop, and
//    none of them still reduces over the loop or a loop outside it.
#include <algorithm>
#include <deque>

#include "core/arith/analyzer.h"
#include "tir/analysis/access_region.h"
#include "tir/analysis/unclamp.h"
#include "tir/functor.h"
#include "tir/schedule/bindings.h"
#include "tir/schedule/block_util.h"
#include "tir/schedule/primitive/compute_location.h"
#include "tir/schedule/primitive/replay.h"
#include "tir/thread_axes.h"

namespace kiln {
namespace {

std::string q(const std::string& s) { return "'" + s + "'"; }

bool touches(const Stmt& s, const Buffer& buf, bool reads, bool writes) {
  auto [r, w] = detect_access_regions(s, {}, &buf);
  auto has = [&](const std::vector<BufferRegion>& v) {
    return std::any_of(v.begin(), v.end(), [&](const BufferRegion& x) { return x.buffer().same_as(buf); });
  };
  return (reads && has(r)) || (writes && has(w));
}

// Blocks under `s` (at any depth) whose recorded reads (or writes) include `buf`.
int count_accessors(const Stmt& s, const Buffer& buf, bool writes) {
  int n = 0;
  for_each_block(s, [&](const BlockNode* b) {
    for (const BufferRegion& r : writes ? b->writes : b->reads) n += r.buffer().same_as(buf);
  });
  return n;
}

// What building the move needs once its checks passed.
struct MovePlan {
  Stmt encl_stmt;  // the block that holds both nests
  Stmt top;        // the moved block's nest
  // Per axis of the moved block: the part the loop needs, or none for the
  // whole domain.
  std::vector<std::optional<Range>> axis_range;
};

// Binds the loops at and around `lp` to their ranges.
void bind_loops(arith::Analyzer& ana, const Located& lp) {
  for (const Stmt& a : lp.ancestors)
    if (const auto* f = a.as<ForNode>()) ana.bind(f->loop_var, Range(f->min, f->extent));
  const auto* loop = lp.stmt.as<ForNode>();
  ana.bind(loop->loop_var, Range(loop->min, loop->extent));
}

// The loops at and around `lp` whose threads share one copy of `buf`
// (tir/thread_axes.h): the part of a shared buffer a block needs is what
// all the block's threads need together.
std::vector<IterVar> shared_thread_loops(const Buffer& buf, const Located& lp) {
  std::vector<IterVar> out;
  auto add = [&](const Stmt& s) {
    if (const auto* f = s.as<ForNode>(); f && shared_across(buf, *f))
      out.emplace_back(f->loop_var, Range(f->min, f->extent), IterType::kSpatial);
  };
  for (const Stmt& a : lp.ancestors) add(a);
  add(lp.stmt);
  return out;
}

}  // namespace

// The checks of a move of one block, at one loop or at many. What depends on
// the block alone is found once; what depends on the linking buffer (its
// accessors outside the block, the statements between the nests, the
// regions under each loop) once per buffer. Checks that read only what
// blocks declare come before the regions: the search asks about every loop
// before the one it picks, and most fail early.
class MoveChecker::Impl {
 public:
  Impl(const Located& blk, bool reverse) : reverse_(reverse), P(reverse ? "reverse_compute_at" : "compute_at") {
    b_ = block_of(blk.stmt);
    bname_ = q(b_->name);
    covers_ = !reverse && b_->annotations.count(kCoverRegionAnn);
    encl_ = enclosing_block(blk, &encl_stmt_);
    if (!encl_) return;
    top_ = top_of_nest(blk);
    for (const Stmt& l : enclosing_loops(blk)) {
      const Stmt& body = l.as<ForNode>()->body;
      if (body.kind() != StmtKind::For && !body.same_as(blk.stmt)) shares_loops_ = true;
    }
    list_ = stmts_of(encl_->body);
    ib_ = index_of(top_, {});
  }

  // Null when the move to `lp` is legal, with `plan` (when asked for)
  // filled in; without a plan, the regions come from the shared walk.
  ScheduleErrorPtr check(const Located& lp, MovePlan* plan) {
    const auto* loop = lp.stmt.as<ForNode>();
    const std::string lname = q(loop->loop_var.name());
    Stmt loop_encl_stmt;
    if (!encl_ || !enclosing_block(lp, &loop_encl_stmt) || !loop_encl_stmt.same_as(encl_stmt_))
      return schedule_error<NotFoundError>(P, "loop " + lname + " is not in the block that holds block " + bname_);
    if (shares_loops_)
      return schedule_error<LoopsNotAdjacentError>(P, "block " + bname_ + " shares its loops with other statements");

    // Positions of the two nests in the enclosing block's body.
    const int il = index_of(lp.stmt, lp.ancestors);
    KILN_ICHECK(ib_ >= 0 && il >= 0) << P << ": nests not found in their block";
    if (ib_ == il) return schedule_error<NotFoundError>(P, "loop " + lname + " is one of block " + bname_ + "'s own loops");
    if (!reverse_ && ib_ > il)
      return schedule_error<DependentLoopError>(
          P, "block " + bname_ + " comes after loop " + lname + "; use reverse_compute_at");
    if (reverse_ && ib_ < il)
      return schedule_error<DependentLoopError>(P, "block " + bname_ + " comes before loop " + lname + "; use compute_at");

    // The linking buffer: the first the block writes that a block under the
    // loop reads, or the other way round, as the blocks declare it.
    const std::vector<BufferRegion>& mine = reverse_ ? b_->reads : b_->writes;
    const BufferRegion* own = nullptr;
    int inside = 0;
    for (const BufferRegion& m : mine)
      if ((inside = count_accessors(loop->body, m.buffer(), reverse_)) > 0) {
        own = &m;
        break;
      }
    if (!own)
      return schedule_error<NotFoundError>(P, std::string("nothing under loop ") + lname +
                                                  (reverse_ ? " writes" : " reads") + " a buffer that block " + bname_ +
                                                  (reverse_ ? " reads" : " writes"));
    const Buffer buf = own->buffer();
    Linked& link = linked(buf);


    // compute_at: every other reader is under the loop; reverse_compute_at:
    // every other writer.
    if (inside != link.elsewhere)
      return schedule_error<DependentLoopError>(
          P, "buffer " + q(buf.name()) + " is " + (reverse_ ? "written" : "read") + " outside loop " + lname + " too");
    if (!reverse_) {
      // Recomputing the producer's part in every iteration would overwrite
      // what a block under the loop wrote there (an accumulation).
      std::string writer = block_accessing(loop->body, buf, /*writes=*/true);
      if (!writer.empty())
        return schedule_error<DependentLoopError>(
            P, "block " + q(writer) + " under loop " + lname + " also writes buffer " + q(buf.name()));
    }
    if (reverse_) {
      // A writer that still reduces over this loop or an outer one has not
      // finished the tile when the loop's iteration ends.
      std::vector<Var> outer;
      for (const Stmt& a : lp.ancestors)
        if (const auto* f2 = a.as<ForNode>()) outer.push_back(f2->loop_var);
      outer.push_back(loop->loop_var);
      for (const Stmt& r : child_block_realizes(loop->body)) {
        const auto* rz = r.as<BlockRealizeNode>();
        const BlockNode* w = block_of(r);
        for (size_t k = 0; k < w->iter_vars.size(); ++k) {
          if (!w->iter_vars[k].is_reduce()) continue;
          for (const Var& v : outer)
            if (uses_var(rz->iter_values[k], v))
              return schedule_error<DependentLoopError>(P, "block " + q(w->name) + " still reduces over loop " +
                                                               q(v.name()) + " when an iteration of loop " + lname +
                                                               " ends");
        }
      }
    }

    const int lo = std::min(ib_, il), hi = std::max(ib_, il);
    for (int i = lo + 1; i < hi; ++i)
      if (touched_between(link, i))
        return schedule_error<DependentLoopError>(
            P, "a statement between block " + bname_ + " and loop " + lname + " uses buffer " + q(buf.name()));
    // The statements between then run on the other side of the block: none
    // may write what it reads, or touch what it writes (attention = pv / sum
    // moved under pv's nest would read sum before the nest after computes it).
    for (int i = lo + 1; i < hi; ++i)
      if (const std::string& other = conflict_between(i); !other.empty())
        return schedule_error<DependentLoopError>(P, "a statement between block " + bname_ + " and loop " + lname +
                                                         " writes or reads buffer " + q(other) + ", which block " +
                                                         bname_ + " uses");

    // A check alone asks the shared walk whether the part of the buffer
    // the loop body needs in one iteration has a constant size; where it
    // cannot tell, and for a move, the region is found for this loop.
    const std::vector<IterVar> relaxed = shared_thread_loops(buf, lp);
    std::optional<std::vector<int64_t>> quick;
    if (!plan && relaxed.empty()) {
      if (!link.regions) link.regions.emplace(encl_->body, buf, /*writes=*/reverse_);
      quick = link.regions->constant_extents(loop);
    }
    std::optional<BufferRegion> need;
    if (!quick) {
      const Stmt body = covers_ ? unclamp(loop->body) : loop->body;
      const auto [loop_reads, loop_writes] = detect_access_regions(body, relaxed, &buf);
      for (const BufferRegion& t : reverse_ ? loop_writes : loop_reads)
        if (!need && t.buffer().same_as(buf)) need = t;
      if (!need)
        return schedule_error<NotFoundError>(P, std::string("nothing under loop ") + lname +
                                                    (reverse_ ? " writes" : " reads") + " buffer " + q(buf.name()));
    }

    // Each dimension of the buffer, as the block indexes it, must be one axis.
    arith::Analyzer ana;
    if (!quick) bind_loops(ana, lp);
    std::vector<bool> taken(b_->iter_vars.size());
    if (plan) plan->axis_range.assign(b_->iter_vars.size(), std::nullopt);
    for (size_t d = 0; d < (*own)->region.size(); ++d) {
      const Range& r = (*own)->region[d];
      if (!is_one(r->extent))
        return schedule_error<LoopShapeError>(
            P, "block " + bname_ + " touches more than one element of " + q(buf.name()) + " per iteration");
      size_t k = 0;
      while (k < b_->iter_vars.size() && !r->min.same_as(b_->iter_vars[k].var())) ++k;
      if (k == b_->iter_vars.size()) {
        if (as_const_int(r->min)) continue;
        return schedule_error<LoopShapeError>(P, "block " + bname_ + " indexes dimension " + std::to_string(d) +
                                                     " of " + q(buf.name()) + " with an expression, not one of its axes");
      }
      if (taken[k])
        return schedule_error<LoopShapeError>(
            P, "block " + bname_ + " indexes two dimensions of " + q(buf.name()) + " with one axis");
      taken[k] = true;
      if (quick) continue;  // every extent is constant
      const Range& want = (*need)->region[d];
      Expr ext = ana.simplify(want->extent);
      if (!as_const_int(ext))
        return schedule_error<LoopShapeError>(P, "the part of " + q(buf.name()) + " needed per iteration of loop " +
                                                     lname + " has no constant size in dimension " + std::to_string(d));
      if (plan) plan->axis_range[k] = Range(ana.simplify(want->min), ext);
    }
    if (plan) {
      plan->encl_stmt = encl_stmt_;
      plan->top = top_;
    }
    return nullptr;
  }

 private:
  // What the checks know of one linking buffer.
  struct Linked {
    Buffer buf;
    int elsewhere = 0;  // accessors of the buffer in the enclosing block, outside the moved block's nest
    std::optional<NestRegions> regions;  // made when a check alone first asks
    std::vector<std::optional<bool>> touched;  // per statement of the enclosing block: touches the buffer
  };

  Linked& linked(const Buffer& buf) {
    for (Linked& l : linked_)
      if (l.buf.same_as(buf)) return l;
    const int elsewhere = count_accessors(encl_->body, buf, reverse_) - count_accessors(top_, buf, reverse_);
    linked_.push_back(Linked{buf, elsewhere, std::nullopt, {}});
    linked_.back().touched.resize(list_.size());
    return linked_.back();
  }

  bool touched_between(Linked& link, int i) {
    std::optional<bool>& t = link.touched[static_cast<size_t>(i)];
    if (!t) t = touches(list_[static_cast<size_t>(i)], link.buf, true, true);
    return *t;
  }

  // The first buffer by which statement i of the enclosing block depends on
  // the moved block, as their blocks declare it: one it writes that the
  // block reads, or one it reads or writes that the block writes; empty when
  // none.
  const std::string& conflict_between(int i) {
    if (conflicts_.empty()) conflicts_.resize(list_.size());
    std::optional<std::string>& c = conflicts_[static_cast<size_t>(i)];
    if (c) return *c;
    const Stmt& s = list_[static_cast<size_t>(i)];
    auto writes = [&](const Buffer& buf) { return !block_accessing(s, buf, /*writes=*/true).empty(); };
    auto reads = [&](const Buffer& buf) { return !block_accessing(s, buf, /*writes=*/false).empty(); };
    c.emplace();
    for (const BufferRegion& r : b_->reads)
      if (c->empty() && writes(r.buffer())) *c = r.buffer().name();
    for (const BufferRegion& w : b_->writes)
      if (c->empty() && (writes(w.buffer()) || reads(w.buffer()))) *c = w.buffer().name();
    return *c;
  }

  int index_of(const Stmt& s, const std::vector<Stmt>& path) const {
    for (size_t i = 0; i < list_.size(); ++i) {
      if (list_[i].same_as(s)) return static_cast<int>(i);
      for (const Stmt& a : path)
        if (list_[i].same_as(a)) return static_cast<int>(i);
    }
    return -1;
  }

  const bool reverse_;
  const char* const P;
  const BlockNode* b_;
  std::string bname_;
  Stmt encl_stmt_;
  const BlockNode* encl_ = nullptr;
  Stmt top_;
  bool shares_loops_ = false;  // the moved block's nest holds other statements
  bool covers_ = false;        // kCoverRegionAnn: a part of varying size as its largest box
  std::vector<Stmt> list_;
  int ib_ = -1;
  std::deque<Linked> linked_;  // a deque: references to its elements stay valid
  std::vector<std::optional<std::string>> conflicts_;  // per statement of the enclosing block
};

MoveChecker::MoveChecker(const Located& block, bool reverse) : impl_(std::make_unique<Impl>(block, reverse)) {}
MoveChecker::~MoveChecker() = default;
ScheduleErrorPtr MoveChecker::error_at(const Located& loop) { return impl_->check(loop, nullptr); }

namespace {

// The function with the block moved as `plan` says.
PrimFunc build_move(const PrimFunc& f, const Located& blk, const Located& lp, bool reverse, const MovePlan& plan) {
  const BlockNode* b = block_of(blk.stmt);
  const auto* loop = lp.stmt.as<ForNode>();
  arith::Analyzer ana;
  bind_loops(ana, lp);

  // The new nest: one loop per axis, over the needed part or the whole domain.
  std::vector<Var> loops;
  std::vector<Expr> extents, values;
  Expr pred;
  for (size_t k = 0; k < b->iter_vars.size(); ++k) {
    const IterVar& iv = b->iter_vars[k];
    const std::optional<Range>& part = plan.axis_range[k];
    DataType t = iv.var().dtype();
    loops.emplace_back("ax" + std::to_string(k), t);
    Range r = part ? *part : iv.dom();
    extents.push_back(r->extent);
    Expr value = ana.simplify(add(r->min, loops.back()));
    values.push_back(value);
    if (part) {
      ana.bind(loops.back(), Range(int_imm(t, 0), r->extent));
      Expr end = add(iv.dom()->min, iv.dom()->extent);
      for (Expr c : {ge(value, iv.dom()->min), lt(value, end)}) {
        if (ana.can_prove(c)) continue;
        pred = pred.defined() ? logical_and(pred, c) : c;
      }
    }
  }
  Stmt nest = block_realize(values, pred, blk.stmt.as<BlockRealizeNode>()->block);
  for (size_t k = loops.size(); k-- > 0;)
    nest = for_loop(loops[k], int_imm(loops[k].dtype(), 0), extents[k], ForKind::kSerial, nest);

  const BlockNode* encl = plan.encl_stmt.as<BlockNode>();
  Stmt new_loop = with_loop_body(lp.stmt, reverse ? seq({loop->body, nest}) : seq({nest, loop->body}));
  Stmt body = replace_stmt(encl->body, plan.top, no_op());
  body = replace_stmt(body, lp.stmt, new_loop);
  Stmt new_encl = block_with_body(plan.encl_stmt, seq(stmts_of(body)), encl->alloc_buffers);
  return f.with_body(replace_stmt(f.body(), plan.encl_stmt, new_encl));
}

PrimFunc move_block(const PrimFunc& f, const Located& blk, const Located& lp, bool reverse) {
  MovePlan plan;
  if (ScheduleErrorPtr err = MoveChecker::Impl(blk, reverse).check(lp, &plan)) err->raise();
  return build_move(f, blk, lp, reverse, plan);
}

}  // namespace

ScheduleErrorPtr compute_at_error(const Located& block, const Located& loop, bool reverse) {
  return MoveChecker(block, reverse).error_at(loop);
}

// The location marks of sample_compute_location: root leaves the block where
// it is, inline inlines it. The call is recorded either way, so that a
// replay with another decision moves the block.
void Schedule::compute_at(BlockRV block, LoopRV loop) {
  const Located blk = block_location(block, "compute_at");
  const std::optional<LocationMark> mark = location_mark(loop);
  PrimFunc r = func_;  // root: stays
  if (!mark)
    r = move_block(func_, blk, loop_location(loop, "compute_at"), false);
  else if (*mark == LocationMark::kInline)
    r = inline_into_consumers(func_, blk);
  update(r, "compute_at");
  record(inst::compute_at, {block.rv(), loop.rv()}, NoAttrs{}, {});
}

void Schedule::reverse_compute_at(BlockRV block, LoopRV loop) {
  const Located blk = block_location(block, "reverse_compute_at");
  const std::optional<LocationMark> mark = location_mark(loop);
  PrimFunc r = func_;  // root: stays
  if (!mark)
    r = move_block(func_, blk, loop_location(loop, "reverse_compute_at"), true);
  else if (*mark == LocationMark::kInline)
    r = inline_into_producer(func_, blk);
  update(r, "reverse_compute_at");
  record(inst::reverse_compute_at, {block.rv(), loop.rv()}, NoAttrs{}, {});
}

namespace inst {
namespace {
template <void (Schedule::*Method)(BlockRV, LoopRV)>
std::vector<RV> apply_move(Schedule& sch, const std::vector<InstInput>& in, const InstAttrs&,
                           const Decision&) {
  replay::expect_inputs(in, 2);
  (sch.*Method)(replay::block(in, 0), replay::loop(in, 1));
  return {};
}
}  // namespace
const InstructionKind compute_at{"compute_at", false, apply_move<&Schedule::compute_at>};
const InstructionKind reverse_compute_at{"reverse_compute_at", false, apply_move<&Schedule::reverse_compute_at>};
}  // namespace inst
}  // namespace kiln
