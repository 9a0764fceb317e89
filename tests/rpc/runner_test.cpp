// The runner measuring real candidates, good and bad, through a local
// runner (a `kiln runner` child on a unix socket): every failure is a result
// with its error kind, and the runner keeps serving the rest of the batch.
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "support/faulty_artifacts.h"
#include "ops/workload.h"
#include "rpc/runner_client.h"
#include "targets/runtime/check.h"
#include "targets/codegen/gpu/build_gpu.h"
#include "targets/runtime/opencl.h"
#include "targets/lower.h"
#include "support/packed_matmul.h"
#include "tir/transform/split_prepack.h"

namespace kiln::testing {
namespace {


PrimFunc small_matmul() { return ops::build_workload(ops::parse_workload("matmul:M=32,N=32,K=32")); }

rpc::LocalRunnerOptions options(std::vector<std::string> args = {}) {
  rpc::LocalRunnerOptions o;
  o.kiln = KILN_BINARY;
  o.args = std::move(args);
  return o;
}

rpc::MeasureBatch batch_for(const PrimFunc& f, const Target& t) {
  rpc::MeasureBatch b;
  b.timing.repeat = 2;
  b.timing.timeout_ms = 3000;
  b.references.push_back(reference(f, t));
  return b;
}

TEST(Runner, EveryFaultIsAResultAndTheBatchGoesOn) {
  PrimFunc f = small_matmul();
  Target t = Target::host();
  rpc::MeasureBatch b = batch_for(f, t);
  Artifact good = default_artifact(f, t);
  b.candidates = {candidate(10, f, good),
                  candidate(11, f, faulty_artifact(f, t, Fault::kSegfault)),
                  candidate(12, f, good),
                  candidate(13, f, faulty_artifact(f, t, Fault::kHang)),
                  candidate(14, f, good),
                  candidate(15, f, wrong_answer_artifact(f, t)),
                  candidate(16, f, faulty_artifact(f, t, Fault::kIllegal)),
                  candidate(17, f, faulty_artifact(f, t, Fault::kAbort)),
                  candidate(18, f, good)};
  b.timing.timeout_ms = 1500;
  rpc::LocalRunner runner(options());
  std::vector<uint64_t> seen;
  std::vector<rpc::MeasureResult> rs = runner.measure(b, [&](const rpc::MeasureResult& r) { seen.push_back(r.id); });

  ASSERT_EQ(rs.size(), b.candidates.size());
  EXPECT_EQ(seen, (std::vector<uint64_t>{10, 11, 12, 13, 14, 15, 16, 17, 18}));
  for (size_t i = 0; i < rs.size(); ++i) EXPECT_EQ(rs[i].id, b.candidates[i].id);
  for (size_t i : {0, 2, 4, 8}) {
    EXPECT_TRUE(rs[i].ok()) << i << ": " << rs[i].message;
    EXPECT_EQ(rs[i].times_s.size(), 2u);
    EXPECT_GT(rs[i].times_s[0], 0);
    EXPECT_LE(rs[i].max_rel_err, 1e-4);
  }
  EXPECT_EQ(rs[1].error, ErrorKind::kRuntimeError);
  EXPECT_NE(rs[1].message.find("SIGSEGV"), std::string::npos) << rs[1].message;
  EXPECT_EQ(rs[3].error, ErrorKind::kTimeout);
  EXPECT_NE(rs[3].message.find("1500 ms"), std::string::npos) << rs[3].message;
  EXPECT_EQ(rs[5].error, ErrorKind::kWrongAnswer);
  EXPECT_GT(rs[5].max_rel_err, 1.0);
  EXPECT_NE(rs[5].message.find("max relative error"), std::string::npos) << rs[5].message;
  EXPECT_EQ(rs[6].error, ErrorKind::kRuntimeError);
  EXPECT_NE(rs[6].message.find("SIGILL"), std::string::npos) << rs[6].message;
  EXPECT_EQ(rs[7].error, ErrorKind::kRuntimeError);
  EXPECT_NE(rs[7].message.find("SIGABRT"), std::string::npos) << rs[7].message;
  for (const auto& r : rs)
    if (!r.ok()) {
      EXPECT_TRUE(r.times_s.empty()) << "a failed candidate has no time";
    }
  EXPECT_EQ(runner.starts(), 1) << "the runner itself never went down";
}

// A candidate whose weight B is packed (tir/transform/split_prepack.h):
// the runner runs the pack on the seeded B, untimed, and the kernel on the
// packed buffer, which the check then finds right. The same kernel without
// its pack reads B as if packed and is wrong; a pack that names the output
// is refused.
TEST(Runner, APackedWeightIsPackedBeforeTheKernelRuns) {
  PrimFunc f = small_matmul();
  Target t = Target::host();
  const SplitPrepack split = split_prepack(packed_matmul(f), {1});
  ASSERT_EQ(split.packs.size(), 1u);
  const PrimFunc main = lower(split.main, t);
  Artifact packed = build_artifact(main, {{1, lower(split.packs[0].func, t)}}, t);
  ASSERT_EQ(packed.prepacks.size(), 1u);
  EXPECT_EQ(packed.prepacks[0].packed.numel(), 32 * 32);  // B_global, flattened as lowering leaves it
  Artifact unpacked = packed;
  unpacked.prepacks.clear();
  Artifact on_output = packed;
  on_output.prepacks[0].param = 2;

  rpc::MeasureBatch b = batch_for(f, t);
  b.candidates = {candidate(0, f, packed), candidate(1, f, unpacked), candidate(2, f, on_output),
                  candidate(3, f, default_artifact(f, t))};
  rpc::LocalRunner runner(options());
  std::vector<rpc::MeasureResult> rs = runner.measure(b);
  ASSERT_EQ(rs.size(), 4u);
  EXPECT_TRUE(rs[0].ok()) << rs[0].message;
  EXPECT_LE(rs[0].max_rel_err, 1e-4);
  EXPECT_EQ(rs[1].error, ErrorKind::kWrongAnswer) << rs[1].message;
  EXPECT_EQ(rs[2].error, ErrorKind::kRuntimeError);
  EXPECT_NE(rs[2].message.find("not an input"), std::string::npos) << rs[2].message;
  EXPECT_TRUE(rs[3].ok()) << "the worker's arguments are whole again after a pack: " << rs[3].message;
}

TEST(Runner, RefusesATargetTheDeviceCannotRunBeforeLoadingIt) {
  PrimFunc f = small_matmul();
  Target avx512 = Target::parse("llvm -mcpu=skylake-avx512");
  // The device offers no AVX-512 (on an AVX2 machine, that is the host).
  rpc::LocalRunner runner(options({"--device-target=llvm -mattr=-avx512f"}));
  Target device = Target::parse("llvm -mattr=-avx512f");
  rpc::MeasureBatch b = batch_for(f, device);
  // Faulty on purpose: had the runner loaded it, the answer would be SIGILL.
  b.candidates = {candidate(0, f, faulty_artifact(f, avx512, Fault::kIllegal)),
                  candidate(1, f, default_artifact(f, device))};
  std::vector<rpc::MeasureResult> rs = runner.measure(b);
  EXPECT_EQ(rs[0].error, ErrorKind::kUnsupportedTarget);
  EXPECT_NE(rs[0].message.find("avx512f"), std::string::npos) << rs[0].message;
  EXPECT_TRUE(rs[1].ok()) << rs[1].message;

  // A reference the device cannot run fails its candidates, naming why.
  // (Another seed: an output once computed for these inputs is reused.)
  b.references = {reference(f, avx512)};
  b.timing.seed = 2;
  rpc::MeasureResult r = runner.measure(b).at(1);
  EXPECT_EQ(r.error, ErrorKind::kRuntimeError);
  EXPECT_NE(r.message.find("the reference program"), std::string::npos) << r.message;
  rpc::DeviceInfo d = runner.info();
  EXPECT_EQ(std::count(d.isa_features.begin(), d.isa_features.end(), "avx512f"), 0);
}

TEST(Runner, MinRepeatMsRaisesNumberForFastKernels) {
  PrimFunc f = ops::build_workload(ops::parse_workload("add:M=4,N=4"));
  Target t = Target::host();
  rpc::LocalRunner runner(options());
  rpc::MeasureBatch b = batch_for(f, t);
  b.timing.repeat = 3;
  b.candidates = {candidate(0, f, default_artifact(f, t))};
  rpc::MeasureResult plain = runner.measure(b).front();
  ASSERT_TRUE(plain.ok()) << plain.message;
  EXPECT_EQ(plain.number, 1);

  b.timing.min_repeat_ms = 20;
  rpc::MeasureResult raised = runner.measure(b).front();
  ASSERT_TRUE(raised.ok()) << raised.message;
  EXPECT_GT(raised.number, 100) << "a 4x4 add takes well under 0.2 ms";
  for (double s : raised.times_s) EXPECT_GE(s * raised.number * 1e3, 20 * 0.5) << "each repeat lasts about min_repeat_ms";
}

// Cold arguments (a model's weights) and a time-based warm-up travel to the
// runner; a cold argument the kernel does not have fails that candidate by
// name, and the runner goes on.
TEST(Runner, ColdArgumentsAndWarmUpTimeReachTheRunner) {
  PrimFunc f = ops::build_workload(ops::parse_workload("add:M=4,N=4"));
  Target t = Target::host();
  rpc::LocalRunner runner(options());
  rpc::MeasureBatch b = batch_for(f, t);
  b.timing.repeat = 3;
  b.timing.cold_args = {1};
  b.candidates = {candidate(0, f, default_artifact(f, t))};
  rpc::MeasureResult cold = runner.measure(b).front();
  ASSERT_TRUE(cold.ok()) << cold.message;
  EXPECT_EQ(cold.times_s.size(), 3u);
  b.timing.cold_sweep_bytes = int64_t{2} << 20;  // swept out rather than flushed
  rpc::MeasureResult swept = runner.measure(b).front();
  ASSERT_TRUE(swept.ok()) << swept.message;
  EXPECT_EQ(swept.times_s.size(), 3u);

  b.timing.cold_args = {7};
  rpc::MeasureResult bad = runner.measure(b).front();
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.message.find("cold argument 7 of a kernel with 3 arguments"), std::string::npos) << bad.message;

