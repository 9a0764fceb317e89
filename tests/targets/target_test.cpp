// Target strings: parsing, the canonical form, and one test per user error.
#include <gtest/gtest.h>

#include "support/error_of.h"

#include <thread>

#include "core/error.h"
#include "targets/target.h"

namespace kiln {
namespace {

std::string error_of(const std::string& s) { return kiln::testing::error_of([&] { Target::parse(s); }); }

TEST(Target, HostResolvesCpuAndCores) {
  Target t = Target::parse("llvm");
  EXPECT_EQ(t.kind(), "llvm");
  EXPECT_TRUE(t.is_cpu());
  EXPECT_FALSE(t.mcpu().empty());
  EXPECT_NE(t.mcpu(), "native");
  EXPECT_EQ(t.num_cores(), static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  EXPECT_EQ(Target::host(), t);
  // -mcpu=native is the same machine.
  EXPECT_EQ(Target::parse("llvm -mcpu=native"), t);
}

TEST(Target, NamedCpuWithOptions) {
  Target t = Target::parse("llvm  -mcpu=skylake-avx512 -num-cores=3");
  EXPECT_EQ(t.mcpu(), "skylake-avx512");
  EXPECT_EQ(t.num_cores(), 3);
  EXPECT_TRUE(t.mattr().empty());
  EXPECT_TRUE(t.has_feature("avx512f"));
  EXPECT_TRUE(t.has_feature("avx2"));  // implied features count
  EXPECT_EQ(t.str(), "llvm -mcpu=skylake-avx512 -num-cores=3");
}

TEST(Target, CanonicalStringRoundTrips) {
  for (const char* s : {"llvm", "llvm -num-cores=2", "llvm -mcpu=haswell -mattr=-fma,+avx2 -num-cores=1",
                        "llvm -mcpu=native -mattr=-avx512f", "llvm -mtriple=aarch64-linux-gnu -mcpu=neoverse-v1",
                        "llvm -fp-contract=off -num-cores=4", "llvm -fp-contract=on",
                        "cuda -arch=sm_90", "cuda", "opencl"}) {
    SCOPED_TRACE(s);
    Target t = Target::parse(s);
    Target again = Target::parse(t.str());
    EXPECT_EQ(again.str(), t.str());
    EXPECT_EQ(again.mcpu(), t.mcpu());
    EXPECT_EQ(again.mattr(), t.mattr());
    EXPECT_EQ(again.num_cores(), t.num_cores());
    EXPECT_EQ(again.fp_contract(), t.fp_contract());
  }
  EXPECT_TRUE(Target::parse("llvm").fp_contract());
  Target exact = Target::parse("llvm -mcpu=haswell -fp-contract=off -num-cores=4");
  EXPECT_FALSE(exact.fp_contract());
  EXPECT_EQ(exact.str(), "llvm -mcpu=haswell -num-cores=4 -fp-contract=off");
  // The default is not printed: "on" and nothing are the same target.
  EXPECT_EQ(Target::parse("llvm -fp-contract=on"), Target::parse("llvm"));
}

TEST(Target, MattrIsAppliedInOrder) {
  Target t = Target::parse("llvm -mcpu=skylake-avx512 -mattr=-avx512f");
  EXPECT_FALSE(t.has_feature("avx512f"));
  EXPECT_FALSE(t.has_feature("avx512bw"));  // depends on avx512f
  EXPECT_TRUE(t.has_feature("avx2"));
  EXPECT_EQ(t.mattr(), std::vector<std::string>{"-avx512f"});
  EXPECT_EQ(t.llvm_features(), "-avx512f");
  Target host_minus = Target::parse("llvm -mattr=-avx512f");
  EXPECT_FALSE(host_minus.has_feature("avx512f"));
  EXPECT_EQ(host_minus.mattr().back(), "-avx512f");
}

TEST(Target, VectorWidthFollowsFeatures) {
  Target avx512 = Target::parse("llvm -mcpu=skylake-avx512");
  EXPECT_EQ(avx512.vector_width_bits(DataType::Float32()), 512);
  EXPECT_EQ(avx512.vector_lanes(DataType::Float32()), 16);
  EXPECT_EQ(avx512.vector_lanes(DataType::Int(8)), 64);
  Target avx2 = Target::parse("llvm -mcpu=haswell");
  EXPECT_EQ(avx2.vector_width_bits(DataType::Float32()), 256);
  EXPECT_EQ(avx2.vector_lanes(DataType::Float(64)), 4);
  Target sse = Target::parse("llvm -mcpu=x86-64");
  EXPECT_EQ(sse.vector_width_bits(DataType::Float32()), 128);
  // AVX without AVX2: wide floats, narrow integers.
  Target sandy = Target::parse("llvm -mcpu=sandybridge");
  EXPECT_EQ(sandy.vector_width_bits(DataType::Float32()), 256);
  EXPECT_EQ(sandy.vector_width_bits(DataType::Int32()), 128);
  // AVX-512F without BW: 512-bit floats, 256-bit bytes.
  Target knl = Target::parse("llvm -mcpu=skylake-avx512 -mattr=-avx512bw");
  EXPECT_EQ(knl.vector_width_bits(DataType::Float32()), 512);
  EXPECT_EQ(knl.vector_width_bits(DataType::Int(8)), 256);
  EXPECT_EQ(avx2.vector_registers(), 16);
  EXPECT_EQ(avx512.vector_registers(), 32);
}

// AArch64: NEON's 128 bits, or SVE built for one vector length (-vscale,
// in units of 128 bits); 32 vector registers either way.
TEST(Target, Aarch64VectorsFollowNeonOrTheSveLength) {
  Target neon = Target::parse("llvm -mtriple=aarch64-linux-gnu -mattr=+neon");
  EXPECT_EQ(neon.vector_width_bits(DataType::Float32()), 128);
  EXPECT_EQ(neon.vector_registers(), 32);
  EXPECT_EQ(neon.vscale(), 0);
  Target sve = Target::parse("llvm -mtriple=aarch64-linux-gnu -mattr=+sve -vscale=2 -num-cores=4");
  EXPECT_EQ(sve.vscale(), 2);
  EXPECT_EQ(sve.vector_width_bits(DataType::Float32()), 256);
  EXPECT_EQ(sve.vector_lanes(DataType::Int(8)), 32);
  EXPECT_EQ(sve.str(), "llvm -mtriple=aarch64-unknown-linux-gnu -mcpu=generic -mattr=+sve -vscale=2 -num-cores=4");
  EXPECT_EQ(Target::parse(sve.str()), sve);
  // SVE without a length: NEON's width, the code runs at any length.
  EXPECT_EQ(Target::parse("llvm -mtriple=aarch64-linux-gnu -mattr=+sve").vector_width_bits(DataType::Float32()), 128);
  // A kernel built for one length refuses a device of another; the
  // device's features are Arm's.
  Target sve512 = Target::parse("llvm -mtriple=aarch64-linux-gnu -mattr=+sve -vscale=4");
  EXPECT_EQ(sve.cannot_run_on(sve512), "built for SVE vectors of 256 bits, the device's are 512 bits");
  EXPECT_EQ(sve.cannot_run_on(neon), "built for SVE vectors of 256 bits, the device's are not fixed (-vscale)");
  EXPECT_EQ(Target::parse("llvm -mtriple=aarch64-linux-gnu -mattr=+sve").cannot_run_on(neon),
            "needs CPU features the device lacks: fullfp16 sve");  // SVE implies half-precision arithmetic
  EXPECT_EQ(neon.cannot_run_on(sve), "");
}

TEST(Target, GpuKindsParse) {
  Target cuda = Target::parse("cuda -arch=sm_90");
  EXPECT_EQ(cuda.kind(), "cuda");
  EXPECT_EQ(cuda.arch(), "sm_90");
  EXPECT_FALSE(cuda.is_cpu());
  EXPECT_EQ(cuda.str(), "cuda -arch=sm_90");
  EXPECT_EQ(Target::parse("cuda -arch=sm_90a").arch(), "sm_90a");
  EXPECT_EQ(Target::parse("opencl").str(), "opencl");
}

TEST(Target, Errors) {
  EXPECT_EQ(error_of(""), "empty target string");
  EXPECT_EQ(error_of("tpu"), "unknown target kind 'tpu' (expected llvm, wasm32, cuda or opencl)");
  EXPECT_EQ(error_of("wasm32 -mcpu=generic"), "unknown option -mcpu for target kind wasm32");
  EXPECT_EQ(error_of("llvm -foo=1"), "unknown option -foo for target kind llvm");
  EXPECT_EQ(error_of("opencl -mcpu=x"), "unknown option -mcpu for target kind opencl");
  EXPECT_EQ(error_of("llvm mcpu=haswell"), "malformed target option 'mcpu=haswell': expected -name=value");
  EXPECT_EQ(error_of("llvm -mcpu"), "malformed target option '-mcpu': expected -name=value");
  EXPECT_EQ(error_of("llvm -mcpu="), "target option -mcpu has an empty value");
  EXPECT_EQ(error_of("llvm -num-cores=2 -num-cores=3"), "target option -num-cores given twice");
  EXPECT_NE(error_of("llvm -mcpu=pentium9").find("unknown cpu 'pentium9'"), std::string::npos);
  EXPECT_EQ(error_of("llvm -mattr=avx2"), "malformed -mattr entry 'avx2': expected +name or -name");
  EXPECT_EQ(error_of("llvm -mattr=+avx2,,+fma"), "malformed -mattr entry '': expected +name or -name");
  EXPECT_NE(error_of("llvm -mattr=+avx9000").find("unknown feature 'avx9000'"), std::string::npos);
  for (const char* bad : {"0", "-2", "two", "2x", "99999999999"})
    EXPECT_EQ(error_of(std::string("llvm -num-cores=") + bad),
              std::string("-num-cores must be a positive integer, not '") + bad + "'");
  EXPECT_EQ(error_of("llvm -mtriple=nonsense-arch-none"), "unknown target triple 'nonsense-arch-none'");
  EXPECT_EQ(error_of("cuda -arch=90"), "-arch must look like sm_90, not '90'");
  EXPECT_EQ(error_of("llvm -fp-contract=fast"), "-fp-contract must be on or off, not 'fast'");
  EXPECT_EQ(error_of("llvm -mtriple=aarch64-linux-gnu -vscale=2"),
            "-vscale=2 needs SVE: aarch64-unknown-linux-gnu -mcpu=generic has no sve (add -mattr=+sve)");
  EXPECT_EQ(error_of("llvm -mtriple=aarch64-linux-gnu -mattr=+sve -vscale=0"),
            "-vscale must be a positive integer, not '0'");
  EXPECT_EQ(error_of("llvm -mtriple=aarch64-linux-gnu -mattr=+sve -vscale=32"), "-vscale=32 is more than 16");
}

TEST(Target, GpuTargetsSayWhatOneLaunchMayUse) {
  const GpuLimits& a100 = Target::parse("cuda -arch=sm_80").gpu_limits();
  EXPECT_EQ(a100.max_threads_per_block, 1024);
  EXPECT_EQ(a100.warp_size, 32);
  EXPECT_EQ(a100.max_shared_memory_per_block, 48 * 1024);
  EXPECT_EQ(a100.max_dynamic_shared_memory_per_block, 163 * 1024);
  EXPECT_EQ(a100.max_threads_per_dim[2], 64);
  EXPECT_EQ(Target::parse("cuda -arch=sm_90").gpu_limits().max_dynamic_shared_memory_per_block, 227 * 1024);
  EXPECT_EQ(Target::parse("cuda -arch=sm_90a").gpu_limits().max_dynamic_shared_memory_per_block, 227 * 1024);
  EXPECT_EQ(Target::parse("cuda").gpu_limits().max_dynamic_shared_memory_per_block, 96 * 1024) << "sm_70's";
  EXPECT_EQ(error_of("cuda -arch=sm_60"), "-arch=sm_60: kiln generates CUDA code for sm_70 and newer");

  const GpuLimits& cl = Target::parse("opencl").gpu_limits();
  EXPECT_EQ(cl.max_threads_per_block, 256);
  EXPECT_EQ(cl.max_shared_memory_per_block, 32 * 1024);
  EXPECT_EQ(cl.warp_size, 1);
  Target big = Target::parse("opencl -max-shared-memory-per-block=65536 -max-threads-per-block=1024");
  EXPECT_EQ(big.gpu_limits().max_threads_per_block, 1024);
  EXPECT_EQ(big.str(), "opencl -max-threads-per-block=1024 -max-shared-memory-per-block=65536");
  EXPECT_EQ(Target::parse(big.str()), big);
  EXPECT_EQ(Target::parse("opencl -max-threads-per-block=256").str(), "opencl") << "the default is not spelled out";
  EXPECT_EQ(error_of("opencl -max-threads-per-block=0"), "-max-threads-per-block must be a positive integer, not '0'");
  EXPECT_EQ(error_of("opencl -max-shared-memory-per-block=32k"),
            "-max-shared-memory-per-block must be a positive integer, not '32k'");
  EXPECT_THROW(Target::host().gpu_limits(), InternalError);
}

}  // namespace
}  // namespace kiln
