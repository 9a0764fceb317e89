#include "tir/buffer_rewrite.h"

#include "tir/analysis/access_region.h"
#include "tir/functor.h"

namespace kiln {
namespace {

class BufferRewriter : public StmtMutator {
 public:
  explicit BufferRewriter(const BufferRewrite& r) : r_(r) {}
  using StmtMutator::mutate;

  Expr visit_BufferLoad(const BufferLoadNode* op, const Expr& e) override {
    Expr res = StmtMutator::visit_BufferLoad(op, e);
    const auto* n = res.as<BufferLoadNode>();
    return n->buffer.same_as(r_.from) ? buffer_load(r_.to, indices(n->indices)) : res;
  }
  Stmt visit_BufferStore(const BufferStoreNode* op, const Stmt& s) override {
    Stmt res = StmtMutator::visit_BufferStore(op, s);
    const auto* n = res.as<BufferStoreNode>();
    return n->buffer.same_as(r_.from) ? buffer_store(r_.to, n->value, indices(n->indices)) : res;
  }
  // Regions whose indices stay are renamed here; visit_Block recomputes the
  // others.
  ObjectRef mutate_other(const ObjectRef& o) override {
    ObjectRef res = StmtMutator::mutate_other(o);
    if (const auto* br = res.as<BufferRegionNode>(); br && br->buffer.same_as(r_.from) && !r_.indices)
      return BufferRegion(r_.to, br->region);
    return res;
  }
  Stmt visit_Block(const BlockNode* op, const Stmt& s) override {
    Stmt res = StmtMutator::visit_Block(op, s);
    const auto* b = res.as<BlockNode>();
    const bool owns = r_.allocations && mentions(b->alloc_buffers);
    const bool stale = r_.indices && (mentions(b->reads) || mentions(b->writes));
    if (!owns && !stale) return res;
    BlockFields f{b->name, b->iter_vars, b->reads, b->writes, b->init, b->body, b->alloc_buffers, b->annotations};
    if (owns)
      for (Buffer& a : f.alloc_buffers)
        if (a.same_as(r_.from)) a = r_.to;
    if (stale) std::tie(f.reads, f.writes) = block_access_regions(block(f));
    return block(std::move(f));
  }

 private:
  std::vector<Expr> indices(const std::vector<Expr>& idx) const { return r_.indices ? r_.indices(idx) : idx; }
  bool mentions(const std::vector<Buffer>& bufs) const {
    for (const Buffer& b : bufs)
      if (b.same_as(r_.from)) return true;
    return false;
  }
  bool mentions(const std::vector<BufferRegion>& regions) const {
    for (const BufferRegion& x : regions)
      if (x.buffer().same_as(r_.from)) return true;
    return false;
  }

  const BufferRewrite& r_;
};

}  // namespace

Stmt rewrite_buffer(const Stmt& s, const BufferRewrite& r) { return BufferRewriter(r).mutate(s); }

}  // namespace kiln
