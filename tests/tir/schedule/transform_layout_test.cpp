// transform_layout, and the index maps it takes.
#include <gtest/gtest.h>

#include "schedule_harness.h"
#include "tir/index_map.h"
#include "tir/printer.h"
#include "tir/transform/lower.h"

namespace kiln {
namespace {

using testing::expect_ir;
using testing::expect_valid_schedule;
using testing::schedule_of;
using testing::workload_func;

const std::vector<DataType> kTwoInts{DataType::Int32(), DataType::Int32()};

TEST(IndexMap, ParsesAndPrints) {
  IndexMap m = IndexMap::parse("lambda k, j: (j // 64, k, j % 64)", kTwoInts);
  EXPECT_EQ(m.str(), "lambda k, j: (j // 64, k, j % 64)");
  EXPECT_EQ(IndexMap::parse(" lambda i : i ", {DataType::Int32()}).str(), "lambda i: (i,)");
  EXPECT_EQ(IndexMap::parse("lambda i: ((i // 4) % 2, i % 4, i // 8)", {DataType::Int32()}).image_shape({16}),
            (std::vector<int64_t>{2, 4, 2}));
}

TEST(IndexMap, MalformedText) {
  EXPECT_THROW(IndexMap::parse("k, j: (k, j)", kTwoInts), Error);
  EXPECT_THROW(IndexMap::parse("lambda k, j (k, j)", kTwoInts), Error);
  EXPECT_THROW(IndexMap::parse("lambda k: (k,)", kTwoInts), Error);
  EXPECT_THROW(IndexMap::parse("lambda k, j: (k, q)", kTwoInts), Error);
  EXPECT_THROW(IndexMap::parse("lambda k, j: ()", kTwoInts), Error);
}

TEST(IndexMap, OnlySplitsAndPermutationsAreInjective) {
  auto why = [](const char* text, std::vector<int64_t> extents) {
    return IndexMap::parse(text, kTwoInts).check_injective(extents);
  };
  EXPECT_FALSE(why("lambda k, j: (j // 64, k, j % 64)", {8, 256}));
  EXPECT_FALSE(why("lambda k, j: (j, k)", {8, 256}));
  EXPECT_FALSE(why("lambda k, j: (j // 3, k, j % 3)", {8, 10}));  // padded to 4 x 3
  EXPECT_FALSE(why("lambda k, j: (k, j % 4)", {8, 4}));           // j % 4 is j
  EXPECT_EQ(why("lambda k, j: (k + j,)", {8, 8}).value_or(""),
            "output 0 ('k + j') is not an index, 'i // c', 'i % c' or '(i // c) % d' of one index");
  EXPECT_EQ(why("lambda k, j: (k, j % 4)", {8, 8}).value_or(""),
            "index 'j' (extent 8) is only covered up to 4");
  EXPECT_EQ(why("lambda k, j: (k, j // 2, j % 4)", {8, 8}).value_or(""),
            "index 'j' is not split into digits that cover it exactly once");
  EXPECT_EQ(why("lambda k, j: (k, j, j)", {8, 8}).value_or(""),
            "index 'j' is not split into digits that cover it exactly once");
  EXPECT_EQ(why("lambda k, j: (k,)", {8, 8}).value_or(""), "index 'j' (extent 8) is only covered up to 1");
}

TEST(TransformLayout, PacksACacheIntoPanels) {
  const char* w = "matmul:M=4,N=8,K=6";
  Schedule sch = schedule_of(w);
  BlockRV c = sch.get_block("C");
  BlockRV pack = sch.cache_read(c, 1, "global");
  sch.transform_layout(pack, BufferRole::kWrite, 0, "lambda k, j: (j // 4, k, j % 4)");
  expect_ir(sch.func(), R"(@T.prim_func
def matmul(A: T.Buffer((4, 6), "float32"), B: T.Buffer((6, 8), "float32"), C: T.Buffer((4, 8), "float32")):
    with T.block("root"):
        T.reads()
        T.writes()
        B_global = T.alloc_buffer((2, 6, 4), "float32")
        for ax0, ax1 in T.grid(6, 8):
            with T.block("B_global"):
                v0 = T.axis.spatial(6, ax0)
                v1 = T.axis.spatial(8, ax1)
                T.reads(B[v0, v1])
                T.writes(B_global[v1 // 4, v0, v1 % 4])
                B_global[v1 // 4, v0, v1 % 4] = B[v0, v1]
        for i0, i1, k in T.grid(4, 8, 6):
            with T.block("C"):
                v_i0 = T.axis.spatial(4, i0)
                v_i1 = T.axis.spatial(8, i1)
                v_k = T.axis.reduce(6, k)
                T.reads(A[v_i0, v_k], B_global[v_i1 // 4, v_k, v_i1 % 4])
                T.writes(C[v_i0, v_i1])
                with T.init():
                    C[v_i0, v_i1] = T.float32(0)
                C[v_i0, v_i1] = C[v_i0, v_i1] + A[v_i0, v_k] * B_global[v_i1 // 4, v_k, v_i1 % 4]
)");
  expect_valid_schedule(sch, workload_func(w));
}

TEST(TransformLayout, ByTheReadingBlockIsTheSame) {
  const char* w = "matmul:M=4,N=8,K=6";
  Schedule by_writer = schedule_of(w);
  by_writer.transform_layout(by_writer.cache_read(by_writer.get_block("C"), 1, "global"), BufferRole::kWrite, 0,
                             "lambda k, j: (j // 4, k, j % 4)");
  Schedule by_reader = schedule_of(w);
  BlockRV c = by_reader.get_block("C");
  by_reader.cache_read(c, 1, "global");
  by_reader.transform_layout(c, BufferRole::kRead, 1, "lambda k, j: (j // 4, k, j % 4)");
  EXPECT_EQ(to_string(by_reader.func()), to_string(by_writer.func()));
  expect_valid_schedule(by_reader, workload_func(w));
}

TEST(TransformLayout, PanelPerTileAfterComputeAt) {
  // The packing copy moves under the loop over panels; lowering then keeps
  // one 6 x 4 panel at a time.
  const char* w = "matmul:M=4,N=8,K=6";
  Schedule sch = schedule_of(w);
  BlockRV c = sch.get_block("C");
  auto loops = sch.get_loops(c);
  auto j = sch.split(loops[1], {kInfer, 4});
  sch.reorder({j[0], loops[0], loops[2], j[1]});
  BlockRV pack = sch.cache_read(c, 1, "global");
  sch.compute_at(pack, j[0]);
  sch.transform_layout(pack, BufferRole::kWrite, 0, "lambda k, j: (j // 4, k, j % 4)");
  sch.vectorize(j[1]);
  expect_valid_schedule(sch, workload_func(w));
  std::string lowered = to_string(lower(sch.func(), LowerOptions{}));
  EXPECT_NE(lowered.find("B_global = T.allocate((24,), \"float32\")"), std::string::npos) << lowered;
}

TEST(TransformLayout, SplitThatDoesNotDividePads) {
  const char* w = "matmul:M=3,N=10,K=5";
  Schedule sch = schedule_of(w);
  BlockRV pack = sch.cache_read(sch.get_block("C"), 1, "global");
  sch.transform_layout(pack, BufferRole::kWrite, 0, "lambda k, j: (j // 4, k, j % 4)");
  EXPECT_NE(to_string(sch.func()).find("B_global = T.alloc_buffer((3, 5, 4), \"float32\")"), std::string::npos)
      << to_string(sch.func());
  expect_valid_schedule(sch, workload_func(w));
}

TEST(TransformLayout, PaddedInputIntoNCHWc) {
  const char* w = "conv2d_nchw:N=1,C=8,H=5,W=5,K=4,R=3,S=3,stride=1,pad=1";
  Schedule sch = schedule_of(w);
  BlockRV pad = sch.get_block("pad");
  sch.transform_layout(pad, BufferRole::kWrite, 0, "lambda n, c, h, w: (n, c // 4, h, w, c % 4)");
  EXPECT_NE(to_string(sch.func()).find("T.alloc_buffer((1, 2, 7, 7, 4), \"float32\")"), std::string::npos)
      << to_string(sch.func());
  expect_valid_schedule(sch, workload_func(w));
}

TEST(TransformLayout, Errors) {
  Schedule sch = schedule_of("matmul:M=4,N=8,K=6");
  BlockRV c = sch.get_block("C");
  BlockRV pack = sch.cache_read(c, 1, "global");
  PrimFunc before = sch.func();
  size_t trace_size = sch.trace().size();
  try {
    sch.transform_layout(c, BufferRole::kRead, 0, "lambda i, k: (k, i)");
    FAIL() << "expected a BadArgumentError";
  } catch (const BadArgumentError& e) {
    EXPECT_STREQ(e.what(), "transform_layout: buffer 'A' is a parameter of the function; its layout is the caller's");
  }
  try {
    sch.transform_layout(pack, BufferRole::kWrite, 0, "lambda k, j: (k + j, j)");
    FAIL() << "expected a LayoutError";
  } catch (const LayoutError& e) {
    EXPECT_STREQ(e.what(),
                 "transform_layout: index map of buffer 'B_global': output 0 ('k + j') is not an index, "
                 "'i // c', 'i % c' or '(i // c) % d' of one index");
  }
  EXPECT_THROW(sch.transform_layout(pack, BufferRole::kWrite, 0, "lambda k, j: (j % 4, k)"), LayoutError);
  EXPECT_THROW(sch.transform_layout(pack, BufferRole::kWrite, 0, "lambda k: (k,)"), BadArgumentError);
  EXPECT_THROW(sch.transform_layout(pack, BufferRole::kWrite, 0, "k, j: (j, k)"), BadArgumentError);
  EXPECT_THROW(sch.transform_layout(pack, BufferRole::kWrite, 1, "lambda k, j: (j, k)"), BadArgumentError);
  EXPECT_TRUE(sch.func().same_as(before));
  EXPECT_EQ(sch.trace().size(), trace_size);
}

}  // namespace
}  // namespace kiln
