#include "support/packed_matmul.h"

#include "tir/schedule/schedule.h"
#include "tir/transform/split_prepack.h"

namespace kiln::testing {

PrimFunc packed_matmul(const PrimFunc& matmul) {
  Schedule sch(matmul);
  BlockRV c = sch.get_block("C");
  std::vector<LoopRV> l = sch.get_loops(c);  // i j k
  std::vector<LoopRV> j = sch.split(l[1], {kInfer, 16});
  sch.reorder({j[0], l[0], l[2], j[1]});
  BlockRV copy = sch.cache_read(c, 1, "global");
  sch.transform_layout(copy, BufferRole::kWrite, 0, "lambda k, j: (j // 16, k, j % 16)");
  sch.annotate(copy, kPrepackAnn, AnnValue(int64_t{1}));
  return sch.func();
}

}  // namespace kiln::testing
