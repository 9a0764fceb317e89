#include "support/tensorized_matmul.h"

#include <string>

#include "targets/runtime/arguments.h"

namespace kiln::testing {

LoopRV pack_for_dot_product(Schedule& sch, int64_t lanes) {
  BlockRV c = sch.get_block("C");
  BlockRV pack = sch.cache_read(c, 1, "global");
  const std::string l = std::to_string(lanes);
  sch.transform_layout(pack, BufferRole::kWrite, 0, "lambda k, j: (j // " + l + ", k // 4, j % " + l + ", k % 4)");
  std::vector<LoopRV> loops = sch.get_loops(c);
  std::vector<LoopRV> j = sch.split(loops[1], {kInfer, lanes});
  std::vector<LoopRV> k = sch.split(loops[2], {kInfer, 4});
  sch.reorder({loops[0], j[0], k[0], j[1], k[1]});
  sch.decompose_reduction(c, k[0]);
  return j[1];
}

std::vector<NDArray> full_range_int8_arguments(const PrimFunc& f, double int8_lo, double int8_hi) {
  std::vector<NDArray> args = make_arguments(f, 11);
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    const DataType t = args[i].dtype();
    if (t == DataType::UInt(8)) args[i].fill_random(101 + i, 0, 255);
    else if (t == DataType::Int(8)) args[i].fill_random(101 + i, int8_lo, int8_hi);
  }
  return args;
}

}  // namespace kiln::testing
