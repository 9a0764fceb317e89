#include "search/block_info.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "core/arith/linear.h"
#include "core/error.h"
#include "core/functor.h"
#include "tir/schedule/locate.h"

namespace kiln::search {
namespace {

struct Found {
  const BlockRealizeNode* realize;
  const BlockNode* block;
  bool outermost;  // nothing encloses it: the root block
};

Found find(const PrimFunc& f, const std::string& name) {
  std::optional<Located> loc = locate_block(f.body(), name);
  if (!loc) KILN_USER_ERROR() << "no block '" << name << "' in " << f.name();
  return {loc->stmt.as<BlockRealizeNode>(), block_of(loc->stmt), loc->ancestors.empty()};
}

bool is_param_buffer(const PrimFunc& f, const Buffer& b) {
  for (const Buffer& p : f.params())
    if (p.same_as(b)) return true;
  return false;
}

std::unordered_set<const VarNode*> spatial_vars(const BlockNode* b) {
  std::unordered_set<const VarNode*> out;
  for (const IterVar& iv : b->iter_vars)
    if (!iv.is_reduce()) out.insert(iv.var().operator->());
  return out;
}

// The variables a read or write region's indices use.
std::unordered_set<const VarNode*> vars_of_region(const BufferRegion& r) {
  std::unordered_set<const VarNode*> used;
  for (const Range& rg : r->region)
    for (const VarNode* v : vars_in(rg->min)) used.insert(v);
  return used;
}

bool leaves_out_a_spatial_var(const BufferRegion& r, const std::unordered_set<const VarNode*>& spatial) {
  const std::unordered_set<const VarNode*> used = vars_of_region(r);
  for (const VarNode* v : spatial)
    if (!used.count(v)) return true;
  return false;
}

// The dimension of `r` indexed by `v` alone, or -1.
int dim_indexed_by(const BufferRegion& r, const VarNode* v) {
  for (size_t d = 0; d < r->region.size(); ++d) {
    std::unordered_set<const VarNode*> vars = vars_in(r->region[d]->min);
    if (vars.size() == 1 && vars.count(v)) return static_cast<int>(d);
  }
  return -1;
}

}  // namespace

std::unordered_set<const VarNode*> vars_in(const Expr& e) {
  std::unordered_set<const VarNode*> out;
  post_order_visit(e, [&](const Expr& x) {
    if (const auto* v = x.as<VarNode>()) out.insert(v);
  });
  return out;
}

std::optional<PackableRead> packable_read(const PrimFunc& f, const std::string& block, size_t iter_var) {
  const BlockNode* b = find(f, block).block;
  KILN_ICHECK(iter_var < b->iter_vars.size()) << "block " << block << " has no iter var " << iter_var;
  const VarNode* v = b->iter_vars[iter_var].var().operator->();
  const std::unordered_set<const VarNode*> spatial = spatial_vars(b);
  for (size_t i = 0; i < b->reads.size(); ++i) {
    const BufferRegion& r = b->reads[i];
    if (!is_param_buffer(f, r.buffer()) || !leaves_out_a_spatial_var(r, spatial)) continue;
    if (int d = dim_indexed_by(r, v); d >= 0) return PackableRead{static_cast<int>(i), d};
  }
  return std::nullopt;
}

std::vector<bool> read_uses(const PrimFunc& f, const std::string& block, size_t read) {
  const BlockNode* b = find(f, block).block;
  KILN_ICHECK(read < b->reads.size()) << "block " << block << " has no read " << read;
  const std::unordered_set<const VarNode*> used = vars_of_region(b->reads[read]);
  std::vector<bool> out;
  for (const IterVar& iv : b->iter_vars) out.push_back(used.count(iv.var().operator->()) > 0);
  return out;
}

int written_dim(const PrimFunc& f, const std::string& block, size_t iter_var) {
  const BlockNode* b = find(f, block).block;
  if (b->writes.empty() || iter_var >= b->iter_vars.size()) return -1;
  return dim_indexed_by(b->writes[0], b->iter_vars[iter_var].var().operator->());
}

std::optional<int64_t> write_stride(const PrimFunc& f, const std::string& block, const Var& loop) {
  Found x = find(f, block);
  if (x.block->writes.empty() || !x.realize) return std::nullopt;
  // The loop's step in each iter var, then in each index of the write.
  std::unordered_map<const VarNode*, int64_t> step;
  for (size_t i = 0; i < x.realize->iter_values.size(); ++i) {
    std::optional<int64_t> c = arith::coefficient_of(x.realize->iter_values[i], loop.operator->());
    if (!c) return std::nullopt;
    if (*c != 0) step[x.block->iter_vars[i].var().operator->()] = *c;
  }
  const BufferRegion& w = x.block->writes[0];
  int64_t stride = 0, dense = 1;
  for (size_t d = w->region.size(); d-- > 0;) {
    int64_t moved = 0;
    for (const auto& [iv, c] : step) {
      std::optional<int64_t> k = arith::coefficient_of(w->region[d]->min, iv);
      if (!k) return std::nullopt;
      moved += *k * c;
    }
    stride += moved * dense;
    const int64_t* extent = as_const_int(w.buffer().shape()[d]);
    if (!extent) return std::nullopt;
    dense *= *extent;
  }
  return stride;
}

BlockInfo block_info(const PrimFunc& f, const std::string& name) {
  Found x = find(f, name);
  BlockInfo info;
  info.name = name;
  info.block = x.block;
  info.is_root = x.outermost;
  const std::unordered_set<const VarNode*> spatial = spatial_vars(x.block);
  info.has_spatial = !spatial.empty();
  info.has_reduce = spatial.size() < x.block->iter_vars.size();
  for (const BufferRegion& w : x.block->writes) info.writes_param = info.writes_param || is_param_buffer(f, w.buffer());
  // A keepdims reduction (a softmax's row maximum, [.., 1]) counts too: its
  // reads leave out the unit axis, and tiled, it is vectorized across its
  // rows, the one vector it gets when no vector divides its row (ViT's
  // 197 tokens: its attention ran 2.5x slower when these were reductions
  // of their own, each row's sum scalar).
  for (const BufferRegion& r : x.block->reads)
    if (leaves_out_a_spatial_var(r, spatial)) info.has_data_reuse = true;
  // Injective: spatial only, one store whose indices are the iter vars.
  if (!info.has_reduce && !info.is_root && x.block->body.defined() && !x.block->init.defined()) {
    if (const auto* st = x.block->body.as<BufferStoreNode>()) {
      bool direct = st->indices.size() == x.block->iter_vars.size();
      for (size_t i = 0; direct && i < st->indices.size(); ++i)
        direct = st->indices[i].same_as(x.block->iter_vars[i].var());
      info.is_injective = direct;
      std::unordered_set<const Object*> indices;
      for (const Expr& e : st->indices)
        if (e.as<VarNode>()) indices.insert(e.get());
      bool permuted = !direct && indices.size() == x.block->iter_vars.size() &&
                      st->indices.size() == x.block->iter_vars.size();
      for (const IterVar& iv : x.block->iter_vars) permuted = permuted && indices.count(iv.var().get()) > 0;
      const bool loads = st->value.as<BufferLoadNode>() != nullptr;
      info.is_permuted_copy = permuted && loads;
      info.is_copy = (direct || permuted) && loads;
    }
  }
  return info;
}

std::vector<LoopRole> loop_roles(const PrimFunc& f, const std::string& block, const std::vector<Var>& loops) {
  Found x = find(f, block);
  // The variables of each binding, gathered once rather than once per loop.
  std::vector<std::unordered_set<const VarNode*>> bound;
  for (size_t i = 0; x.realize && i < x.realize->iter_values.size(); ++i)
    bound.push_back(vars_in(x.realize->iter_values[i]));
  std::vector<LoopRole> roles;
  for (const Var& l : loops) {
    bool spatial = false, reduce = false;
    for (size_t i = 0; i < bound.size(); ++i) {
      if (!bound[i].count(l.operator->())) continue;
      (x.block->iter_vars[i]->iter_type == IterType::kReduce ? reduce : spatial) = true;
    }
    roles.push_back(spatial && reduce ? LoopRole::kMixed
                    : spatial         ? LoopRole::kSpatial
                    : reduce          ? LoopRole::kReduce
                                      : LoopRole::kUnused);
  }
  return roles;
}

std::unordered_set<const VarNode*> vars_reading(const PrimFunc& f, const std::string& consumer,
                                               const std::string& producer) {
  const BlockNode* c = find(f, consumer).block;
  const BlockNode* p = find(f, producer).block;
  std::unordered_set<const VarNode*> out;
  for (const BufferRegion& r : c->reads) {
    if (p->writes.empty() || !r.buffer().same_as(p->writes[0].buffer())) continue;
    for (const Range& rg : r->region) {
      for (const VarNode* v : vars_in(rg->min)) out.insert(v);
      for (const VarNode* v : vars_in(rg->extent)) out.insert(v);
    }
  }
  return out;
}

std::vector<bool> read_changes_with_loops(const PrimFunc& f, const std::string& consumer,
                                          const std::string& producer) {
  Found c = find(f, consumer);
  const std::unordered_set<const VarNode*> read_vars = vars_reading(f, consumer, producer);
  // The loop variables the read iter vars are bound to.
  std::unordered_set<const VarNode*> driving;
  for (size_t i = 0; i < c.block->iter_vars.size(); ++i)
    if (read_vars.count(c.block->iter_vars[i].var().operator->()))
      for (const VarNode* v : vars_in(c.realize->iter_values[i])) driving.insert(v);
  std::vector<bool> out;
  for (const Stmt& loop : enclosing_loops(*locate_block(f.body(), consumer)))
    out.push_back(driving.count(loop.as<ForNode>()->loop_var.operator->()) > 0);
  return out;
}

std::vector<int> sliding_along(const PrimFunc& f, const std::string& block) {
  const BlockNode* b = find(f, block).block;
  std::unordered_map<const VarNode*, int> index;
  for (size_t i = 0; i < b->iter_vars.size(); ++i) index[b->iter_vars[i].var().operator->()] = static_cast<int>(i);
  std::vector<int> out(b->iter_vars.size(), -1);
  for (const BufferRegion& r : b->reads)
    for (const Range& rg : r->region) {
      int reduce = -1, spatial = -1, others = 0;
      for (const VarNode* v : vars_in(rg->min)) {
        auto it = index.find(v);
        if (it == index.end()) continue;
        int& slot = b->iter_vars[it->second].is_reduce() ? reduce : spatial;
        others += slot >= 0;
        slot = it->second;
      }
      if (reduce >= 0 && spatial >= 0 && others == 0 && out[reduce] < 0) out[reduce] = spatial;
    }
  return out;
}

double buffer_bytes(const Buffer& b) {
  double bytes = b.dtype().bytes();
  for (const Expr& d : b.shape()) {
    const int64_t* v = as_const_int(d);
    bytes *= v ? static_cast<double>(*v) : 0.0;
  }
  return bytes;
}

std::vector<double> bytes_read_along(const PrimFunc& f, const std::string& block) {
  const BlockNode* b = find(f, block).block;
  std::vector<double> out(b->iter_vars.size(), 0.0);
  std::vector<double> sizes;
  for (const BufferRegion& r : b->reads) sizes.push_back(buffer_bytes(r.buffer()));
  const double largest = sizes.empty() ? 0.0 : *std::max_element(sizes.begin(), sizes.end());
  for (size_t k = 0; k < b->reads.size(); ++k) {
    const BufferRegion& r = b->reads[k];
    const double bytes = sizes[k];
    if (bytes * 16 < largest) continue;
    const std::unordered_set<const VarNode*> used = vars_of_region(r);
    for (size_t i = 0; i < b->iter_vars.size(); ++i)
      if (used.count(b->iter_vars[i].var().operator->())) out[i] += bytes;
  }
  return out;
}

std::vector<int> bound_iter_vars(const PrimFunc& f, const std::string& block, const std::vector<Var>& loops) {
  Found x = find(f, block);
  std::vector<int> out;
  for (const Var& l : loops) {
    int bound = -1;
    for (size_t i = 0; x.realize && i < x.realize->iter_values.size(); ++i)
      if (x.realize->iter_values[i].same_as(l)) bound = static_cast<int>(i);
    out.push_back(bound);
  }
  return out;
}

std::vector<std::string> consumers(const PrimFunc& f, const std::string& block) {
  Found x = find(f, block);
  std::vector<std::string> out;
  for (const std::string& other : blocks_in_order(f)) {
    if (other == block) continue;
    const BlockNode* b = find(f, other).block;
    bool reads = false;
    for (const BufferRegion& r : b->reads)
      for (const BufferRegion& w : x.block->writes) reads = reads || r.buffer().same_as(w.buffer());
    if (reads) out.push_back(other);
  }
  return out;
}

std::string root_block(const PrimFunc& f) {
  const auto* realize = f.body().as<BlockRealizeNode>();
  if (!realize) KILN_USER_ERROR() << f.name() << " has no root block";
  return block_of(f.body())->name;
}

std::vector<std::string> blocks_in_order(const PrimFunc& f) {
  std::vector<std::string> names = block_names(f.body());
  // The root is the block the body is, if it is one (names are unique).
  if (f.body().as<BlockRealizeNode>()) {
    const std::string& root = block_of(f.body())->name;
    names.erase(std::remove(names.begin(), names.end(), root), names.end());
  }
  return names;
}

}  // namespace kiln::search
