// Target: the machine a kernel is compiled for, parsed from a string.
//
//   llvm                                   the host CPU, all its features
//   llvm -mcpu=skylake-avx512 -num-cores=2 a named CPU with its default features
//   llvm -mcpu=native -mattr=-avx512f      the host, one feature taken away
//   llvm -mtriple=aarch64-linux-gnu -mcpu=neoverse-v1
//   llvm -mtriple=aarch64-linux-gnu -mattr=+sve -vscale=2   SVE at 256 bits
//   llvm -fp-contract=off                  no FMA fusion: bit-exact float arithmetic
//   cuda -arch=sm_90
//   opencl
//   opencl -max-threads-per-block=1024 -max-shared-memory-per-block=65536
//
// The tuning database keys records by target string, so str() is canonical:
// it names the resolved CPU (never "native"), the feature changes relative to
// that CPU's defaults, and the core count, and parse(t.str()) == t. For the
// host that makes "llvm" on a Sapphire Rapids VM print as
// "llvm -mcpu=sapphirerapids -mattr=-enqcmd,... -num-cores=2": the same
// machine gives the same key, a different one does not.
//
// Each kind compiles: "llvm" to machine code through LLVM, "cuda" to CUDA C
// that NVRTC compiles for the arch, "opencl" to OpenCL C (docs/gpu.md,
// docs/targets.md). A GPU target's limits (gpu_limits) bound what the
// verifier accepts and what the GPU design space draws.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/dtype.h"

namespace kiln {

// What a GPU target allows one kernel launch (Target::gpu_limits): the
// verifier refuses a kernel past any of them, and the GPU schedule rules
// size their tiles within them.
struct GpuLimits {
  int max_threads_per_block = 0;
  // Shared memory (OpenCL's __local) one block may declare statically.
  int64_t max_shared_memory_per_block = 0;
  // With the kernel's opt-in (cudaFuncAttributeMaxDynamicSharedMemorySize);
  // the same as the static limit where there is none.
  int64_t max_dynamic_shared_memory_per_block = 0;
  // Threads that run in lockstep (CUDA's warp; 1 where the device does not
  // say, as for OpenCL in general).
  int warp_size = 1;
  int max_registers_per_thread = 0;  // 0: not known
  int max_threads_per_dim[3] = {0, 0, 0};
  int64_t max_blocks_per_dim[3] = {0, 0, 0};
};

class Target {
 public:
  // Throws kiln::Error naming the bad part: unknown kind, unknown option,
  // unknown CPU for the triple, malformed or unknown -mattr entry, a
  // num-cores that is not a positive integer.
  static Target parse(const std::string& s);
  // parse("llvm").
  static Target host();

  // "llvm", "cuda" or "opencl".
  const std::string& kind() const;
  bool is_cpu() const { return kind() == "llvm"; }
  bool is_gpu() const { return kind() == "cuda" || kind() == "opencl"; }

  // llvm: the target triple (the process triple unless -mtriple is given).
  const std::string& mtriple() const;
  // llvm: the CPU name as LLVM knows it; "native" is resolved to the host's.
  const std::string& mcpu() const;
  // llvm: feature changes relative to mcpu's defaults, "+name" or "-name",
  // in the order LLVM applies them.
  const std::vector<std::string>& mattr() const;
  // llvm: threads for parallel loops; defaults to the hardware threads.
  int num_cores() const;
  // llvm, AArch64 with SVE: the vector length the code is built for, in
  // units of 128 bits (-vscale=2: 256-bit vectors), as a fixed width; 0 when
  // not given (then NEON's 128 bits are the width). SVE's registers are
  // scalable, but a schedule's tiles are not: kiln builds for one length,
  // and the code runs only on a CPU of that length.
  int vscale() const;
  // llvm: whether a float multiply and add may fuse into one FMA (one
  // rounding instead of two). On by default (-fp-contract=on), as in C
  // compilers; -fp-contract=off makes float results bit-identical to the
  // reference interpreter's for +, -, *, /.
  bool fp_contract() const;
  // cuda: "sm_90" and the like; empty elsewhere.
  const std::string& arch() const;
  // cuda and opencl: what one launch may use. cuda: by -arch (sm_70 and
  // newer; without -arch, sm_70's). opencl: 256 threads and 32 KiB of local
  // memory per block unless -max-threads-per-block and
  // -max-shared-memory-per-block say what the device allows. Throws
  // kiln::InternalError on a CPU target.
  const GpuLimits& gpu_limits() const;

  // llvm: whether the CPU with mattr applied has the LLVM feature `name`
  // (e.g. "avx512f"), implied features included.
  bool has_feature(const std::string& name) const;
  // llvm: every feature enabled, implied ones included, sorted.
  const std::vector<std::string>& features() const;
  // llvm: the enabled features a CPU can lack (instruction sets such as
  // avx512f, as opposed to LLVM's tuning flags), sorted.
  std::vector<std::string> isa_features() const;
  // Why code built for this target cannot run on a machine described by
  // `device` (another kind or triple, or the CPU features it lacks, named);
  // empty when it can. Runners ask this before loading a kernel, so an
  // AVX-512 kernel meets a clear refusal on an AVX2 machine, not SIGILL.
  std::string cannot_run_on(const Target& device) const;

  // Width in bits of the widest vector register worth using for values of
  // type t: 512 with AVX-512, 256 with AVX2 (AVX for floats), 128 with SSE or
  // NEON, 128 x vscale with SVE at a fixed length. On GPU kinds, t's own
  // width: vectors there are threads.
  int vector_width_bits(DataType t) const;
  // vector_width_bits(t) / t.bits(), at least 1.
  int vector_lanes(DataType t) const;
  // Architectural vector registers a register tile may fill: 32 with
  // AVX-512 and on AArch64 (NEON and SVE alike), 16 on other x86 CPUs.
  int vector_registers() const;

  // The LLVM feature string for code generation ("+a,-b"), mattr joined.
  std::string llvm_features() const;

  // Canonical form; see the header comment.
  std::string str() const;

  bool operator==(const Target& o) const { return str() == o.str(); }
  bool operator!=(const Target& o) const { return !(*this == o); }

  struct Data;

 private:
  explicit Target(std::shared_ptr<const Data> d) : d_(std::move(d)) {}
  static Target parse_uncached(const std::string& s);
  std::shared_ptr<const Data> d_;
};

}  // namespace kiln
