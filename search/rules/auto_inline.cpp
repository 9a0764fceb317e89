#include "search/block_info.h"
#include "search/rules/rules.h"
#include "tir/functor.h"
#include "tir/schedule/attempt.h"

namespace kiln::search {

namespace {

// Whether `consumer` reads `producer`'s output only at its own iter vars,
// in order (an elementwise epilogue: bias, activation, a residual add).
bool reads_at_own_indices(const PrimFunc& f, const std::string& consumer, const std::string& producer) {
  const BlockNode* c = block_info(f, consumer).block;
  const Buffer out = block_info(f, producer).block->writes.at(0).buffer();
  bool ok = true;
  visit_exprs(c->body, [&](const Expr& e) {
    const auto* load = e.as<BufferLoadNode>();
    if (!load || !load->buffer.same_as(out)) return;
    if (load->indices.size() != c->iter_vars.size()) {
      ok = false;
      return;
    }
    for (size_t i = 0; i < load->indices.size(); ++i) {
      const auto* v = load->indices[i].as<VarNode>();
      ok = ok && v == c->iter_vars[i].var().operator->();
    }
  });
  return ok;
}

// A block that picks rows of a constant matrix by its iter vars' positions
// (kUnrollAxesAnn) hands that annotation to the consumers it is inlined
// into, where they read it elementwise (their iter vars are its own):
// Winograd's output transform into the epilogue of a model's convolution.
void hand_over_unroll_rows(Schedule& sch, const std::string& name, const std::vector<std::string>& users) {
  const BlockNode* b = block_info(sch.func(), name).block;
  auto axes = b->annotations.find(kUnrollAxesAnn), period = b->annotations.find(kUnrollPeriodAnn);
  if (axes == b->annotations.end() || period == b->annotations.end()) return;
  const int64_t* mask = as_const_int(axes->second);
  const int64_t* p = as_const_int(period->second);
  if (!mask || !p) return;
  for (const std::string& u : users)
    if (!reads_at_own_indices(sch.func(), u, name)) return;
  for (const std::string& u : users) {
    if (block_info(sch.func(), u).block->annotations.count(kUnrollAxesAnn)) continue;
    const BlockRV c = sch.get_block(u);
    sch.annotate(c, kUnrollAxesAnn, AnnValue(*mask));
    sch.annotate(c, kUnrollPeriodAnn, AnnValue(*p));
  }
}

// Inlines every injective block that is not an output, those that feed a
// tiled block too when `into_tiled`.
void inline_injective(Schedule& sch, bool into_tiled) {
  for (const std::string& name : blocks_in_order(sch.func())) {
    BlockInfo info = block_info(sch.func(), name);
    if (!info.is_injective || info.writes_param) continue;
    std::vector<std::string> users = consumers(sch.func(), name);
    if (users.empty()) continue;
    bool feeds_tiled = false;
    for (const std::string& u : users) {
      BlockInfo c = block_info(sch.func(), u);
      feeds_tiled = feeds_tiled || (c.has_reduce && c.has_data_reuse);
    }
    if (feeds_tiled && !into_tiled) continue;
    // Not inlinable here (e.g. a predicate): it stays a block of its own.
    const BlockRV b = sch.get_block(name);
    apply_if_possible(sch, [&](Schedule& s) {
      hand_over_unroll_rows(s, name, users);
      s.compute_inline(b);
    });
  }
}

}  // namespace

void auto_inline(Schedule& sch) { inline_injective(sch, false); }

void inline_producers_of_tiled(Schedule& sch) { inline_injective(sch, true); }

}  // namespace kiln::search
