#include "tir/transform/compact_buffers.h"

#include <optional>

#include "core/arith/analyzer.h"
#include "tir/analysis/access_region.h"
#include "tir/analysis/unclamp.h"
#include "tir/buffer_rewrite.h"
#include "tir/functor.h"
#include "tir/replace_stmt.h"
#include "tir/thread_axes.h"

namespace kiln {
namespace {

bool accesses(const Stmt& s, const Buffer& buf) {
  bool found = false;
  post_order_visit(s, [&](const Stmt& x) {
    if (const auto* st = x.as<BufferStoreNode>(); st && st->buffer.same_as(buf)) found = true;
  });
  if (found) return true;
  visit_exprs(s, [&](const Expr& e) {
    if (const auto* ld = e.as<BufferLoadNode>(); ld && ld->buffer.same_as(buf)) found = true;
  });
  return found;
}

// The indices of an access minus the region's start `offset`.
std::vector<Expr> shift(const std::vector<Expr>& idx, const std::vector<Expr>& offset) {
  std::vector<Expr> out;
  for (size_t d = 0; d < idx.size(); ++d) {
    Expr o = offset[d];
    if (idx[d].dtype().lanes() > 1) o = broadcast(o, idx[d].dtype().lanes());
    out.push_back(is_zero(offset[d]) ? idx[d] : sub(idx[d], o));
  }
  return out;
}

// The hull of the regions of `buf` that `s` reads and writes, the loops
// in `sharing` relaxed (empty where `s` does not access `buf`).
std::vector<Range> accessed_region(const Stmt& s, const std::vector<IterVar>& sharing, const Buffer& buf) {
  auto [reads, writes] = detect_access_regions(s, sharing, &buf);
  std::vector<Range> region;
  for (const auto* list : {&reads, &writes})
    for (const BufferRegion& r : *list)
      if (r.buffer().same_as(buf)) {
        if (region.empty()) {
          region = r->region;
          continue;
        }
        for (size_t d = 0; d < region.size(); ++d) {
          Expr lo = min(region[d]->min, r->region[d]->min);
          Expr hi = max(add(region[d]->min, region[d]->extent), add(r->region[d]->min, r->region[d]->extent));
          region[d] = Range(lo, sub(hi, lo));
        }
      }
  return region;
}

class Compactor : public StmtMutator {
 public:
  using StmtMutator::mutate;

  Stmt visit_For(const ForNode* op, const Stmt& s) override {
    ana_.bind(op->loop_var, Range(op->min, op->extent));
    Stmt r = StmtMutator::visit_For(op, s);
    ana_.unbind(op->loop_var);
    return r;
  }

  Stmt visit_Allocate(const AllocateNode* op, const Stmt& s) override {
    Stmt body = mutate(op->body);
    const Buffer& buf = op->buffer;
    // Sink: descend while one child holds every access.
    std::vector<Stmt> path{body};
    while (true) {
      const Stmt& cur = path.back();
      Stmt next;
      if (const auto* f = cur.as<ForNode>()) {
        next = f->body;
      } else if (const auto* sq = cur.as<SeqStmtNode>()) {
        int holders = 0;
        for (const Stmt& c : sq->seq)
          if (accesses(c, buf)) {
            ++holders;
            next = c;
          }
        if (holders != 1) break;
      } else if (const auto* a = cur.as<AllocateNode>()) {
        next = a->body;
      } else if (const auto* l = cur.as<LetStmtNode>()) {
        next = l->body;
      } else {
        break;
      }
      path.push_back(next);
    }
    const Stmt target = path.back();
    if (!accesses(target, buf)) return body;  // never used: drop the allocation

    // The loops between the allocation and its new place are fixed there,
    // but for the threads that share the buffer.
    std::vector<Var> bound;
    std::vector<IterVar> sharing;
    for (size_t i = 0; i + 1 < path.size(); ++i)
      if (const auto* f = path[i].as<ForNode>()) {
        if (shared_across(buf, *f)) {
          sharing.emplace_back(f->loop_var, Range(f->min, f->extent), IterType::kSpatial);
          continue;
        }
        ana_.bind(f->loop_var, Range(f->min, f->extent));
        bound.push_back(f->loop_var);
      }
    Buffer compact = buf;
    std::vector<Expr> offset(buf.ndim(), int_imm(DataType::Int(32), 0));
    std::vector<Range> region = accessed_region(target, sharing, buf);
    // Where a dimension's part has no constant size (a padded window's
    // clamped rows: tir/analysis/unclamp.h), the box the unclamped reads
    // make, which holds them.
    std::optional<std::vector<Range>> box;
    for (size_t d = 0; d < region.size(); ++d) {
      if (as_const_int(ana_.simplify(region[d]->extent))) continue;
      if (!box) box = accessed_region(unclamp(target), sharing, buf);
      if (d < box->size() && as_const_int(ana_.simplify((*box)[d]->extent))) region[d] = (*box)[d];
    }
    if (!region.empty()) {
      std::vector<Expr> shape = buf.shape();
      bool changed = false;
      for (size_t d = 0; d < region.size(); ++d) {
        Expr ext = ana_.simplify(region[d]->extent);
        const int64_t* e = as_const_int(ext);
        const int64_t* full = as_const_int(buf.shape()[d]);
        if (!e || !full || *e >= *full || *e <= 0) continue;
        Expr lo = ana_.simplify(region[d]->min);
        shape[d] = int_imm(buf.shape()[d].dtype(), *e);
        offset[d] = lo;
        changed = true;
      }
      if (changed) compact = buf.with_shape(shape);
    }
    for (const Var& v : bound) ana_.unbind(v);

    Stmt placed = compact.same_as(buf) ? target
                                       : rewrite_buffer(target, {buf, compact, [&](const std::vector<Expr>& idx) {
                                                                   return shift(idx, offset);
                                                                 }});
    placed = allocate(compact, placed);
    if (path.size() == 1) return placed;
    return replace_stmt(body, target, placed);
  }

 private:
  arith::Analyzer ana_;
};

}  // namespace

PrimFunc compact_buffers(const PrimFunc& f) { return f.with_body(Compactor().mutate(f.body())); }

}  // namespace kiln
