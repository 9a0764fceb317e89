#include "search/space.h"

#include "search/block_info.h"
#include "search/rules/rules.h"
#include "tir/schedule/locate.h"

namespace kiln::search {

namespace {

// A GPU's space: every tiled block in "SSSRRSRS" with shared-memory
// operands, every other nest bound to blocks of threads, the unroll step
// sampled; injective producers of a tiled block (conv2d's padding) are
// kernels of their own.
std::vector<Trace> gpu_design_space(const PrimFunc& f, const SpaceParams& p) {
  Schedule base(f);
  auto_inline(base);
  inline_producers_of_tiled(base);
  std::vector<Schedule> states = {base};
  for (const std::string& block : blocks_in_order(base.func())) {
    std::vector<Schedule> next;
    for (const Schedule& s : states) {
      if (!locate_block(s.func().body(), block)) {  // an epilogue inlined into a write-back
        next.push_back(s);
        continue;
      }
      for (Schedule& t : multi_level_tiling_gpu(s, block, p))
        for (Schedule& u : cross_thread_reduction(t, block, p)) next.push_back(std::move(u));
    }
    states = std::move(next);
  }
  std::vector<Trace> out;
  for (Schedule& s : states) {
    auto_bind_rule(s, p);
    parallel_vectorize_unroll(s, p);
    s.annotate(s.get_block(root_block(s.func())), kGpuThreadsAnn, AnnValue(p.max_threads));
    s.annotate(s.get_block(root_block(s.func())), kGpuSharedAnn, AnnValue(p.max_shared_bytes));
    out.push_back(s.trace());
  }
  return out;
}

// Every block's sketches (add_rfactor, multi_level_tiling) in turn, but
// `skip`'s.
std::vector<Schedule> tile_blocks(const Schedule& base, const SpaceParams& p, const std::string& skip) {
  std::vector<Schedule> states = {base};
  for (const std::string& block : blocks_in_order(base.func())) {
    if (block == skip) continue;
    std::vector<Schedule> next;
    for (const Schedule& s : states)
      for (const Schedule& r : add_rfactor(s, block, p))
        for (Schedule& t : multi_level_tiling(r, block, p)) next.push_back(std::move(t));
    states = std::move(next);
  }
  return states;
}

}  // namespace

std::vector<Trace> design_space(const PrimFunc& f, const SpaceParams& p) {
  if (p.gpu()) return gpu_design_space(f, p);
  Schedule base(f);
  auto_inline(base);
  std::vector<Schedule> states = tile_blocks(base, p, "");
  // A producer computed in its consumer's tiles instead, untiled.
  for (const std::string& producer : producers_in_tiles(base.func()))
    for (const Schedule& s : tile_blocks(base, p, producer))
      for (Schedule& t : compute_in_tiles(s, producer, p)) states.push_back(std::move(t));
  std::vector<Trace> out;
  for (Schedule& s : states) {
    order_thread_split(s);
    compute_location(s);
    parallel_vectorize_unroll(s, p);
    out.push_back(s.trace());
  }
  return out;
}

}  // namespace kiln::search
