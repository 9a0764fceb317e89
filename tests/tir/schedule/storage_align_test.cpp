// storage_align: an allocated buffer's stride padded on one axis.
#include <gtest/gtest.h>

#include "schedule_harness.h"
#include "tir/printer.h"
#include "tir/transform/lower.h"

namespace kiln {
namespace {

using testing::expect_ir;
using testing::expect_valid_schedule;
using testing::schedule_of;
using testing::workload_func;

// The function after flatten_buffers, printed.
std::string flattened(const PrimFunc& f) {
  std::string out;
  LowerOptions o;
  o.after_pass = [&](const std::string& pass, const PrimFunc& g) {
    if (pass == "flatten_buffers") out = to_string(g);
  };
  lower(f, o);
  return out;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(StorageAlign, PadsTheRowOfACache) {
  const char* w = "matmul:M=4,N=6,K=3";
  Schedule sch = schedule_of(w);
  BlockRV c = sch.get_block("C");
  sch.cache_write(c, 0, "global");
  sch.storage_align(c, 0, 0, 8, 1);
  expect_ir(sch.func(), R"(@T.prim_func
def matmul(A: T.Buffer((4, 3), "float32"), B: T.Buffer((3, 6), "float32"), C: T.Buffer((4, 6), "float32")):
    with T.block("root"):
        T.reads()
        T.writes()
        C_global = T.alloc_buffer((4, 6), "float32", align_axis=0, align_factor=8, align_offset=1)
        for i0, i1, k in T.grid(4, 6, 3):
            with T.block("C"):
                v_i0 = T.axis.spatial(4, i0)
                v_i1 = T.axis.spatial(6, i1)
                v_k = T.axis.reduce(3, k)
                T.reads(A[v_i0, v_k], B[v_k, v_i1])
                T.writes(C_global[v_i0, v_i1])
                with T.init():
                    C_global[v_i0, v_i1] = T.float32(0)
                C_global[v_i0, v_i1] = C_global[v_i0, v_i1] + A[v_i0, v_k] * B[v_k, v_i1]
        for ax0, ax1 in T.grid(4, 6):
            with T.block("C_global"):
                v0 = T.axis.spatial(4, ax0)
                v1 = T.axis.spatial(6, ax1)
                T.reads(C_global[v0, v1])
                T.writes(C[v0, v1])
                C[v0, v1] = C_global[v0, v1]
)");
  // Rows of 6 floats padded to 9 (= 1 mod 8); the parameter C stays dense.
  std::string flat = flattened(sch.func());
  EXPECT_TRUE(contains(flat, "C_global = T.allocate((36,), \"float32\")")) << flat;
  EXPECT_TRUE(contains(flat, "C[ax0 * 6 + ax1] = C_global[ax0 * 9 + ax1]")) << flat;
  expect_valid_schedule(sch, workload_func(w));
}

TEST(StorageAlign, AMiddleAxisOfAThreeDimensionalBuffer) {
  const char* w = "batch_matmul:B=2,M=3,N=5,K=4";
  Schedule sch = schedule_of(w);
  BlockRV c = sch.get_block("C");
  sch.cache_write(c, 0, "global");
  sch.storage_align(c, 0, 1, 4, 3);
  EXPECT_TRUE(contains(to_string(sch.func()),
                       "C_global = T.alloc_buffer((2, 3, 5), \"float32\", align_axis=1, align_factor=4, align_offset=3)"));
  // The stride of axis 1 goes from 5 to 7 (= 3 mod 4); axis 0 builds on it.
  std::string flat = flattened(sch.func());
  EXPECT_TRUE(contains(flat, "C_global = T.allocate((42,), \"float32\")")) << flat;
  EXPECT_TRUE(contains(flat, "C_global[ax0 * 21 + ax1 * 7 + ax2]")) << flat;
  expect_valid_schedule(sch, workload_func(w));
}

TEST(StorageAlign, AnIntermediateStageWithATiledConsumer) {
  const char* w = "softmax:M=4,N=6";
  Schedule sch = schedule_of(w);
  BlockRV e = sch.get_block("softmax_exp");
  sch.storage_align(e, 0, 0, 4, 0);
  sch.storage_align(e, 0, 0, 8, 1);  // replaces the first
  auto loops = sch.get_loops(sch.get_block("softmax"));
  sch.vectorize(loops[1]);
  EXPECT_TRUE(contains(flattened(sch.func()), "softmax_exp[i0_1 * 9 + i1]"));
  expect_valid_schedule(sch, workload_func(w));
}

TEST(StorageAlign, Errors) {
  Schedule sch = schedule_of("softmax:M=4,N=6");
  BlockRV out = sch.get_block("softmax");
  BlockRV e = sch.get_block("softmax_exp");
  auto message = [&](const std::function<void()>& f) -> std::string {
    try {
      f();
    } catch (const BadArgumentError& err) {
      return err.what();
    }
    return "no error";
  };
  EXPECT_EQ(message([&] { sch.storage_align(out, 0, 0, 8, 0); }),
            "storage_align: buffer 'softmax' is a parameter of the function");
  EXPECT_EQ(message([&] { sch.storage_align(e, 1, 0, 8, 0); }),
            "storage_align: block 'softmax_exp' has 1 written buffers, no buffer 1");
  EXPECT_EQ(message([&] { sch.storage_align(e, 0, 2, 8, 0); }),
            "storage_align: buffer 'softmax_exp' written by block 'softmax_exp' has 2 dimensions, no axis 2");
  EXPECT_EQ(message([&] { sch.storage_align(e, 0, -1, 8, 0); }),
            "storage_align: buffer 'softmax_exp' written by block 'softmax_exp' has 2 dimensions, no axis -1");
  EXPECT_EQ(message([&] { sch.storage_align(e, 0, 0, 0, 0); }),
            "storage_align: factor 0 for buffer 'softmax_exp' is not positive");
  EXPECT_EQ(message([&] { sch.storage_align(e, 0, 0, 8, 8); }),
            "storage_align: offset 8 for buffer 'softmax_exp' is outside [0, 8)");
  EXPECT_EQ(message([&] { sch.storage_align(e, 0, 0, 8, -1); }),
            "storage_align: offset -1 for buffer 'softmax_exp' is outside [0, 8)");
  EXPECT_TRUE(sch.trace().str().find("storage_align") == std::string::npos);
}

}  // namespace
}  // namespace kiln
