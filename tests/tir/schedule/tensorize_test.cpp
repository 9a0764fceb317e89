// tensorize: a loop nest matched against a tensor intrinsic's description
// and marked to be computed by it; the nest itself stays.
#include <gtest/gtest.h>

#include "schedule_harness.h"
#include "support/tensorized_matmul.h"
#include "targets/runtime/arguments.h"
#include "targets/runtime/check.h"
#include "tir/printer.h"
#include "tir/tensor_intrin.h"

namespace kiln {
namespace {

using testing::expect_ir;
using testing::expect_trace_roundtrip;
using testing::schedule_of;
using testing::workload_func;

// The message of the E that fn throws.
template <typename E>
std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const E& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Tensorize, MarksTheNestAndKeepsIt) {
  const char* w = "matmul_u8s8s32:M=2,N=16,K=8";
  Schedule sch = schedule_of(w);
  sch.tensorize(testing::pack_for_dot_product(sch, 16), "x86_vnni_u8s8s32_16x4");
  expect_ir(sch.func(), R"(@T.prim_func
def matmul_u8s8s32(A: T.Buffer((2, 8), "uint8"), B: T.Buffer((8, 16), "int8"), C: T.Buffer((2, 16), "int32")):
    with T.block("root"):
        T.reads()
        T.writes()
        B_global = T.alloc_buffer((1, 2, 16, 4), "int8")
        for ax0, ax1 in T.grid(8, 16):
            with T.block("B_global"):
                v0 = T.axis.spatial(8, ax0)
                v1 = T.axis.spatial(16, ax1)
                T.reads(B[v0, v1])
                T.writes(B_global[v1 // 16, v0 // 4, v1 % 16, v0 % 4])
                B_global[v1 // 16, v0 // 4, v1 % 16, v0 % 4] = B[v0, v1]
        for i0, i1_0 in T.grid(2, 1):
            for i1_1_init in range(16):
                with T.block("C_init"):
                    v_i0_init = T.axis.spatial(2, i0)
                    v_i1_init = T.axis.spatial(16, i1_1_init)
                    T.reads()
                    T.writes(C[v_i0_init, v_i1_init])
                    C[v_i0_init, v_i1_init] = 0
            for k_0 in range(2):
                for i1_1 in T.serial(16, annotations={"kiln.tensorize": "x86_vnni_u8s8s32_16x4"}):
                    for k_1 in range(4):
                        with T.block("C"):
                            v_i0 = T.axis.spatial(2, i0)
                            v_i1 = T.axis.spatial(16, i1_1)
                            v_k = T.axis.reduce(8, k_0 * 4 + k_1)
                            T.reads(C[v_i0, v_i1], A[v_i0, v_k], B_global[v_i1 // 16, v_k // 4, v_i1 % 16, v_k % 4])
                            T.writes(C[v_i0, v_i1])
                            C[v_i0, v_i1] = C[v_i0, v_i1] + T.Cast("int32", A[v_i0, v_k]) * T.Cast("int32", B_global[v_i1 // 16, v_k // 4, v_i1 % 16, v_k % 4])
)");
  expect_trace_roundtrip(sch, workload_func(w));
}

TEST(Tensorize, TheInterpreterRunsTheDescription) {
  // Bytes over their whole range: a product of 255 and -128.
  for (const TensorIntrin& t : tensor_intrins()) {
    const int64_t lanes = *as_const_int(t.desc.params()[2].shape()[0]);
    const std::string w = "matmul_u8s8s32:M=3,N=" + std::to_string(2 * lanes) + ",K=12";
    Schedule sch = schedule_of(w);
    sch.tensorize(testing::pack_for_dot_product(sch, lanes), t.name);
    const std::vector<NDArray> in = testing::full_range_int8_arguments(workload_func(w));
    const NDArray want = reference_outputs(workload_func(w), in).back().copy();
    EXPECT_EQ(max_relative_error(reference_outputs(sch.func(), in).back(), want), 0) << t.name;
  }
}

TEST(Tensorize, Errors) {
  const char* w = "matmul_u8s8s32:M=2,N=32,K=8";
  {
    Schedule sch = schedule_of(w);
    LoopRV j = testing::pack_for_dot_product(sch, 16);
    EXPECT_EQ(error_of<NotFoundError>([&] { sch.tensorize(j, "x86_vnni"); }),
              "tensorize: no tensor intrinsic 'x86_vnni' (known: " + tensor_intrin_names() + ")");
    // The intrinsic's 8 lanes on a nest of 16.
    EXPECT_EQ(error_of<TensorizeMismatchError>([&] { sch.tensorize(j, "x86_vnni_u8s8s32_8x4"); }),
              "tensorize: loop 'i1_1' is not x86_vnni_u8s8s32_8x4: loop 'i1_1' runs over [0, 0 + 16), the "
              "intrinsic's loop 'i' over [0, 8)");
    // One loop too far in.
    LoopRV k = sch.get_loops(sch.get_block("C")).back();
    EXPECT_EQ(error_of<TensorizeMismatchError>([&] { sch.tensorize(k, "x86_vnni_u8s8s32_16x4"); }),
              "tensorize: loop 'k_1' is not x86_vnni_u8s8s32_16x4: loop 'k_1' has 1 loops under it down to the "
              "store, the intrinsic 2");
    sch.unroll(k);
    EXPECT_EQ(error_of<TensorizeMismatchError>([&] { sch.tensorize(j, "x86_vnni_u8s8s32_16x4"); }),
              "tensorize: loop 'k_1' under 'i1_1' is not serial (unroll)");
  }
  {
    // A predicate on the intrinsic's own loops: 24 columns in tiles of 16.
    Schedule sch = schedule_of("matmul_u8s8s32:M=2,N=24,K=8");
    BlockRV c = sch.get_block("C");
    BlockRV pack = sch.cache_read(c, 1, "global");
    sch.transform_layout(pack, BufferRole::kWrite, 0, "lambda k, j: (j // 8, k // 4, j % 8, k % 4)");
    auto loops = sch.get_loops(c);
    auto j = sch.split(loops[1], {kInfer, 16});
    auto k = sch.split(loops[2], {kInfer, 4});
    sch.reorder({loops[0], j[0], k[0], j[1], k[1]});
    sch.decompose_reduction(c, k[0]);
    EXPECT_EQ(error_of<TensorizeMismatchError>([&] { sch.tensorize(j[1], "x86_vnni_u8s8s32_16x4"); }),
              "tensorize: loop 'i1_1' is not x86_vnni_u8s8s32_16x4: block 'C' runs under the predicate i1_0 * 16 + "
              "i1_1 < 24, which depends on the intrinsic's loops");
  }
  {
    // B as it comes, [K, N]: a column's four bytes lie N apart.
    Schedule sch = schedule_of(w);
    BlockRV c = sch.get_block("C");
    auto loops = sch.get_loops(c);
    auto j = sch.split(loops[1], {kInfer, 16});
    auto k = sch.split(loops[2], {kInfer, 4});
    sch.reorder({loops[0], j[0], k[0], j[1], k[1]});
    EXPECT_EQ(error_of<TensorizeMismatchError>([&] { sch.tensorize(j[1], "x86_vnni_u8s8s32_16x4"); }),
              "tensorize: loop 'i1_1' is not x86_vnni_u8s8s32_16x4: block 'C' still has its init "
              "(decompose_reduction first)");
    sch.decompose_reduction(c, k[0]);
    EXPECT_EQ(error_of<TensorizeMismatchError>([&] { sch.tensorize(j[1], "x86_vnni_u8s8s32_16x4"); }),
              "tensorize: loop 'i1_1' is not x86_vnni_u8s8s32_16x4: a load of 'B' moves by (1, 32) elements along "
              "the loops, the intrinsic's B by (4, 1)");
  }
  {
    // A float32 product is not an int8 dot product.
    Schedule sch = schedule_of("matmul:M=2,N=16,K=8");
    BlockRV c = sch.get_block("C");
    auto loops = sch.get_loops(c);
    auto k = sch.split(loops[2], {kInfer, 4});
    sch.reorder({k[0], loops[1]});
    sch.decompose_reduction(c, k[0]);
    EXPECT_EQ(error_of<TensorizeMismatchError>([&] { sch.tensorize(loops[1], "x86_vnni_u8s8s32_16x4"); }),
              "tensorize: loop 'i1' is not x86_vnni_u8s8s32_16x4: the store computes T.Var(\"operand1\", \"float32\") "
              "+ T.Var(\"operand2\", \"float32\") * T.Var(\"operand3\", \"float32\"), the intrinsic operand1 + "
              "T.Cast(\"int32\", T.Var(\"operand2\", \"uint8\")) * T.Cast(\"int32\", T.Var(\"operand3\", \"int8\")) "
              "(operands are loads, in order)");
  }
}

}  // namespace
}  // namespace kiln
