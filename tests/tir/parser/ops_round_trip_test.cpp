// Every operator's unscheduled function, every step of its lowering and its
// lowered form print and parse back to the same program and the same text.
#include <set>

#include "ops/workload.h"
#include "round_trip.h"
#include "support/every_op.h"
#include "tir/transform/lower.h"

namespace kiln {
namespace {

using testing::prints_and_parses_back;

class OpsRoundTrip : public ::testing::TestWithParam<const char*> {};

TEST_P(OpsRoundTrip, UnscheduledLoweredAndEveryPass) {
  PrimFunc f = ops::build_workload(ops::parse_workload(GetParam()));
  EXPECT_TRUE(prints_and_parses_back(f));
  LowerOptions options;
  // vectorize_loops nests sequences that the final simplify flattens.
  options.after_pass = [&](const std::string& pass, const PrimFunc& g) {
    EXPECT_TRUE(prints_and_parses_back(g, testing::Sequences::kFlattened)) << "after " << pass;
  };
  EXPECT_TRUE(prints_and_parses_back(lower(f, options)));
}

INSTANTIATE_TEST_SUITE_P(AllOps, OpsRoundTrip, ::testing::ValuesIn(testing::kEveryOpWorkloads));

TEST(OpsRoundTrip, EveryOpHasAWorkload) {
  std::set<std::string> covered;
  for (const char* w : testing::kEveryOpWorkloads) covered.insert(ops::parse_workload(w).op);
  for (const std::string& op : ops::list_ops()) EXPECT_TRUE(covered.count(op)) << "no round-trip workload for " << op;
}


// Scheduled loops (parallel, vectorized, unrolled, a scratch buffer) reach
// the passes that unroll and vectorize, whose output has vector loads and
// stores, copies of one loop nest and Allocates.
TEST(OpsRoundTrip, ScheduledLoopsThroughEveryPass) {
  PrimFunc f = parse_prim_func(R"(@T.prim_func
def scale(A: T.Buffer((64, 16), "float32"), B: T.Buffer((64, 16), "float32")):
    with T.block("root"):
        T.reads()
        T.writes()
        A_local = T.alloc_buffer((64, 16), "float32", scope="local")
        for i in T.parallel(64):
            for j in T.vectorized(16):
                with T.block("copy"):
                    vi = T.axis.spatial(64, i)
                    vj = T.axis.spatial(16, j)
                    T.reads(A[vi, vj])
                    T.writes(A_local[vi, vj])
                    A_local[vi, vj] = A[vi, vj] * T.float32(2)
            for jo in T.unroll(2):
                for ji in range(8):
                    with T.block("out"):
                        vi_1 = T.axis.spatial(64, i)
                        vj_1 = T.axis.spatial(16, jo * 8 + ji)
                        T.reads(A_local[vi_1, vj_1])
                        T.writes(B[vi_1, vj_1])
                        B[vi_1, vj_1] = T.max(A_local[vi_1, vj_1], T.float32(0))
)");
  EXPECT_TRUE(testing::prints_and_parses_back(f));
  LowerOptions options;
  options.after_pass = [&](const std::string& pass, const PrimFunc& g) {
    EXPECT_TRUE(testing::prints_and_parses_back(g, testing::Sequences::kFlattened)) << "after " << pass;
  };
  PrimFunc lowered = lower(f, options);
  EXPECT_TRUE(testing::prints_and_parses_back(lowered));
  std::string text = to_string(lowered);
  EXPECT_NE(text.find("T.Ramp("), std::string::npos) << text;
  EXPECT_NE(text.find("T.allocate("), std::string::npos) << text;
  EXPECT_NE(text.find("T.parallel("), std::string::npos) << text;
}

}  // namespace
}  // namespace kiln
