// Workload keys: pinned, name-independent, and different for different
// computations. A change to these golden values changes every key in every
// tuning database: it needs kWorkloadKeyVersion bumped and a migration.
#include <gtest/gtest.h>

#include "ops/workload.h"
#include "tir/analysis/workload_key.h"
#include "tir/functor.h"
#include "tir/schedule/block_util.h"

namespace kiln {
namespace {

PrimFunc workload(const std::string& w) { return ops::build_workload(ops::parse_workload(w)); }

// f with its function and every block renamed.
PrimFunc renamed(const PrimFunc& f) {
  class Rename : public StmtMutator {
    Stmt visit_Block(const BlockNode* op, const Stmt& self) override {
      BlockFields b = fields_of(StmtMutator::visit_Block(op, self).as<BlockNode>());
      b.name = "renamed_" + b.name;
      return block(std::move(b));
    }
  };
  return PrimFunc("another_name", f.params(), Rename().mutate(f.body()), f->attrs);
}

TEST(WorkloadKey, GoldenValues) {
  EXPECT_EQ(workload_key(workload("matmul:M=512,N=512,K=512")), "v1-008132cc4330f394");
  EXPECT_EQ(workload_key(workload("conv2d_nchw:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1")),
            "v1-8aafd6e6301778a6");
  EXPECT_EQ(workload_key(workload("softmax:M=128,N=1000")), "v1-2c6d8164e30221b8");
}

TEST(WorkloadKey, IsVersioned) {
  std::string key = workload_key(workload("add:M=4,N=4"));
  EXPECT_EQ(key.rfind("v" + std::to_string(kWorkloadKeyVersion) + "-", 0), 0u) << key;
  EXPECT_EQ(key.size(), 3u + 16u);
  EXPECT_TRUE(is_workload_key(key));
  for (const char* not_a_key : {"v1-0123", "v1-0123456789abcdeg", "v0-0123456789abcdef", "add:M=4,N=4", ""})
    EXPECT_FALSE(is_workload_key(not_a_key)) << not_a_key;
}

TEST(WorkloadKey, IgnoresEveryName) {
  for (const char* w : {"matmul:M=64,N=32,K=16", "softmax:M=8,N=10", "conv2d_nchw:N=1,C=4,H=8,W=8,K=4,R=3,S=3,stride=1,pad=1"}) {
    PrimFunc f = workload(w);
    EXPECT_EQ(workload_key(renamed(f)), workload_key(f)) << w;
    EXPECT_EQ(canonical_workload(renamed(f)).name(), "main");
  }
}

TEST(WorkloadKey, TellsComputationsApart) {
  EXPECT_NE(workload_key(workload("matmul:M=64,N=32,K=16")), workload_key(workload("matmul:M=64,N=32,K=17")));
  EXPECT_NE(workload_key(workload("matmul:M=64,N=32,K=16")),
            workload_key(workload("matmul:M=64,N=32,K=16,dtype=float16")));
  EXPECT_NE(workload_key(workload("add:M=4,N=4")), workload_key(workload("mul:M=4,N=4")));
}

}  // namespace
}  // namespace kiln