  // warmup_ms reaches the runner too: the candidate runs untimed that long.
  b.timing.cold_args = {};
  b.timing.warmup_ms = 300;
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(runner.measure(b).front().ok());
  using Ms = std::chrono::duration<double, std::milli>;
  EXPECT_GE(Ms(std::chrono::steady_clock::now() - t0).count(), 300.0);
}

TEST(Runner, ScreeningTimesACandidateFarSlowerThanTheFastestOnce) {
  // Two programs far apart: a 4x4 add (microseconds) and a naive 256^3
  // matmul (tens of milliseconds; screening never cuts under one).
  PrimFunc fast = ops::build_workload(ops::parse_workload("add:M=4,N=4"));
  PrimFunc slow = ops::build_workload(ops::parse_workload("matmul:M=256,N=256,K=256"));
  Target t = Target::host();
  rpc::LocalRunner runner(options());
  rpc::MeasureBatch b;
  b.timing.repeat = 4;
  b.timing.timeout_ms = 5000;
  b.timing.slow_factor = 10;
  b.references = {reference(fast, t), reference(slow, t)};
  // No time known: the first is timed fully; the slow one is then far above
  // ten times the add's (and the millisecond floor), and the add again is not.
  b.candidates = {candidate(0, fast, default_artifact(fast, t)), candidate(1, slow, default_artifact(slow, t)),
                  candidate(2, fast, default_artifact(fast, t))};
  std::vector<rpc::MeasureResult> rs = runner.measure(b);
  ASSERT_EQ(rs.size(), 3u);
  for (const auto& r : rs) ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_FALSE(rs[0].screened);
  EXPECT_EQ(rs[0].times_s.size(), 4u);
  EXPECT_TRUE(rs[1].screened);
  EXPECT_EQ(rs[1].times_s.size(), 1u);
  EXPECT_EQ(rs[1].number, 1);
  EXPECT_GT(rs[1].times_s[0], 10 * rs[0].times_s[0]);
  EXPECT_FALSE(rs[2].screened);
  EXPECT_EQ(rs[2].times_s.size(), 4u);

  // A fastest time the client knows screens even the first candidate.
  b.timing.best_known_s = 1e-12;
  b.candidates = {candidate(0, slow, default_artifact(slow, t))};
  rpc::MeasureResult known = runner.measure(b).front();
  ASSERT_TRUE(known.ok()) << known.message;
  EXPECT_TRUE(known.screened);

  // Off: every repeat, however slow.
  b.timing.slow_factor = 0;
  rpc::MeasureResult off = runner.measure(b).front();
  ASSERT_TRUE(off.ok()) << off.message;
  EXPECT_FALSE(off.screened);
  EXPECT_EQ(off.times_s.size(), 4u);

  // A factor under 1 would screen the fastest itself: refused.
  b.timing.slow_factor = 0.5;
  EXPECT_THROW(runner.measure(b), Error);
}

TEST(Runner, ARunnerKilledMidBatchIsRestartedAndEveryCandidateAccountedFor) {
  PrimFunc f = small_matmul();
  Target t = Target::host();
  rpc::LocalRunner runner(options());
  rpc::MeasureBatch b = batch_for(f, t);
  b.timing.min_repeat_ms = 50;  // long enough to be killed in the middle
  Artifact good = default_artifact(f, t);
  for (uint64_t i = 0; i < 6; ++i) b.candidates.push_back(candidate(100 + i, f, good));
  int killed = 0;
  std::vector<rpc::MeasureResult> rs = runner.measure(b, [&](const rpc::MeasureResult& r) {
    if (r.id == 101 && killed++ == 0) ::kill(runner.pid(), SIGKILL);
  });
  EXPECT_EQ(killed, 1);
  EXPECT_EQ(runner.starts(), 2);
  ASSERT_EQ(rs.size(), 6u);
  for (size_t i = 0; i < rs.size(); ++i) {
    EXPECT_EQ(rs[i].id, 100 + i);
    EXPECT_TRUE(rs[i].ok()) << i << ": " << rs[i].message;
  }
}

TEST(Runner, TwoClientsShareOneRunner) {
  PrimFunc f = small_matmul();
  Target t = Target::host();
  rpc::LocalRunner runner(options());
  rpc::MeasureBatch b = batch_for(f, t);
  Artifact good = default_artifact(f, t);
  for (uint64_t i = 0; i < 4; ++i) b.candidates.push_back(candidate(i, f, good));
  std::vector<rpc::MeasureResult> a_results, b_results;
  std::thread other([&] { b_results = rpc::connect_remote_runner(runner.address())->measure(b); });
  a_results = rpc::connect_remote_runner(runner.address())->measure(b);
  other.join();
  for (const auto* rs : {&a_results, &b_results}) {
    ASSERT_EQ(rs->size(), 4u);
    for (const auto& r : *rs) EXPECT_TRUE(r.ok()) << r.message;
  }
}

TEST(Runner, InfoNamesTheDevice) {
  rpc::LocalRunner runner(options({"--key=bench-box"}));
  rpc::DeviceInfo d = runner.info();
  EXPECT_EQ(d.device_key, "bench-box");
  EXPECT_FALSE(d.cpu_model.empty());
  EXPECT_EQ(d.cpu_name, Target::host().mcpu());
  ASSERT_FALSE(d.targets.empty());
  EXPECT_EQ(d.targets.front(), Target::host().str());
  EXPECT_GT(d.num_cores, 0);
  EXPECT_FALSE(d.kiln_version.empty());
  // The OpenCL device (PoCL here) is reported beside the CPU, with the
  // opencl target its limits make.
  ASSERT_EQ(d.gpus.size(), 1u);
  EXPECT_EQ(d.gpus[0], OpenclDevice::get().name());
  EXPECT_EQ(d.targets, (std::vector<std::string>{Target::host().str(), OpenclDevice::get().target().str()}));
}

TEST(Runner, AGpuKernelThatFaultsIsARecordAndTheRunnerGoesOn) {
  // A module whose kernel stores gigabytes past its output: on PoCL that
  // kills the worker, as an illegal address would on a GPU.
  PrimFunc f = ops::build_workload(ops::parse_workload("add:M=4,N=8"));
  Target t = Target::parse("opencl");
  Artifact good = default_artifact(f, t);
  GpuModule m = parse_gpu_module(good.data);
  m.source = "__kernel void " + m.kernels[0].name +
             "(__global float* a, __global float* b, __global float* c) {\n"
             "  c[((long)get_global_id(0) + 1) * 1073741824L] = 1.0f;\n}\n";
  Artifact faulty = good;
  faulty.data = gpu_module_json(m);
  rpc::LocalRunner runner(options({}));
  rpc::MeasureBatch b = batch_for(f, t);
  b.candidates = {candidate(0, f, faulty), candidate(1, f, good)};
  std::vector<rpc::MeasureResult> rs = runner.measure(b);
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_EQ(rs[0].error, ErrorKind::kRuntimeError) << rs[0].message;
  EXPECT_NE(rs[0].message.find("crashed its worker"), std::string::npos) << rs[0].message;
  EXPECT_TRUE(rs[1].ok()) << rs[1].message;
}

TEST(Runner, ACpuOnlyRunnerRefusesGpuArtifactsAsUnsupported) {
  rpc::LocalRunner runner(options({"--cpu-only"}));
  EXPECT_TRUE(runner.info().gpus.empty());
  PrimFunc f = ops::build_workload(ops::parse_workload("add:M=4,N=8"));
  Target t = Target::parse("opencl");
  rpc::MeasureBatch b;
  b.candidates.push_back(candidate(0, f, default_artifact(f, t)));
  b.candidates.back().reference_id.clear();  // nothing to check it against
  rpc::MeasureResult r = runner.measure(b).front();
  EXPECT_EQ(r.error, ErrorKind::kUnsupportedTarget) << r.message;
  EXPECT_NE(r.message.find("this runner has no opencl device"), std::string::npos) << r.message;
}

}  // namespace
}  // namespace kiln::testing
