// Multi-level tiling with a tensor intrinsic (rules.h, multi_level_tiling;
// docs/tensorize.md, "In the search").
#include <algorithm>
#include <sstream>

#include "core/functor.h"
#include "search/block_info.h"
#include "search/rules/rules.h"
#include "search/rules/tiling.h"
#include "tir/schedule/attempt.h"
#include "tir/schedule/block_util.h"
#include "tir/schedule/locate.h"
#include "tir/tensor_intrin.h"

namespace kiln::search {
namespace {

// The dimension of `r` whose index uses `v`, or -1.
int dim_using(const BufferRegion& r, const Var& v) {
  for (size_t d = 0; d < r->region.size(); ++d)
    if (uses_var(r->region[d]->min, v)) return static_cast<int>(d);
  return -1;
}

int64_t extent_at(Schedule& sch, LoopRV l) {
  const int64_t* e = as_const_int(sch.loop_stmt(l, "multi_level_tiling").as<ForNode>()->extent);
  return e ? *e : -1;
}

// "lambda a0, a1: (a1 // 16, a0 // 4, a1 % 16, a0 % 4)": a read of `ndim`
// dimensions laid out as a dot-product intrinsic's operand, `lanes` along
// dimension `lane_dim` by `depth` along `depth_dim` innermost.
std::string intrin_layout(size_t ndim, size_t lane_dim, int64_t lanes, size_t depth_dim, int64_t depth) {
  std::ostringstream os;
  os << "lambda ";
  for (size_t i = 0; i < ndim; ++i) os << (i ? ", " : "") << "a" << i;
  os << ": (";
  for (size_t i = 0; i < ndim; ++i)
    if (i != lane_dim && i != depth_dim) os << "a" << i << ", ";
  os << "a" << lane_dim << " // " << lanes << ", a" << depth_dim << " // " << depth << ", a" << lane_dim << " % "
     << lanes << ", a" << depth_dim << " % " << depth << ")";
  return os.str();
}

}  // namespace

std::vector<Schedule> tiling_with_intrin(const Schedule& in, const std::string& block, const SpaceParams& p) {
  const BlockInfo info = block_info(in.func(), block);
  const std::vector<Var> loops = loop_vars(enclosing_loops(*locate_block(in.func().body(), block)));
  const std::vector<LoopRole> roles = loop_roles(in.func(), block, loops);
  const std::vector<int> bound = bound_iter_vars(in.func(), block, loops);
  std::optional<size_t> lane_loop, depth_loop;
  for (size_t i = 0; i < roles.size(); ++i) {
    if (roles[i] == LoopRole::kSpatial) lane_loop = i;
    if (roles[i] == LoopRole::kReduce) depth_loop = i;
  }
  if (!lane_loop || !depth_loop || bound[*lane_loop] < 0 || bound[*depth_loop] < 0) return {};
  const std::optional<PackableRead> packed = packable_read(in.func(), block, static_cast<size_t>(bound[*lane_loop]));
  if (!packed) return {};
  const BufferRegion& read = info.block->reads[static_cast<size_t>(packed->read)];
  const int depth_dim = dim_using(read, info.block->iter_vars[static_cast<size_t>(bound[*depth_loop])].var());
  if (depth_dim < 0 || depth_dim == packed->dim) return {};
  for (const std::string& name : p.tensor_intrins) {
    const TensorIntrin& t = *find_tensor_intrin(name);
    if (!t.needs_annotation.empty() && !info.block->annotations.count(t.needs_annotation)) continue;
    const int64_t lanes = *as_const_int(t.desc.params()[2].shape()[0]);
    const int64_t depth = *as_const_int(t.desc.params()[0].shape()[0]);
    // The intrinsic's loops innermost, its operand packed in its layout;
    // the tiles' vector loop (whose S3 tile goes innermost) the lane
    // loop's outer piece, or the last other spatial loop.
    size_t tile_vector_loop = SIZE_MAX;
    Attempt<Schedule> looped = attempt(in, [&](Schedule& sch) {
      BlockRV b = sch.get_block(block);
      std::vector<LoopRV> ls = sch.get_loops(b);
      // A loop as long as the intrinsic's is the intrinsic's loop itself
      // (16 output channels of a block of 16): split, it would leave a
      // unit loop, which tiles nothing.
      auto piece = [&](size_t at, int64_t extent) -> std::pair<std::optional<LoopRV>, LoopRV> {
        if (extent_at(sch, ls[at]) == extent) return {std::nullopt, ls[at]};
        std::vector<LoopRV> two = sch.split(ls[at], {kInfer, extent});
        return {two[0], two[1]};
      };
      const auto [lane_outer, lane_inner] = piece(*lane_loop, lanes);
      const auto [depth_outer, depth_inner] = piece(*depth_loop, depth);
      std::vector<LoopRV> order;
      for (size_t i = 0; i < ls.size(); ++i) {
        if (i == *lane_loop || i == *depth_loop) {
          if (const std::optional<LoopRV>& outer = i == *lane_loop ? lane_outer : depth_outer) order.push_back(*outer);
          if (i == *lane_loop && lane_outer) tile_vector_loop = order.size() - 1;
        } else {
          order.push_back(ls[i]);
          if (roles[i] == LoopRole::kSpatial && !lane_outer) tile_vector_loop = order.size() - 1;
        }
      }
      order.push_back(lane_inner);
      order.push_back(depth_inner);
      sch.reorder(order);
      sch.annotate(b, kTensorIntrinAnn, AnnValue(name));
    });
    if (!looped) continue;
    // The operand copied into the intrinsic's layout, unless it is laid
    // out so already (a convolution's weights blocked for it).
    auto pack_operand = [&](Schedule& sch) {
      BlockRV b = sch.get_block(block);
      BlockRV copy = sch.cache_read(b, packed->read, "global");
      sch.transform_layout(copy, BufferRole::kWrite, 0,
                           intrin_layout(read->region.size(), static_cast<size_t>(packed->dim), lanes,
                                         static_cast<size_t>(depth_dim), depth));
      // The copy walks its output in order: each step one intrinsic
      // operand, lanes x depth contiguous elements, read from `depth`
      // runs of the source (emitted as that many vector loads).
      std::vector<LoopRV> cl = sch.get_loops(copy);
      const size_t lane_at = static_cast<size_t>(packed->dim), depth_at = static_cast<size_t>(depth_dim);
      std::vector<LoopRV> cl_lane = sch.split(cl[lane_at], {kInfer, lanes});
      std::vector<LoopRV> cl_depth = sch.split(cl[depth_at], {kInfer, depth});
      std::vector<LoopRV> corder;
      for (size_t i = 0; i < cl.size(); ++i)
        if (i != lane_at && i != depth_at) corder.push_back(cl[i]);
      corder.insert(corder.end(), {cl_lane[0], cl_depth[0], cl_lane[1], cl_depth[1]});
      sch.reorder(corder);
      sch.fuse({cl_lane[1], cl_depth[1]});
    };
    // Whether the nest is the intrinsic's, tried on a copy: the sketch
    // tensorizes in postprocessing, after the init leaves the block.
    auto try_tensorize = [&](Schedule& sch) {
      BlockRV b = sch.get_block(block);
      std::vector<LoopRV> ls = sch.get_loops(b);
      std::vector<Var> vars;
      for (LoopRV l : ls) vars.push_back(sch.loop_var(l));
      const std::vector<LoopRole> now = loop_roles(sch.func(), block, vars);
      const size_t first_reduce = static_cast<size_t>(std::find(now.begin(), now.end(), LoopRole::kReduce) - now.begin());
      sch.decompose_reduction(b, ls[first_reduce]);  // as postprocessing does
      sch.tensorize(ls[ls.size() - t.num_loops], name);
    };
    std::optional<Schedule> shaped;
    if (attempt(*looped, try_tensorize)) {
      shaped = *looped;
    } else if (Attempt<Schedule> repacked = attempt(*looped, pack_operand); repacked && attempt(*repacked, try_tensorize)) {
      shaped = std::move(*repacked);
    }
    if (!shaped || tile_vector_loop == SIZE_MAX) continue;  // no fit, or nothing spatial outside the intrinsic
    Attempt<std::optional<Tiled>> tiled = attempt([&] { return tile(*shaped, block, p, tile_vector_loop, t.num_loops); });
    if (!tiled || !*tiled) continue;
    return write_backs(**tiled, block, epilogue_of(in.func(), block));
  }
  return {};
}

}  // namespace kiln::search
