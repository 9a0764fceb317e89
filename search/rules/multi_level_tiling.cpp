#include <sstream>

#include "search/block_info.h"
#include "search/rules/rules.h"
#include "search/rules/tiling.h"
#include "tir/schedule/attempt.h"
#include "tir/schedule/block_util.h"
#include "tir/schedule/locate.h"

namespace kiln::search {
namespace {

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

}  // namespace

bool multi_level_tiling_takes(const BlockInfo& b) { return b.has_reduce && b.has_spatial && b.has_data_reuse; }

std::vector<Schedule> multi_level_tiling(const Schedule& in, const std::string& block, const SpaceParams& p) {
  BlockInfo info = block_info(in.func(), block);
  if (!multi_level_tiling_takes(info)) return {in};
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
