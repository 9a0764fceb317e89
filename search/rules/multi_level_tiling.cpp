#include <algorithm>
#include <sstream>

#include "core/functor.h"
#include "search/block_info.h"
#include "search/rules/rules.h"
#include "tir/schedule/attempt.h"
#include "tir/schedule/block_util.h"
#include "tir/schedule/locate.h"
#include "tir/tensor_intrin.h"

namespace kiln::search {
namespace {

struct Tiled {
  Schedule sch;
  // tiles[level]: the loops of that level, one per tiled loop of its kind.
  std::vector<std::vector<LoopRV>> tiles;
};

// Splits every loop of `block` and reorders the pieces into kTileStructure,
// the S3 piece of loop `vector_loop` last: the loop postprocessing
// vectorizes. The innermost `fixed` loops (a tensor intrinsic's) stay as
// they are, below the tiles; a step of the vector loop is then one
// register (kLanesAnn 1), not the target's lanes. Nullopt when a loop drives both kinds of iter
// var (or none).
std::optional<Tiled> tile(const Schedule& in, const std::string& block, const SpaceParams& p, size_t vector_loop,
                          size_t fixed = 0) {
  Tiled t{in, std::vector<std::vector<LoopRV>>(kTileStructure.size())};
  Schedule& sch = t.sch;
  BlockRV b = sch.get_block(block);
  std::vector<LoopRV> loops = sch.get_loops(b);
  const std::vector<LoopRV> inner(loops.end() - static_cast<std::ptrdiff_t>(fixed), loops.end());
  loops.resize(loops.size() - fixed);
  std::vector<Var> vars;
  for (LoopRV l : loops) vars.push_back(sch.loop_var(l));
  std::vector<LoopRole> roles = loop_roles(sch.func(), block, vars);
  const std::vector<int> bound = bound_iter_vars(sch.func(), block, vars);
  const std::vector<double> along = bytes_read_along(sch.func(), block);
  std::vector<double> s0_split_bytes;  // per S0 tile: what splitting it splits of the reads
  std::vector<int64_t> s0_extent;      // per S0 tile: its loop's whole extent
  std::vector<int> s_levels, r_levels;
  for (size_t i = 0; i < kTileStructure.size(); ++i) (kTileStructure[i] == 'S' ? s_levels : r_levels).push_back(static_cast<int>(i));
  std::optional<LoopRV> vector_piece;
  int64_t spatial = 0, vector_index = -1;
  for (size_t i = 0; i < loops.size(); ++i) {
    if (roles[i] != LoopRole::kSpatial && roles[i] != LoopRole::kReduce) return std::nullopt;
    const bool is_spatial = roles[i] == LoopRole::kSpatial;
    const std::vector<int>& levels = is_spatial ? s_levels : r_levels;
    const int n = static_cast<int>(levels.size());
    // A spatial loop that is not vectorized may end in a partial tile
    // (sample_tile): register tiles of 6 rows exist for 1024 rows. The
    // vector loop's tiles divide it, so no vector is ever partial; nor do
    // the reduction's, so no sum is split unevenly.
    std::vector<ExprRV> factors = is_spatial && i != vector_loop
                                      ? sch.sample_tile(loops[i], n, p.max_innermost_factor)
                                      : sch.sample_perfect_tile(loops[i], n, p.max_innermost_factor);
    const int64_t* e = as_const_int(sch.loop_stmt(loops[i], "multi_level_tiling").as<ForNode>()->extent);
    const int64_t whole_extent = e ? *e : 1;
    std::vector<LoopRV> pieces = sch.split(loops[i], std::vector<Factor>(factors.begin(), factors.end()));
    for (int k = 0; k < n; ++k) {
      if (i == vector_loop && k == n - 1) continue;  // goes last, below
      t.tiles[levels[k]].push_back(pieces[k]);
      if (levels[k] == 0) {
        s0_split_bytes.push_back(bound[i] >= 0 ? along[static_cast<size_t>(bound[i])] : 0.0);
        s0_extent.push_back(whole_extent);
      }
    }
    if (i == vector_loop) {
      vector_piece = pieces[n - 1];
      vector_index = spatial;
    }
    spatial += is_spatial;
  }
  if (!vector_piece || vector_index < 0) return std::nullopt;
  t.tiles[s_levels.back()].push_back(*vector_piece);
  // The S0 tiles are the jobs the threads share out (postprocessing fuses
  // and parallelizes them), each thread a contiguous range of the first.
  // Outermost goes the tile whose split splits the most bytes of the
  // block's reads, on a tie the longer loop: conv2d's output rows before
  // its output channels where the input outweighs the weights, so that
  // each thread reads the rows it wrote in the kernel before and not
  // half of them from the other thread's cache; the channels first where
  // the weights weigh more (docs/tuner.md, "Which way the threads split").
  std::vector<size_t> s0(t.tiles[0].size());
  for (size_t k = 0; k < s0.size(); ++k) s0[k] = k;
  std::stable_sort(s0.begin(), s0.end(), [&](size_t a, size_t b) {
    return split_first(s0_split_bytes[a], s0_extent[a], s0_split_bytes[b], s0_extent[b]);
  });
  std::vector<LoopRV> sorted;
  for (size_t k : s0) sorted.push_back(t.tiles[0][k]);
  t.tiles[0] = sorted;
  std::vector<LoopRV> order;
  for (const std::vector<LoopRV>& level : t.tiles) order.insert(order.end(), level.begin(), level.end());
  order.insert(order.end(), inner.begin(), inner.end());
  sch.reorder(order);
  sch.annotate(b, kTiledAnn, AnnValue(int64_t{p.accumulator_registers()}));
  sch.annotate(b, kLanesAnn, AnnValue(int64_t{fixed > 0 ? 1 : p.lanes}));
  // Only another axis than the last is written down: the sketches of
  // earlier versions, which vectorize the last, stay as they were.
  if (vector_index + 1 != spatial) sch.annotate(b, kVectorAxisAnn, AnnValue(vector_index));
  return t;
}

// "lambda a0, a1, a2: (a0, a2, a1)": dimension `dim` of `ndim` moved last.
std::string moved_last(size_t ndim, size_t dim) {
  std::ostringstream os;
  os << "lambda ";
  for (size_t i = 0; i < ndim; ++i) os << (i ? ", " : "") << "a" << i;
  os << ": (";
  bool first = true;
  for (size_t i = 0; i < ndim; ++i)
    if (i != dim) os << (first ? "" : ", ") << "a" << i, first = false;
  os << (first ? "" : ", ") << "a" << dim << ")";
  return os.str();
}

// Packs the read for the vector axis: a copy (compute_location samples
// where it goes; lowering compacts it to the region used there), its
// vector dimension made the last so that the vector loads read it
// contiguously.
void pack(Schedule& sch, const std::string& block, const PackableRead& r, size_t ndim) {
  BlockRV copy = sch.cache_read(sch.get_block(block), r.read, "global");
  if (static_cast<size_t>(r.dim) + 1 != ndim)
    sch.transform_layout(copy, BufferRole::kWrite, 0, moved_last(ndim, static_cast<size_t>(r.dim)));
}

// The register tile written back under the S0 or S1 tiles, beside the
// results written in place: the sketches' three ways to write the result.
std::vector<Schedule> write_backs(const Tiled& t, const std::string& block, const std::string& epilogue) {
  std::vector<Schedule> written;
  written.push_back(t.sch);  // results written in place
  for (int level : {0, 1}) {
    // Where this write-back does not fit the block, the other sketches stand.
    Attempt<Schedule> w = attempt(t.sch, [&](Schedule& sch) {
      BlockRV writer = epilogue.empty() ? sch.cache_write(sch.get_block(block), 0, "local") : sch.get_block(epilogue);
      sch.reverse_compute_at(writer, t.tiles[level].back());
    });
    if (w) written.push_back(std::move(*w));
  }
  return written;
}

// The block's only consumer when it is injective (an epilogue such as
// relu, which can take the write-back's place); empty otherwise.
std::string epilogue_of(const PrimFunc& f, const std::string& block) {
  std::vector<std::string> users = consumers(f, block);
  if (users.size() == 1 && block_info(f, users[0]).is_injective) return users[0];
  return "";
}

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

// Multi-level tiling with a tensor intrinsic (rules.h).
std::vector<Schedule> tiling_with_intrin(const Schedule& in, const std::string& block, const SpaceParams& p) {
  const BlockInfo info = block_info(in.func(), block);
  const std::vector<Var> loops = loop_vars(enclosing_loops(*locate_block(in.func().body(), block)));
  const std::vector<LoopRole> roles = loop_roles(in.func(), block, loops);
  const std::vector<int> bound = bound_iter_vars(in.func(), block, loops);
  std::optional<size_t> lane_loop, depth_loop;
  for (size_t i = 0; i < roles.size(); ++i) (roles[i] == LoopRole::kSpatial ? lane_loop : depth_loop) = i;
  if (!lane_loop || !depth_loop || bound[*lane_loop] < 0 || bound[*depth_loop] < 0) return {};
  const std::optional<PackableRead> packed = packable_read(in.func(), block, static_cast<size_t>(bound[*lane_loop]));
  if (!packed) return {};
  const BufferRegion& read = info.block->reads[static_cast<size_t>(packed->read)];
  const int depth_dim = dim_using(read, info.block->iter_vars[static_cast<size_t>(bound[*depth_loop])].var());
  if (depth_dim < 0 || depth_dim == packed->dim) return {};
  for (const std::string& name : p.tensor_intrins) {
    const TensorIntrin& t = *find_tensor_intrin(name);
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

}  // namespace

std::vector<Schedule> multi_level_tiling(const Schedule& in, const std::string& block, const SpaceParams& p) {
  BlockInfo info = block_info(in.func(), block);
  if (!info.has_reduce || !info.has_spatial || !info.has_data_reuse) return {in};
  if (std::vector<Schedule> intrin = tiling_with_intrin(in, block, p); !intrin.empty()) return intrin;

  // The vector axis: the last spatial loop; and when that one has no
  // operand to pack (conv2d's output column, which reads the input at
  // q + s), each other spatial loop that has one (conv2d's output channel,
  // with the weights), the result tile then laid out with it last.
  const std::vector<Var> loops = loop_vars(enclosing_loops(*locate_block(in.func().body(), block)));
  std::vector<LoopRole> roles = loop_roles(in.func(), block, loops);
  std::vector<int> bound = bound_iter_vars(in.func(), block, loops);
  std::vector<size_t> spatial_loops;
  for (size_t i = 0; i < roles.size(); ++i)
    if (roles[i] == LoopRole::kSpatial) spatial_loops.push_back(i);
  if (spatial_loops.empty()) return {in};
  auto packable = [&](size_t loop) -> std::optional<PackableRead> {
    if (bound[loop] < 0) return std::nullopt;
    return packable_read(in.func(), block, static_cast<size_t>(bound[loop]));
  };
  const size_t last = spatial_loops.back();
  std::vector<size_t> other_axes;
  if (!packable(last))
    for (size_t l : spatial_loops)
      if (l != last && packable(l) && written_dim(in.func(), block, static_cast<size_t>(bound[l])) >= 0)
        other_axes.push_back(l);

  Attempt<std::optional<Tiled>> tiled = attempt([&] { return tile(in, block, p, last); });
  if (!tiled || !*tiled) return {in};
  const std::vector<Schedule> written = write_backs(**tiled, block, epilogue_of(in.func(), block));
  std::vector<Schedule> out = written;
  // Each again with the vector operand packed, where it can be (else the
  // unpacked one stands).
  if (std::optional<PackableRead> r = packable(last)) {
    const size_t ndim = info.block->reads[r->read].buffer().shape().size();
    for (const Schedule& s : written)
      if (Attempt<Schedule> packed = attempt(s, [&](Schedule& sch) { pack(sch, block, *r, ndim); }))
        out.push_back(std::move(*packed));
  }

  // Another vector axis: the result goes through a register tile laid out
  // with that axis last (a store in place would scatter), and its operand
  // is packed the same way.
  for (size_t axis : other_axes) {
    const PackableRead r = *packable(axis);
    const size_t read_ndim = info.block->reads[r.read].buffer().shape().size();
    const int out_dim = written_dim(in.func(), block, static_cast<size_t>(bound[axis]));
    const size_t out_ndim = info.block->writes[0].buffer().shape().size();
    Attempt<std::optional<Tiled>> tiled_on = attempt([&] { return tile(in, block, p, axis); });
    if (!tiled_on || !*tiled_on) continue;
    const Tiled& ta = **tiled_on;
    for (int level : {0, 1}) {
      // Where this form does not fit the block, the others stand.
      Attempt<Schedule> formed = attempt(ta.sch, [&](Schedule& sch) {
        BlockRV writer = sch.cache_write(sch.get_block(block), 0, "local");
        if (static_cast<size_t>(out_dim) + 1 != out_ndim)
          sch.transform_layout(sch.get_block(block), BufferRole::kWrite, 0,
                               moved_last(out_ndim, static_cast<size_t>(out_dim)));
        sch.reverse_compute_at(writer, ta.tiles[level].back());
        pack(sch, block, r, read_ndim);
      });
      if (formed) out.push_back(std::move(*formed));
    }
  }
  return out;
}

}  // namespace kiln::search
