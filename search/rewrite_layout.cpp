#include "search/rewrite_layout.h"

#include <algorithm>
#include <optional>
#include <sstream>
#include <vector>

#include "core/arith/linear.h"
#include "search/block_info.h"
#include "search/rules/rules.h"
#include "tir/schedule/block_util.h"
#include "tir/schedule/locate.h"
#include "tir/transform/split_prepack.h"

namespace kiln::search {
namespace {

// One digit of the new layout: the piece of dimension `dim` that the loop
// at `depth` (of the consumer's loops, outermost 0) walks, in steps of
// `stride`, `extent` times.
struct Digit {
  size_t depth;
  size_t dim;
  int64_t stride, extent;
};

// The nest of the block at `loc` holds it alone, directly in the root block.
bool alone_at_root(const PrimFunc& f, const Located& loc) {
  const BlockNode* encl = enclosing_block(loc);
  return encl && encl->name == root_block(f) && child_block_realizes(top_of_nest(loc)).size() == 1;
}

// The digits in which the consumer at `loc` reads `buf`, or nullopt when it
// does not read it at one iter var per dimension, each bound to a mixed
// radix of its loops that covers the dimension exactly.
std::optional<std::vector<Digit>> digits(const Located& loc, const Buffer& buf) {
  const auto* realize = loc.stmt.as<BlockRealizeNode>();
  const BlockNode* b = block_of(loc.stmt);
  const std::vector<Stmt> loops = enclosing_loops(loc);
  const BufferRegion* read = nullptr;
  for (const BufferRegion& r : b->reads)
    if (r.buffer().same_as(buf)) read = &r;
  if (!read) return std::nullopt;
  std::vector<Digit> out;
  for (size_t d = 0; d < (*read)->region.size(); ++d) {
    const Range& rg = (*read)->region[d];
    const int64_t* one = as_const_int(rg->extent);
    const int64_t* dim_extent = as_const_int(buf.shape()[d]);
    if (!one || *one != 1 || !dim_extent) return std::nullopt;
    size_t iv = b->iter_vars.size();
    for (size_t i = 0; i < b->iter_vars.size(); ++i)
      if (rg->min.same_as(b->iter_vars[i].var())) iv = i;
    if (iv == b->iter_vars.size()) return std::nullopt;
    std::optional<arith::LinearForm> form = arith::linear_form(realize->iter_values[iv]);
    if (!form || form->constant != 0) return std::nullopt;
    std::vector<Digit> dim_digits;
    for (const auto& [term, coeff] : form->terms) {
      size_t depth = loops.size();
      for (size_t l = 0; l < loops.size(); ++l)
        if (term.same_as(loops[l].as<ForNode>()->loop_var)) depth = l;
      if (depth == loops.size() || coeff <= 0) return std::nullopt;
      const auto* f = loops[depth].as<ForNode>();
      const int64_t* min = as_const_int(f->min);
      const int64_t* extent = as_const_int(f->extent);
      if (!min || *min != 0 || !extent) return std::nullopt;
      dim_digits.push_back({depth, d, coeff, *extent});
    }
    std::sort(dim_digits.begin(), dim_digits.end(), [](const Digit& x, const Digit& y) { return x.stride < y.stride; });
    int64_t covered = 1;
    for (const Digit& g : dim_digits) {
      if (g.stride != covered) return std::nullopt;
      covered *= g.extent;
    }
    if (covered != *dim_extent) return std::nullopt;
    for (const Digit& g : dim_digits)
      if (g.extent > 1) out.push_back(g);
  }
  std::stable_sort(out.begin(), out.end(), [](const Digit& x, const Digit& y) { return x.depth < y.depth; });
  return out;
}

// "lambda a0, a1: (a1 // 64, a0, a1 % 64)": the digits in loop order;
// nullopt when that is the layout the buffer has (one whole digit per
// dimension, in order).
std::optional<std::string> index_map(const Buffer& buf, const std::vector<Digit>& ds) {
  bool same = ds.size() == buf.shape().size();
  for (size_t i = 0; same && i < ds.size(); ++i) same = ds[i].dim == i && ds[i].stride == 1;
  if (same) return std::nullopt;
  std::ostringstream os;
  os << "lambda ";
  for (size_t d = 0; d < buf.shape().size(); ++d) os << (d ? ", " : "") << "a" << d;
  os << ": (";
  for (size_t i = 0; i < ds.size(); ++i) {
    const Digit& g = ds[i];
    const int64_t whole = *as_const_int(buf.shape()[g.dim]);
    std::string e = "a" + std::to_string(g.dim);
    if (g.stride > 1) e = "(" + e + " // " + std::to_string(g.stride) + ")";
    if (g.stride * g.extent < whole) e += " % " + std::to_string(g.extent);
    os << (i ? ", " : "") << e;
  }
  os << (ds.size() == 1 ? ",)" : ")");
  return os.str();
}

}  // namespace

void rewrite_layouts(Schedule& sch) {
  for (const std::string& name : blocks_in_order(sch.func())) {
    const PrimFunc& f = sch.func();
    const BlockInfo info = block_info(f, name);
    // One value moved from one place to another, in whatever layout.
    const auto* st = info.block->body.defined() ? info.block->body.as<BufferStoreNode>() : nullptr;
    const bool moves = st && st->value.as<BufferLoadNode>() && !info.has_reduce && !info.block->init.defined();
    if (!moves || info.block->reads.size() != 1 || info.block->writes.size() != 1) continue;
    const Buffer src = info.block->reads[0].buffer(), dst = info.block->writes[0].buffer();
    const auto param = std::find_if(f.params().begin(), f.params().end(), [&](const Buffer& p) { return p.same_as(src); });
    if (param == f.params().end() || is_param(f, dst)) continue;
    std::optional<Located> loc = locate_block(f.body(), name);
    if (!loc || !alone_at_root(f, *loc)) continue;
    const std::vector<std::string> users = consumers(f, name);
    if (users.size() != 1) continue;
    const BlockInfo user = block_info(f, users[0]);
    if (user.block->annotations.find(kTiledAnn) == user.block->annotations.end()) continue;
    const auto index = static_cast<int64_t>(param - f.params().begin());
    // A copy into a tensor intrinsic's operand layout (rules.h) is laid
    // out already: only marked, so that a model packs it once.
    if (user.block->annotations.count(kTensorIntrinAnn)) {
      sch.annotate(sch.get_block(name), kPrepackAnn, AnnValue(index));
      continue;
    }
    if (!info.is_copy) continue;  // the digits below read a copy at its iter vars
    std::optional<Located> user_loc = locate_block(f.body(), users[0]);
    std::optional<std::vector<Digit>> ds = user_loc ? digits(*user_loc, dst) : std::nullopt;
    if (!ds) continue;
    std::optional<std::string> map = index_map(dst, *ds);
    if (!map) continue;
    BlockRV copy = sch.get_block(name);
    sch.transform_layout(copy, BufferRole::kWrite, 0, *map);
    sch.annotate(copy, kPrepackAnn, AnnValue(index));
  }
}

}  // namespace kiln::search
