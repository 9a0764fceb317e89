// insert_barriers: a barrier between a shared buffer's writes and the reads
// of other threads, and between one iteration's reads and the next one's
// writes; none where nothing is shared.
#include <gtest/gtest.h>

#include "core/structural.h"
#include "tir/parser/parser.h"
#include "tir/printer.h"
#include "tir/transform/insert_barriers.h"

namespace kiln {
namespace {

void expect_inserts(const std::string& before, const std::string& after) {
  PrimFunc got = insert_barriers(parse_prim_func(before));
  PrimFunc want = parse_prim_func(after);
  EXPECT_TRUE(structural_equal(got, want)) << "got:\n" << got << "expected:\n" << want;
  EXPECT_TRUE(missing_barriers(got->body).empty()) << got;
}

TEST(InsertBarriers, BetweenTheFetchAndTheComputeAndBeforeTheNextFetch) {
  expect_inserts(R"(@T.prim_func
def f(A: T.Buffer((256,), "float32"), C: T.Buffer((16,), "float32")):
    for tx in T.thread_binding(16, thread="threadIdx.x"):
        S = T.allocate((16,), "float32", scope="shared")
        for k0 in range(16):
            S[tx] = A[k0 * 16 + tx]
            for k1 in range(16):
                C[tx] = C[tx] + S[k1]
)",
                 R"(@T.prim_func
def f(A: T.Buffer((256,), "float32"), C: T.Buffer((16,), "float32")):
    for tx in T.thread_binding(16, thread="threadIdx.x"):
        S = T.allocate((16,), "float32", scope="shared")
        for k0 in range(16):
            S[tx] = A[k0 * 16 + tx]
            T.barrier("shared")
            for k1 in range(16):
                C[tx] = C[tx] + S[k1]
            T.barrier("shared")
)");
}

TEST(InsertBarriers, NoneForLocalBuffersOrWhereABarrierStands) {
  const char* local = R"(@T.prim_func
def f(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    for tx in T.thread_binding(16, thread="threadIdx.x"):
        L = T.allocate((1,), "float32", scope="local")
        for k in range(4):
            L[0] = A[tx]
            C[tx] = L[0]
)";
  expect_inserts(local, local);
  const char* placed = R"(@T.prim_func
def f(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    for tx in T.thread_binding(16, thread="threadIdx.x"):
        S = T.allocate((16,), "float32", scope="shared")
        S[tx] = A[tx]
        T.barrier("shared")
        C[tx] = S[15 - tx]
)";
  expect_inserts(placed, placed);
}

TEST(InsertBarriers, AMissingOneIsFoundWithItsBuffer) {
  PrimFunc f = parse_prim_func(R"(@T.prim_func
def f(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    for tx in T.thread_binding(16, thread="threadIdx.x"):
        S = T.allocate((16,), "float32", scope="shared")
        S[tx] = A[tx]
        C[tx] = S[15 - tx]
)");
  std::vector<MissingBarrier> m = missing_barriers(f->body);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].buffer.name(), "S");
  EXPECT_FALSE(m[0].end_of_loop);
  EXPECT_EQ(first_line(m[0].stmt), "C[tx] = S[15 - tx]");
}

}  // namespace
}  // namespace kiln
