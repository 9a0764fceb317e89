// compute_inline, reverse_compute_inline.
#include <gtest/gtest.h>

#include "schedule_harness.h"
#include "tir/parser/parser.h"
#include "tir/printer.h"

namespace kiln {
namespace {

using testing::expect_ir;
using testing::expect_valid_schedule;
using testing::workload_func;

const char* const kConv = "conv2d_nchw:N=1,C=2,H=5,W=5,K=2,R=3,S=3,stride=1,pad=1";
const char* const kDense = "dense:M=6,N=8,K=5,bias=1,act=relu";

// One stage of a 1-D test function: loop i<k> over n, block `name` with
// iter var v<k>.
std::string stage(int k, const std::string& name, int n, const std::string& reads, const std::string& writes,
                  const std::string& store) {
  const std::string i = "i" + std::to_string(k), v = "v" + std::to_string(k), ns = std::to_string(n);
  return "        for " + i + " in range(" + ns + "):\n            with T.block(\"" + name + "\"):\n                " +
         v + " = T.axis.spatial(" + ns + ", " + i + ")\n                T.reads(" + reads +
         ")\n                T.writes(" + writes + ")\n                " + store + "\n";
}

// A function of 1-D float32 buffers ("name:extent"), some of them
// allocated by the root block, made of `stages`.
PrimFunc chain(const std::vector<std::string>& params, const std::vector<std::string>& allocs,
               const std::vector<std::string>& stages) {
  auto split = [](const std::string& p) {
    size_t colon = p.find(':');
    return std::pair(p.substr(0, colon), "((" + p.substr(colon + 1) + ",), \"float32\")");
  };
  std::string text = "@T.prim_func\ndef chain(";
  for (size_t i = 0; i < params.size(); ++i) {
    auto [name, shape] = split(params[i]);
    text += (i ? ", " : "") + name + ": T.Buffer" + shape;
  }
  text += "):\n    with T.block(\"root\"):\n        T.reads()\n        T.writes()\n";
  for (const std::string& a : allocs) {
    auto [name, shape] = split(a);
    text += "        " + name + " = T.alloc_buffer" + shape + "\n";
  }
  for (const std::string& s : stages) text += s;
  return parse_prim_func(text);
}

Schedule schedule_of(const PrimFunc& f) { return Schedule(f, ScheduleOptions{1, /*verify_each_step=*/true}); }

// B = A * 2 feeding C (and whatever else a test adds).
std::string producer_b() { return stage(0, "B", 8, "A[v0]", "B[v0]", "B[v0] = A[v0] * T.float32(2)"); }

template <typename E, typename F>
void expect_error(F&& f, const std::string& message) {
  try {
    f();
    FAIL() << "expected an error: " << message;
  } catch (const E& e) {
    EXPECT_EQ(e.what(), message);
  }
}

// ---- compute_inline ----------------------------------------------------------

TEST(ComputeInline, ConvPadding) {
  Schedule sch = testing::schedule_of(kConv);
  sch.compute_inline(sch.get_block("pad"));
  expect_ir(sch.func(), R"(@T.prim_func
def conv2d_nchw(data: T.Buffer((1, 2, 5, 5), "float32"), kernel: T.Buffer((2, 2, 3, 3), "float32"), conv2d_nchw: T.Buffer((1, 2, 5, 5), "float32")):
    with T.block("root"):
        T.reads()
        T.writes()
        for i0, i1, i2, i3, rc, r, s in T.grid(1, 2, 5, 5, 2, 3, 3):
            with T.block("conv2d_nchw"):
                v_i0 = T.axis.spatial(1, i0)
                v_i1 = T.axis.spatial(2, i1)
                v_i2 = T.axis.spatial(5, i2)
                v_i3 = T.axis.spatial(5, i3)
                v_rc = T.axis.reduce(2, rc)
                v_r = T.axis.reduce(3, r)
                v_s = T.axis.reduce(3, s)
                T.reads(data[v_i0, v_rc, T.min(T.max(v_i2 + v_r - 1, 0), 4), T.min(T.max(v_i3 + v_s - 1, 0), 4)], kernel[v_i1, v_rc, v_r, v_s])
                T.writes(conv2d_nchw[v_i0, v_i1, v_i2, v_i3])
                with T.init():
                    conv2d_nchw[v_i0, v_i1, v_i2, v_i3] = T.float32(0)
                conv2d_nchw[v_i0, v_i1, v_i2, v_i3] = conv2d_nchw[v_i0, v_i1, v_i2, v_i3] + T.Select(v_i2 + v_r >= 1 and v_i2 + v_r < 6 and (v_i3 + v_s >= 1 and v_i3 + v_s < 6), data[v_i0, v_rc, T.min(T.max(v_i2 + v_r - 1, 0), 4), T.min(T.max(v_i3 + v_s - 1, 0), 4)], T.float32(0)) * kernel[v_i1, v_rc, v_r, v_s]
)");
  expect_valid_schedule(sch, workload_func(kConv));
}

TEST(ComputeInline, ConvPaddingThenTiled) {
  const char* w = "conv2d_nchw:N=1,C=3,H=7,W=6,K=4,R=3,S=3,stride=2,pad=1";
  Schedule sch = testing::schedule_of(w);
  sch.compute_inline(sch.get_block("pad"));
  BlockRV conv = sch.get_block("conv2d_nchw");
  auto loops = sch.get_loops(conv);
  auto ff = sch.split(loops[1], {kInfer, 2});
  sch.reorder({ff[0], loops[2], loops[4], ff[1]});
  sch.parallel(ff[0]);
  sch.vectorize(loops[3]);
  expect_valid_schedule(sch, workload_func(w));
}

TEST(ComputeInline, AfterComputeAtKeepsTheSharedLoop) {
  Schedule sch = testing::schedule_of(kConv);
  BlockRV pad = sch.get_block("pad");
  auto loops = sch.get_loops(sch.get_block("conv2d_nchw"));
  sch.compute_at(pad, loops[2]);
  sch.compute_inline(pad);
  std::string text = to_string(sch.func());
  EXPECT_EQ(text.find("ax0"), std::string::npos) << text;
  EXPECT_EQ(sch.get_loops(sch.get_block("conv2d_nchw")).size(), 7u);
  expect_valid_schedule(sch, workload_func(kConv));
}

TEST(ComputeInline, BiasIntoRelu) {
  Schedule sch = testing::schedule_of(kDense);
  sch.compute_inline(sch.get_block("bias_add"));
  expect_ir(sch.func(), R"(@T.prim_func
def dense(X: T.Buffer((6, 5), "float32"), W: T.Buffer((8, 5), "float32"), b: T.Buffer((8,), "float32"), relu: T.Buffer((6, 8), "float32")):
    with T.block("root"):
        T.reads()
        T.writes()
        dense = T.alloc_buffer((6, 8), "float32")
        for i0, i1, k in T.grid(6, 8, 5):
            with T.block("dense"):
                v_i0 = T.axis.spatial(6, i0)
                v_i1 = T.axis.spatial(8, i1)
                v_k = T.axis.reduce(5, k)
                T.reads(X[v_i0, v_k], W[v_i1, v_k])
                T.writes(dense[v_i0, v_i1])
                with T.init():
                    dense[v_i0, v_i1] = T.float32(0)
                dense[v_i0, v_i1] = dense[v_i0, v_i1] + X[v_i0, v_k] * W[v_i1, v_k]
        for i0_1, i1_1 in T.grid(6, 8):
            with T.block("relu"):
                v_i0_1 = T.axis.spatial(6, i0_1)
                v_i1_1 = T.axis.spatial(8, i1_1)
                T.reads(dense[v_i0_1, v_i1_1], b[v_i1_1])
                T.writes(relu[v_i0_1, v_i1_1])
                relu[v_i0_1, v_i1_1] = T.max(dense[v_i0_1, v_i1_1] + b[v_i1_1], T.float32(0))
)");
  expect_valid_schedule(sch, workload_func(kDense));
}

TEST(ComputeInline, TwoReadersAtShiftedIndices) {
  const PrimFunc f = chain({"A:8", "D:7", "E:8"}, {"B:8"},
                           {producer_b(), stage(1, "C", 7, "B[v1:v1 + 2]", "D[v1]", "D[v1] = B[v1] + B[v1 + 1]"),
                            stage(2, "E", 8, "B[v2]", "E[v2]", "E[v2] = B[v2] * B[v2]")});
  Schedule sch = schedule_of(f);
  sch.compute_inline(sch.get_block("B"));
  expect_ir(sch.func(), R"(@T.prim_func
def chain(A: T.Buffer((8,), "float32"), D: T.Buffer((7,), "float32"), E: T.Buffer((8,), "float32")):
    with T.block("root"):
        T.reads()
        T.writes()
        for i1 in range(7):
            with T.block("C"):
                v1 = T.axis.spatial(7, i1)
                T.reads(A[v1:v1 + 2])
                T.writes(D[v1])
                D[v1] = A[v1] * T.float32(2) + A[v1 + 1] * T.float32(2)
        for i2 in range(8):
            with T.block("E"):
                v2 = T.axis.spatial(8, i2)
                T.reads(A[v2])
                T.writes(E[v2])
                E[v2] = A[v2] * T.float32(2) * (A[v2] * T.float32(2))
)");
  expect_valid_schedule(sch, f);
}

TEST(ComputeInline, ReductionIsRefused) {
  Schedule sch = testing::schedule_of(kDense);
  expect_error<NotDataParallelError>([&] { sch.compute_inline(sch.get_block("dense")); },
                                     "compute_inline: block 'dense' is a reduction");
}

TEST(ComputeInline, OutputIsRefused) {
  Schedule sch = testing::schedule_of(kDense);
  expect_error<OutputBufferError>([&] { sch.compute_inline(sch.get_block("relu")); },
                                  "compute_inline: block 'relu' writes 'relu', a parameter of the function");
}

TEST(ComputeInline, StoreNotAtItsIterVarsIsRefused) {
  Schedule sch = schedule_of(chain({"A:8", "D:4"}, {"B:8"},
                                   {stage(0, "B", 4, "A[v0 * 2]", "B[v0 * 2]", "B[v0 * 2] = A[v0 * 2]"),
                                    stage(1, "C", 4, "B[v1 * 2]", "D[v1]", "D[v1] = B[v1 * 2]")}));
  expect_error<InlineBodyError>([&] { sch.compute_inline(sch.get_block("B")); },
                                "compute_inline: block 'B' does not store 'B' at its iter vars, each once");
}

TEST(ComputeInline, PredicateIsRefused) {
  Schedule sch = testing::schedule_of(kConv);
  BlockRV pad = sch.get_block("pad");
  sch.split(sch.get_loops(pad)[2], {kInfer, 2});
  expect_error<InlineBodyError>([&] { sch.compute_inline(pad); }, "compute_inline: block 'pad' runs under a predicate");
}

TEST(ComputeInline, SecondWriterIsRefused) {
  Schedule sch = testing::schedule_of("matmul:M=4,N=4,K=4");
  BlockRV c = sch.get_block("C");
  sch.cache_write(c, 0, "local");
  BlockRV init = sch.decompose_reduction(c, sch.get_loops(c)[2]);
  expect_error<NotSingleWriterError>([&] { sch.compute_inline(init); },
                                     "compute_inline: buffer 'C_local' is also written by block 'C'");
}

TEST(ComputeInline, NoReaderIsRefused) {
  Schedule sch =
      schedule_of(chain({"A:8", "D:8"}, {"B:8"}, {producer_b(), stage(1, "C", 8, "A[v1]", "D[v1]", "D[v1] = A[v1]")}));
  expect_error<NotFoundError>([&] { sch.compute_inline(sch.get_block("B")); },
                              "compute_inline: no block reads 'B', which block 'B' writes");
}

TEST(ComputeInline, InputOverwrittenLaterIsRefused) {
  Schedule sch = schedule_of(chain({"A:8", "D:8"}, {"B:8"},
                                   {producer_b(), stage(1, "W", 8, "", "A[v1]", "A[v1] = T.float32(0)"),
                                    stage(2, "C", 8, "B[v2]", "D[v2]", "D[v2] = B[v2]")}));
  expect_error<DependentLoopError>(
      [&] { sch.compute_inline(sch.get_block("B")); },
      "compute_inline: block 'W' writes 'A', which block 'B' reads, after the nest of block 'B' begins");
}

// ---- reverse_compute_inline --------------------------------------------------

TEST(ReverseComputeInline, ReluIntoBias) {
  Schedule sch = testing::schedule_of(kDense);
  sch.reverse_compute_inline(sch.get_block("relu"));
  expect_ir(sch.func(), R"(@T.prim_func
def dense(X: T.Buffer((6, 5), "float32"), W: T.Buffer((8, 5), "float32"), b: T.Buffer((8,), "float32"), relu: T.Buffer((6, 8), "float32")):
    with T.block("root"):
        T.reads()
        T.writes()
        dense = T.alloc_buffer((6, 8), "float32")
        for i0, i1, k in T.grid(6, 8, 5):
            with T.block("dense"):
                v_i0 = T.axis.spatial(6, i0)
                v_i1 = T.axis.spatial(8, i1)
                v_k = T.axis.reduce(5, k)
                T.reads(X[v_i0, v_k], W[v_i1, v_k])
                T.writes(dense[v_i0, v_i1])
                with T.init():
                    dense[v_i0, v_i1] = T.float32(0)
                dense[v_i0, v_i1] = dense[v_i0, v_i1] + X[v_i0, v_k] * W[v_i1, v_k]
        for i0_1, i1_1 in T.grid(6, 8):
            with T.block("bias_add"):
                v_i0_1 = T.axis.spatial(6, i0_1)
                v_i1_1 = T.axis.spatial(8, i1_1)
                T.reads(dense[v_i0_1, v_i1_1], b[v_i1_1])
                T.writes(relu[v_i0_1, v_i1_1])
                relu[v_i0_1, v_i1_1] = T.max(dense[v_i0_1, v_i1_1] + b[v_i1_1], T.float32(0))
)");
  expect_valid_schedule(sch, workload_func(kDense));
}

TEST(ReverseComputeInline, ReversedStore) {
  // The consumer may store anywhere; its iter var becomes the producer's.
  const PrimFunc f =
      chain({"A:8", "D:8"}, {"B:8"},
            {producer_b(), stage(1, "C", 8, "B[v1]", "D[7 - v1]", "D[7 - v1] = T.max(B[v1], T.float32(0))")});
  Schedule sch = schedule_of(f);
  sch.reverse_compute_inline(sch.get_block("C"));
  expect_ir(sch.func(), R"(@T.prim_func
def chain(A: T.Buffer((8,), "float32"), D: T.Buffer((8,), "float32")):
    with T.block("root"):
        T.reads()
        T.writes()
        for i0 in range(8):
            with T.block("B"):
                v0 = T.axis.spatial(8, i0)
                T.reads(A[v0])
                T.writes(D[7 - v0])
                D[7 - v0] = T.max(A[v0] * T.float32(2), T.float32(0))
)");
  expect_valid_schedule(sch, f);
}

TEST(ReverseComputeInline, AfterReverseComputeAtAndTiling) {
  Schedule sch = testing::schedule_of(kDense);
  BlockRV bias = sch.get_block("bias_add");
  auto loops = sch.get_loops(bias);
  auto j = sch.split(loops[1], {kInfer, 4});
  sch.reverse_compute_at(sch.get_block("relu"), j[0]);
  sch.reverse_compute_inline(sch.get_block("relu"));
  sch.vectorize(j[1]);
  sch.parallel(loops[0]);
  expect_valid_schedule(sch, workload_func(kDense));
}

TEST(ReverseComputeInline, ReductionProducerIsRefused) {
  Schedule sch = testing::schedule_of("dense:M=6,N=8,K=5,act=relu");
  expect_error<NotDataParallelError>([&] { sch.reverse_compute_inline(sch.get_block("relu")); },
                                     "reverse_compute_inline: block 'dense' is a reduction");
}

TEST(ReverseComputeInline, TwoProducersAreRefused) {
  Schedule sch = testing::schedule_of("softmax:M=4,N=8");
  expect_error<NotSingleWriterError>(
      [&] { sch.reverse_compute_inline(sch.get_block("softmax")); },
      "reverse_compute_inline: block 'softmax' reads the outputs of blocks 'softmax_exp' and 'softmax_sum'");
}

TEST(ReverseComputeInline, NoProducerIsRefused) {
  Schedule sch = testing::schedule_of("relu:M=4,N=4");
  expect_error<NotFoundError>([&] { sch.reverse_compute_inline(sch.get_block("relu")); },
                              "reverse_compute_inline: block 'relu' reads no buffer that another block writes");
}

TEST(ReverseComputeInline, OtherReaderIsRefused) {
  Schedule sch = schedule_of(chain({"A:8", "D:8", "E:8"}, {"B:8"},
                                   {producer_b(), stage(1, "C", 8, "B[v1]", "D[v1]", "D[v1] = B[v1] + T.float32(1)"),
                                    stage(2, "E", 8, "B[v2]", "E[v2]", "E[v2] = B[v2]")}));
  expect_error<NotSingleReaderError>([&] { sch.reverse_compute_inline(sch.get_block("C")); },
                                     "reverse_compute_inline: buffer 'B' is also read by block 'E'");
}

TEST(ReverseComputeInline, ParameterBetweenIsRefused) {
  Schedule sch = schedule_of(
      chain({"A:8", "B:8", "D:8"}, {}, {producer_b(), stage(1, "C", 8, "B[v1]", "D[v1]", "D[v1] = B[v1]")}));
  expect_error<OutputBufferError>([&] { sch.reverse_compute_inline(sch.get_block("C")); },
                                  "reverse_compute_inline: block 'B' writes 'B', a parameter of the function");
}

TEST(ReverseComputeInline, LoadsNotAtItsIterVarsAreRefused) {
  Schedule sch = schedule_of(chain(
      {"A:8", "D:7"}, {"B:8"}, {producer_b(), stage(1, "C", 7, "B[v1:v1 + 2]", "D[v1]", "D[v1] = B[v1] + B[v1 + 1]")}));
  expect_error<InlineBodyError>([&] { sch.reverse_compute_inline(sch.get_block("C")); },
                                "reverse_compute_inline: block 'C' does not load 'B' at its iter vars, each once");
}

TEST(ReverseComputeInline, OtherDomainIsRefused) {
  Schedule sch =
      schedule_of(chain({"A:8", "D:6"}, {"B:8"}, {producer_b(), stage(1, "C", 6, "B[v1]", "D[v1]", "D[v1] = B[v1]")}));
  expect_error<InlineBodyError>(
      [&] { sch.reverse_compute_inline(sch.get_block("C")); },
      "reverse_compute_inline: block 'C' ranges over another part of 'B' than block 'B' writes in dimension 0");
}

TEST(ReverseComputeInline, OutputUsedBetweenIsRefused) {
  Schedule sch = schedule_of(chain({"A:8", "D:8", "E:8"}, {"B:8"},
                                   {producer_b(), stage(1, "Q", 8, "D[v1]", "E[v1]", "E[v1] = D[v1]"),
                                    stage(2, "C", 8, "B[v2]", "D[v2]", "D[v2] = B[v2]")}));
  expect_error<DependentLoopError>(
      [&] { sch.reverse_compute_inline(sch.get_block("C")); },
      "reverse_compute_inline: block 'Q' uses 'D', which block 'C' writes, before blocks 'B' and 'C' are done");
}

}  // namespace
}  // namespace kiln
