// Running kernels built for another CPU in tests: the run worker a runner
// for such a device starts (rpc/runner/device.h's run_worker_argv): for
// AArch64 that CPU's worker (rpc/cross/) under qemu-user, for WebAssembly
// kiln's own, which runs modules in Node.js. It is fed one artifact per
// program and the reference interpreter's output, computed here on the same
// seeded inputs, to check it against.
//
//   ForeignDevice arm(Target::parse("llvm -mtriple=aarch64-linux-gnu -mattr=+sve -vscale=2"));
//   std::string err = arm.check(prepare_op("matmul:M=8,N=8,K=8", arm.target()), 2);
//   EXPECT_EQ(err, "");
#pragma once

#include <cstdint>
#include <string>

#include "driver/op_program.h"
#include "rpc/process/worker_process.h"
#include "rpc/proto/worker.pb.h"

namespace kiln::testing {

class ForeignDevice {
 public:
  explicit ForeignDevice(Target target);

  const Target& target() const { return target_; }

  // Builds p.lowered for p.target (normally the device's), runs it there on `threads` threads and
  // compares its output with the interpreter's on p.func: the worker's reply.
  rpc::proto::RunReply run(const OpProgram& p, int threads);
  // "" when the kernel ran and matched within check_tolerance(p.func);
  // otherwise what went wrong (the error kind and message, or the death).
  std::string check(const OpProgram& p, int threads);

 private:
  Target target_;
  rpc::WorkerProcess worker_;
  uint64_t next_ = 0;
};

// The device of `target`, one per target for the whole test binary:
// starting its worker (qemu, Node.js) costs a fraction of a second, each
// kernel far less.
ForeignDevice& foreign_device(const std::string& target);

}  // namespace kiln::testing
