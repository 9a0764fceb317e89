#include "tir/transform/split_prepack.h"

#include <algorithm>
#include <optional>

#include "tir/analysis/access_region.h"
#include "tir/functor.h"

namespace kiln {
namespace {

// The blocks of `nest` (not counting those nested in them twice).
std::vector<const BlockNode*> blocks_in(const Stmt& nest) {
  std::vector<const BlockNode*> out;
  post_order_visit(nest, [&](const Stmt& s) {
    if (const auto* b = s.as<BlockNode>()) out.push_back(b);
  });
  return out;
}

bool accesses(const Stmt& s, const Buffer& buf) {
  auto [reads, writes] = detect_access_regions(s, {}, &buf);
  return !reads.empty() || !writes.empty();
}

// The parameter `nest` packs, when it is a pack of one of `constants`
// whose packed buffer the root allocates.
std::optional<size_t> packed_param(const PrimFunc& f, const Stmt& nest, const std::vector<size_t>& constants,
                                   const std::vector<Buffer>& allocs) {
  const std::vector<const BlockNode*> blocks = blocks_in(nest);
  if (blocks.size() != 1) return std::nullopt;
  const BlockNode* b = blocks[0];
  auto ann = b->annotations.find(kPrepackAnn);
  if (ann == b->annotations.end()) return std::nullopt;
  const int64_t* p = as_const_int(ann->second);
  if (!p || *p < 0 || static_cast<size_t>(*p) >= f.params().size()) return std::nullopt;
  const auto param = static_cast<size_t>(*p);
  if (std::find(constants.begin(), constants.end(), param) == constants.end()) return std::nullopt;
  if (b->reads.size() != 1 || b->writes.size() != 1 || !b->reads[0].buffer().same_as(f.params()[param]))
    return std::nullopt;
  const Buffer& packed = b->writes[0].buffer();
  if (std::none_of(allocs.begin(), allocs.end(), [&](const Buffer& a) { return a.same_as(packed); }))
    return std::nullopt;
  return param;
}

Stmt root_with(const BlockNode* root, const Expr& predicate, Stmt body, std::vector<Buffer> allocs) {
  BlockFields fields{root->name, {}, root->reads, root->writes, Stmt(), std::move(body), std::move(allocs),
                     root->annotations};
  return block_realize({}, predicate, block(std::move(fields)));
}

}  // namespace

SplitPrepack split_prepack(const PrimFunc& f, const std::vector<size_t>& constants) {
  SplitPrepack out{f, {}};
  const auto* realize = f.body().as<BlockRealizeNode>();
  if (!realize || constants.empty()) return out;
  const auto* root = realize->block.as<BlockNode>();
  std::vector<Stmt> nests;
  if (const auto* s = root->body.as<SeqStmtNode>())
    nests = s->seq;
  else
    nests = {root->body};

  std::vector<Buffer> params = f.params(), allocs = root->alloc_buffers;
  std::vector<Stmt> kept;
  for (size_t n = 0; n < nests.size(); ++n) {
    std::optional<size_t> p = packed_param(f, nests[n], constants, allocs);
    // Nothing else may read the parameter: main no longer has it.
    for (size_t m = 0; p && m < nests.size(); ++m)
      if (m != n && accesses(nests[m], f.params()[*p])) p.reset();
    if (!p) {
      kept.push_back(nests[n]);
      continue;
    }
    const Buffer packed = blocks_in(nests[n])[0]->writes[0].buffer();
    const Buffer& param = f.params()[*p];
    out.packs.push_back({*p, PrimFunc(f.name() + "_prepack_" + param.name(), {param, packed},
                                      root_with(root, realize->predicate, nests[n], {}))});
    params[*p] = packed;
    allocs.erase(std::find_if(allocs.begin(), allocs.end(), [&](const Buffer& a) { return a.same_as(packed); }));
  }
  if (out.packs.empty() || kept.empty()) return SplitPrepack{f, {}};
  std::sort(out.packs.begin(), out.packs.end(), [](const Prepack& a, const Prepack& b) { return a.param < b.param; });
  Stmt body = kept.size() == 1 ? kept[0] : seq(kept);
  out.main = PrimFunc(f.name(), params, root_with(root, realize->predicate, body, allocs), f->attrs);
  return out;
}

}  // namespace kiln
