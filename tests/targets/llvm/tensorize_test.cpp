// Tensorized nests in LLVM code: each intrinsic's instructions, run against
// the interpreter where this CPU has them and compiled for a CPU that has
// them where it does not.
#include <gtest/gtest.h>

#include "ops/workload.h"
#include "support/tensorized_matmul.h"
#include "targets/build.h"
#include "targets/codegen/llvm/build_llvm.h"
#include "targets/lower.h"
#include "targets/runtime/check.h"
#include "targets/runtime/thread_pool.h"
#include "targets/runtime/timing.h"
#include "tir/tensor_intrin.h"

namespace kiln {
namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A target that has the intrinsic, and the instruction its code must show.
struct Expected {
  const char* target;
  const char* instruction;
};

Expected expected(const std::string& intrin) {
  if (intrin == "x86_vnni_u8s8s32_16x4") return {"llvm -mcpu=sapphirerapids", "vpdpbusd\t%zmm"};
  // Alder Lake has AVX-VNNI and no AVX-512: the VEX encoding.
  if (intrin == "x86_vnni_u8s8s32_8x4") return {"llvm -mcpu=alderlake", "{vex}\tvpdpbusd\t%ymm"};
  if (intrin == "x86_avx2_u8s8s32_8x4") return {"llvm -mcpu=haswell", "vpmaddwd\t%ymm"};
  if (intrin == "x86_avx2_u8s7s32_8x4") return {"llvm -mcpu=haswell", "vpmaddubsw\t%ymm"};
  // Run under qemu by tests/cross/aarch64_test.cpp.
  if (intrin == "arm_neon_usdot_u8s8s32_4x4") return {"llvm -mtriple=aarch64-linux-gnu -mattr=+i8mm", "usdot\tv"};
  if (intrin == "arm_neon_udot_u8s8s32_4x4") return {"llvm -mtriple=aarch64-linux-gnu -mattr=+dotprod", "udot\tv"};
  ADD_FAILURE() << "no expectation for " << intrin;
  return {"", ""};
}

bool host_has(const TensorIntrin& t) {
  const Target host = Target::parse("llvm");
  return available_with(t, [&](const std::string& f) { return host.has_feature(f); });
}

PrimFunc workload_func(const std::string& w) { return ops::build_workload(ops::parse_workload(w)); }

// `scheduled` computes exactly what `original` does, in the interpreter and
// as this CPU's code, on bytes over their whole range.
void expect_exact(const PrimFunc& original, const PrimFunc& scheduled) {
  const Target host = Target::parse("llvm -num-cores=2");
  std::vector<NDArray> args = testing::full_range_int8_arguments(original);
  const NDArray want = reference_outputs(original, args).back().copy();
  EXPECT_EQ(max_relative_error(reference_outputs(scheduled, args).back(), want), 0);
  ThreadPool pool(1);
  run_kernel(*build(lower(scheduled, host), host), args, pool);
  EXPECT_EQ(max_relative_error(args.back(), want), 0);
}

class TensorizeCodegen : public ::testing::TestWithParam<std::string> {};

TEST_P(TensorizeCodegen, EmitsTheInstructionAndComputesTheProduct) {
  const TensorIntrin& t = *find_tensor_intrin(GetParam());
  const int64_t lanes = *as_const_int(t.desc.params()[2].shape()[0]);
  // Two column panels, three steps of k, a row count no tile divides; the
  // weights of 7 bits where the intrinsic needs them (kSmallWeightsAnn).
  const bool small = !t.needs_annotation.empty();
  const std::string w =
      std::string(small ? "matmul_u8s7s32" : "matmul_u8s8s32") + ":M=3,N=" + std::to_string(2 * lanes) + ",K=12";
  const PrimFunc original = workload_func(w);
  Schedule sch(original);
  sch.tensorize(testing::pack_for_dot_product(sch, lanes), t.name);

  const Expected e = expected(t.name);
  const Target named = Target::parse(e.target);
  const std::string asm_text = emit_assembly(lower(sch.func(), named), named);
  EXPECT_TRUE(contains(asm_text, e.instruction)) << asm_text;

  if (!host_has(t)) GTEST_SKIP() << "this CPU lacks " << t.name << "; its assembly was checked for " << e.target;
  const Target host = Target::parse("llvm -num-cores=2");
  std::vector<NDArray> args = testing::full_range_int8_arguments(original, small ? -64 : -128, small ? 64 : 127);
  const NDArray want = reference_outputs(original, args).back().copy();
  auto kernel = build(lower(sch.func(), host), host);
  for (int threads : {1, 2}) {
    ThreadPool pool(threads);
    run_kernel(*kernel, args, pool);
    EXPECT_EQ(max_relative_error(args.back(), want), 0) << t.name << " on " << threads << " threads";
  }
}

INSTANTIATE_TEST_SUITE_P(Intrinsics, TensorizeCodegen,
                         ::testing::Values("x86_vnni_u8s8s32_16x4", "x86_vnni_u8s8s32_8x4", "x86_avx2_u8s7s32_8x4",
                                           "x86_avx2_u8s8s32_8x4", "arm_neon_usdot_u8s8s32_4x4",
                                           "arm_neon_udot_u8s8s32_4x4"));

// Why the 7-bit form asks for its weights' range: given weights over the
// whole byte, two products of 255 by -128 leave the int16 and saturate,
// and the result is not the product. (The interpreter runs the description,
// which does not saturate.)
TEST(TensorizeCodegen, The7BitFormSaturatesOnWholeByteWeights) {
  const TensorIntrin& t = *find_tensor_intrin("x86_avx2_u8s7s32_8x4");
  if (!host_has(t)) GTEST_SKIP() << "this CPU lacks AVX2";
  const PrimFunc original = workload_func("matmul_u8s7s32:M=3,N=16,K=12");
  Schedule sch(original);
  sch.tensorize(testing::pack_for_dot_product(sch, 8), t.name);
  const Target host = Target::parse("llvm -num-cores=2");
  std::vector<NDArray> args = testing::full_range_int8_arguments(original);
  // Every weight -128 and every byte of data 255: each pair sums to -65280.
  args[0].fill_random(1, 255, 255);
  args[1].fill_random(1, -128, -128);
  const NDArray want = reference_outputs(original, args).back().copy();
  ThreadPool pool(1);
  run_kernel(*build(lower(sch.func(), host), host), args, pool);
  EXPECT_GT(max_relative_error(args.back(), want), 0.4);
}

TEST(TensorizeCodegen, APartialTileOfRowsGuardsTheNest) {
  // Five rows in tiles of three: the last tile's third row does not exist,
  // and its nest must not run (C has no row for it).
  const std::string w = "matmul_u8s8s32:M=5,N=16,K=8";
  const PrimFunc original = workload_func(w);
  Schedule sch(original);
  LoopRV j = testing::pack_for_dot_product(sch, 8);
  sch.split(sch.get_loops(sch.get_block("C"))[0], {kInfer, 3});
  sch.tensorize(j, "x86_avx2_u8s8s32_8x4");
  expect_exact(original, sch.func());
}

TEST(TensorizeCodegen, APaddedInputGuardsTheNestWhereItIsZero) {
  // A 3x3 convolution with its padding inlined: each byte read under
  // T.Select(inside the image, x, 0), the condition a function of the
  // output pixel and the tap, outside the intrinsic's loops; the nest runs
  // only inside the image.
  const std::string w = "conv2d_nchwc_u8s8s32:N=1,C=16,H=5,W=5,K=8,R=3,S=3,stride=1,pad=1,cb=8,kb=8";
  const PrimFunc original = workload_func(w);
  Schedule sch(original);
  sch.compute_inline(sch.get_block("pad"));
  // The weights are in the intrinsic's layout already: no copy.
  BlockRV conv = sch.get_block("conv2d_nchwc");
  std::vector<LoopRV> l = sch.get_loops(conv);  // n, ko, p, q, ki, rco, r, s, rci
  std::vector<LoopRV> rci = sch.split(l[8], {kInfer, 4});
  sch.reorder({l[0], l[1], l[2], l[3], l[5], l[6], l[7], rci[0], l[4], rci[1]});
  sch.decompose_reduction(conv, l[5]);
  sch.tensorize(l[4], "x86_avx2_u8s8s32_8x4");
  expect_exact(original, sch.func());
}

TEST(TensorizeCodegenErrors, ATargetWithoutTheInstructionsSaysSo) {
  Schedule sch(workload_func("matmul_u8s8s32:M=2,N=16,K=8"));
  sch.tensorize(testing::pack_for_dot_product(sch, 16), "x86_vnni_u8s8s32_16x4");
  const Target haswell = Target::parse("llvm -mcpu=haswell");
  try {
    emit_assembly(lower(sch.func(), haswell), haswell);
    FAIL() << "expected kiln::Error";
  } catch (const InternalError& e) {
    FAIL() << "an internal error: " << e.what();
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "tensor intrinsic x86_vnni_u8s8s32_16x4 needs avx512vnni, which the target llvm "
                                   "-mcpu=haswell"))
        << e.what();
  }
}

}  // namespace
}  // namespace kiln
