// Building, running and timing a kernel the way every measurement does:
// build()/build_artifact()/load_artifact(), arguments from specs, the
// checked comparison and measure_kernel's timing rules.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "core/error.h"
#include "ops/winograd.h"
#include "ops/workload.h"
#include "targets/build.h"
#include "targets/lower.h"
#include "targets/runtime/arguments.h"
#include "targets/runtime/check.h"
#include "targets/runtime/timing.h"

namespace kiln {
namespace {

PrimFunc workload(const std::string& w) { return ops::build_workload(ops::parse_workload(w)); }

// A workload's default program built for the host, with its arguments.
struct HostKernel {
  explicit HostKernel(const std::string& w)
      : func(workload(w)), kernel(build(lower(func, Target::host()), Target::host())), args(make_arguments(func, 1)) {}
  PrimFunc func;
  std::unique_ptr<CompiledKernel> kernel;
  std::vector<NDArray> args;
};

TEST(Arguments, SpecsNameEveryParameterAndTheOutput) {
  std::vector<ArgSpec> specs = arg_specs(workload("matmul:M=2,N=3,K=4"));
  ASSERT_EQ(specs.size(), 3u);
  EXPECT_EQ(specs[0].shape, (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(specs[1].shape, (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(specs[2].shape, (std::vector<int64_t>{2, 3}));
  EXPECT_FALSE(specs[0].is_output);
  EXPECT_TRUE(specs[2].is_output);
  EXPECT_EQ(specs[2].numel(), 6);
}

TEST(Arguments, TheSameSpecsAndSeedGiveTheSameArrays) {
  std::vector<ArgSpec> specs = arg_specs(workload("matmul:M=8,N=8,K=8"));
  std::vector<NDArray> a = make_arguments(specs, 5), b = make_arguments(specs, 5), c = make_arguments(specs, 6);
  EXPECT_EQ(max_relative_error(a[0], b[0]), 0);
  EXPECT_GT(max_relative_error(a[0], c[0]), 0);
  EXPECT_NE(max_relative_error(a[0], a[1]), 0) << "each argument has its own seed";
  for (int64_t i = 0; i < a[2].numel(); ++i) ASSERT_EQ(a[2].get(i), 0) << "the output starts zeroed";
}

TEST(Check, PoisonFailsTheComparisonEverywhere) {
  NDArray want(DataType::Float32(), {4});
  NDArray got = want.copy();
  EXPECT_EQ(max_relative_error(got, want), 0);
  poison(got);
  EXPECT_TRUE(std::isinf(max_relative_error(got, want)));
  got = want.copy();
  got.set(2, 2.0);  // |2 - 0| / max(0, 1)
  EXPECT_DOUBLE_EQ(max_relative_error(got, want), 2.0);
  NDArray ints(DataType::Int(32), {3});
  poison(ints);
  EXPECT_EQ(ints.data_as<int32_t>()[1], 0x5A5A5A5A);
}

TEST(Check, TheToleranceGrowsWithTheLongestReduction) {
  auto f = [](const char* w) { return ops::build_workload(ops::parse_workload(w)); };
  EXPECT_DOUBLE_EQ(check_tolerance(f("matmul:M=8,N=8,K=64")), 1e-4);
  EXPECT_DOUBLE_EQ(check_tolerance(f("matmul:M=8,N=8,K=1024")), 1e-4);
  EXPECT_DOUBLE_EQ(check_tolerance(f("matmul:M=8,N=8,K=4096")), 4e-4);
  // 65536 terms: 64 times the room. A sum factored into partial sums
  // legitimately differs from the sequential one by 1.6e-4 here.
  EXPECT_DOUBLE_EQ(check_tolerance(f("reduce_sum:M=2,N=65536")), 6.4e-3);
  // conv2d's reduction is its channels times its window: 512 x 3 x 3.
  // Correct candidates of resnet's 7x7 layer differed from the sequential
  // sum by up to 1.3e-4.
  EXPECT_DOUBLE_EQ(check_tolerance(f("conv2d_nchw:N=1,C=512,H=7,W=7,K=8,R=3,S=3,stride=1,pad=1")), 1e-4 * 4608 / 1024);
  EXPECT_EQ(check_tolerance(f("matmul:M=8,N=8,K=65536,dtype=int32")), 0) << "integers are exact";
}

TEST(Check, ABlockThatRoundsMoreDeclaresItsTolerance) {
  auto f = [](const char* w) { return ops::build_workload(ops::parse_workload(w)); };
  // Winograd's F(4,3) declares its rounding on its output stage; F(2,3)
  // rounds as a reordered sum does and declares nothing.
  EXPECT_DOUBLE_EQ(check_tolerance(f("conv2d_winograd_nchwc:N=1,C=16,H=8,W=8,K=16,pad=1,cb=16,kb=16,m=4")),
                   ops::kF4CheckTolerance);
  EXPECT_DOUBLE_EQ(check_tolerance(f("conv2d_winograd_nchwc:N=1,C=16,H=8,W=8,K=16,pad=1,cb=16,kb=16,m=2")), 1e-4);
}

TEST(Build, AnArtifactLoadedElsewhereComputesWhatTheJitDoes) {
  PrimFunc f = workload("matmul:M=16,N=8,K=32");
  Target t = Target::host();
  PrimFunc lowered = lower(f, t);
  std::unique_ptr<CompiledKernel> jit = build(lowered, t);
  Artifact a = build_artifact(lowered, t);
  EXPECT_EQ(a.format, "shared_library");
  EXPECT_EQ(a.kernel_name, f.name());
  EXPECT_EQ(a.target, t.str());
  std::unique_ptr<CompiledKernel> loaded = load_artifact(a, std::filesystem::temp_directory_path().string());

  ThreadPool pool(2);
  std::vector<NDArray> x = make_arguments(f, 3), y = make_arguments(f, 3);
  run_kernel(*jit, x, pool);
  run_kernel(*loaded, y, pool);
  EXPECT_EQ(max_relative_error(y.back(), x.back()), 0);
  EXPECT_LE(max_relative_error(x.back(), reference_outputs(f, make_arguments(f, 3)).back()), 1e-4);
}

TEST(Build, RefusesWhatItCannotBuildOrLoad) {
  PrimFunc lowered = lower(workload("add:M=2,N=2"), Target::host());
  EXPECT_THROW(build(lowered, Target::parse("cuda -arch=sm_90")), Error);
  Artifact bad{"ptx", "", "add", "cuda"};
  EXPECT_THROW(load_artifact(bad, "/tmp"), Error);
  Artifact garbage{"shared_library", "not an ELF file", "add", Target::host().str()};
  EXPECT_THROW(load_artifact(garbage, "/tmp"), Error);
}

TEST(Timing, MinRepeatMsRaisesNumberUntilARepeatIsLongEnough) {
  HostKernel h("add:M=4,N=4");
  ThreadPool pool(1);
  TimingOptions o;
  o.repeat = 4;
  Timing plain = measure_kernel(*h.kernel, h.args, pool, o);
  EXPECT_EQ(plain.number, 1);
  EXPECT_EQ(plain.ms_per_run.size(), 4u);

  o.min_repeat_ms = 5;
  o.flush_cache = true;
  Timing raised = measure_kernel(*h.kernel, h.args, pool, o);
  EXPECT_GT(raised.number, 10);
  ASSERT_EQ(raised.ms_per_run.size(), 4u);
  for (double ms : raised.ms_per_run) {
    EXPECT_GT(ms, 0);
    EXPECT_LT(ms, 5.0) << "a sample is one run's time, not the repeat's";
  }
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 2, 3}), 2.5);
}

TEST(Timing, ColdArgumentsAreEvictedByPositionAndAnUnknownOneIsNamed) {
  HostKernel h("add:M=4,N=4");
  ThreadPool pool(1);
  TimingOptions o;
  o.repeat = 3;
  EXPECT_FALSE(o.evicts());
  o.cold_args = {0, 1};
  EXPECT_TRUE(o.evicts());
  Timing cold = measure_kernel(*h.kernel, h.args, pool, o);
  ASSERT_EQ(cold.ms_per_run.size(), 3u);
  for (double ms : cold.ms_per_run) EXPECT_GT(ms, 0);
  o.cold_args = {3};
  try {
    measure_kernel(*h.kernel, h.args, pool, o);
    ADD_FAILURE() << "an argument the kernel lacks was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cold argument 3 of a kernel with 3 arguments"), std::string::npos) << e.what();
  }
}

// Swept rather than flushed (a model's weights, as the rest of an inference
// leaves them): the samples stay single runs, the sweep's reads and the
// warm arguments' stores leave every argument as it was, and a cold
// argument the kernel lacks is named as before.
TEST(Timing, ColdArgumentsSweptOutKeepSingleRunsAndTheOutputAndNameAnUnknownOne) {
  HostKernel h("add:M=64,N=64");
  ThreadPool pool(2);
  TimingOptions o;
  o.repeat = 3;
  o.cold_args = {1};
  o.cold_sweep_bytes = int64_t{4} << 20;
  const float* a = static_cast<const float*>(h.args[0].data());
  const float* b = static_cast<const float*>(h.args[1].data());
  const float* c = static_cast<const float*>(h.args[2].data());
  const std::vector<float> a_before(a, a + 64 * 64), b_before(b, b + 64 * 64);
  Timing swept = measure_kernel(*h.kernel, h.args, pool, o);
  EXPECT_EQ(swept.number, 1);
  ASSERT_EQ(swept.ms_per_run.size(), 3u);
  for (double ms : swept.ms_per_run) EXPECT_GT(ms, 0);
  EXPECT_EQ(std::vector<float>(a, a + 64 * 64), a_before) << "the warm input, written back, is unchanged";
  EXPECT_EQ(std::vector<float>(b, b + 64 * 64), b_before) << "the cold input is unchanged";
  for (int i = 0; i < 64 * 64; i += 97) EXPECT_FLOAT_EQ(c[i], a[i] + b[i]) << i;
  o.cold_sweep_bytes = kMaxColdSweepBytes + 1;  // flushed instead
  EXPECT_EQ(measure_kernel(*h.kernel, h.args, pool, o).ms_per_run.size(), 3u);
  o.cold_args = {5};
  o.cold_sweep_bytes = int64_t{1} << 20;
  try {
    measure_kernel(*h.kernel, h.args, pool, o);
    ADD_FAILURE() << "an argument the kernel lacks was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cold argument 5 of a kernel with 3 arguments"), std::string::npos) << e.what();
  }
}

TEST(TargetFit, KernelsRunWhereTheirFeaturesAre) {
  Target host = Target::host();
  EXPECT_EQ(host.cannot_run_on(host), "");
  Target no512 = Target::parse("llvm -mattr=-avx512f");
  Target skx = Target::parse("llvm -mcpu=skylake-avx512");
  EXPECT_EQ(no512.cannot_run_on(host), "");
  std::string why = skx.cannot_run_on(no512);
  EXPECT_NE(why.find("avx512f"), std::string::npos) << why;
  EXPECT_EQ(why.find("prefer-256-bit"), std::string::npos) << "tuning flags are no CPU's to lack: " << why;
  EXPECT_NE(Target::parse("llvm -mtriple=aarch64-linux-gnu").cannot_run_on(host).find("aarch64"), std::string::npos);
  EXPECT_NE(Target::parse("cuda -arch=sm_90").cannot_run_on(host), "");
  std::vector<std::string> isa = skx.isa_features();
  EXPECT_TRUE(std::binary_search(isa.begin(), isa.end(), "avx512f"));
  EXPECT_FALSE(std::binary_search(isa.begin(), isa.end(), "prefer-256-bit"));
}

}  // namespace
}  // namespace kiln
