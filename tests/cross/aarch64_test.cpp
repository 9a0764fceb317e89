// Every operator's default program and every CPU hand schedule of
// examples/schedules, built for AArch64 (NEON, and SVE at 256 and 512 bits)
// and run under qemu-user by the runner's aarch64 worker against the
// reference interpreter's output on the same inputs, on 2 threads. qemu
// emulates a CPU of exactly the target's vector length, and one without
// SVE for the NEON target, so a kernel that used what its target lacks
// would die of an illegal instruction here.
#include <gtest/gtest.h>


#include <nlohmann/json.hpp>

#include "cli/cli_run.h"
#include "support/foreign_device.h"
#include "support/every_op.h"
#include "support/example_schedules.h"
#include "support/scratch.h"
#include "support/tensorized_matmul.h"
#include "targets/lower.h"
#include "tuning_logs/open_database.h"

namespace kiln {
namespace {

using testing::ForeignDevice;
using testing::ExampleSchedule;

const char* const kTargets[] = {
    "llvm -mtriple=aarch64-linux-gnu -mattr=+neon -num-cores=2",
    "llvm -mtriple=aarch64-linux-gnu -mattr=+sve -vscale=2 -num-cores=2",
    "llvm -mtriple=aarch64-linux-gnu -mattr=+sve -vscale=4 -num-cores=2",
};

ForeignDevice& device(const std::string& target) { return testing::foreign_device(target); }

std::string short_name(const std::string& target) {
  if (target.find("-vscale=2") != std::string::npos) return "sve256";
  if (target.find("-vscale=4") != std::string::npos) return "sve512";
  return "neon";
}

class Aarch64DefaultPrograms : public ::testing::TestWithParam<std::tuple<const char*, const char*>> {};

TEST_P(Aarch64DefaultPrograms, MatchInterpreter) {
  auto [target, workload] = GetParam();
  ForeignDevice& d = device(target);
  EXPECT_EQ(d.check(prepare_op(workload, d.target()), 2), "") << workload << " on " << target;
}

INSTANTIATE_TEST_SUITE_P(EveryOp, Aarch64DefaultPrograms,
                         ::testing::Combine(::testing::ValuesIn(kTargets),
                                            ::testing::ValuesIn(testing::kEveryOpWorkloads)),
                         [](const auto& info) {
                           return short_name(std::get<0>(info.param)) + "_" + std::to_string(info.index);
                         });


class Aarch64HandSchedules : public ::testing::TestWithParam<std::tuple<const char*, ExampleSchedule>> {};

TEST_P(Aarch64HandSchedules, MatchInterpreter) {
  auto [target, e] = GetParam();
  ForeignDevice& d = device(target);
  EXPECT_EQ(d.check(testing::prepare_example(e, d.target()), 2), "") << e << " on " << target;
}

INSTANTIATE_TEST_SUITE_P(Examples, Aarch64HandSchedules,
                         ::testing::Combine(::testing::ValuesIn(kTargets),
                                            ::testing::ValuesIn(testing::kCpuScheduleExamples)),
                         [](const auto& info) {
                           return short_name(std::get<0>(info.param)) + "_" + std::to_string(info.index);
                         });

// The check can fail: a kernel that writes a wrong answer is reported so,
// not passed. (The interpreter's reference is compared with the output of
// a different workload's kernel of the same shapes: add against mul.)
TEST(Aarch64Worker, ReportsAWrongAnswer) {
  ForeignDevice& d = device(kTargets[0]);
  OpProgram add = prepare_op("add:M=4,N=8", d.target());
  OpProgram mul = prepare_op("mul:M=4,N=8", d.target());
  add.lowered = mul.lowered;
  rpc::proto::RunReply r = d.run(add, 1);
  EXPECT_EQ(r.error_kind(), rpc::proto::WRONG_ANSWER) << r.error_message();
}

// The emulated CPU has what its target has and no more: SVE code on the
// NEON device dies of an illegal instruction, reported as the candidate's
// runtime error, and the next kernel finds a fresh worker.
TEST(Aarch64Worker, SveCodeDiesOnTheNeonDevice) {
  ForeignDevice& neon = device(kTargets[0]);
  OpProgram sve = testing::prepare_example("matmul_1024_avx512.json", "matmul:M=12,N=128,K=8", Target::parse(kTargets[1]));
  rpc::proto::RunReply r = neon.run(sve, 1);
  EXPECT_EQ(r.error_kind(), rpc::proto::RUNTIME_ERROR);
  EXPECT_NE(r.error_message().find("SIGILL"), std::string::npos) << r.error_message();
  EXPECT_EQ(neon.check(prepare_op("relu:M=3,N=5", neon.target()), 1), "");
}

constexpr const char* kI8mm = "llvm -mtriple=aarch64-linux-gnu -mattr=+neon,+i8mm -num-cores=2";

// The int8 product on usdot (I8MM) and on udot (the dot product): a
// hand-tensorized matmul_u8s8s32 gives the interpreter's integers exactly,
// on a partial tile of rows.
TEST(Aarch64Tensorize, DotProductsComputeTheProduct) {
  for (auto [target, intrin] : {std::pair{kI8mm, "arm_neon_usdot_u8s8s32_4x4"},
                                std::pair{"llvm -mtriple=aarch64-linux-gnu -mattr=+neon,+dotprod -num-cores=2",
                                          "arm_neon_udot_u8s8s32_4x4"}}) {
    ForeignDevice& d = device(target);
    OpProgram p = prepare_op("matmul_u8s8s32:M=5,N=16,K=24", d.target());
    Schedule sch(p.func);
    sch.tensorize(testing::pack_for_dot_product(sch, 4), intrin);
    p.scheduled = sch.func();
    p.lowered = lower(p.scheduled, d.target());
    EXPECT_EQ(d.check(p, 2), "") << intrin;
  }
}

// The search offers usdot where the target has I8MM: every candidate of a
// short tune is tensorized, checked under qemu, and the best one's code
// holds the instruction.
TEST(Aarch64Tune, Int8ProductsTuneOnUsdot) {
  const std::string db = testing::scratch_path("aarch64-int8.db");
  const std::string workload = "matmul_u8s8s32:M=8,N=32,K=32";
  testing::CliRun r = testing::kiln("tune-op " + workload + " --target '" + kI8mm +
                                    "' --trials 4 --batch-size 4 --repeat 1 --final-top 1 --db " + db + " --json");
  ASSERT_EQ(r.code, 0) << r.out;
  nlohmann::json j = nlohmann::json::parse(testing::last_line(r.out));
  EXPECT_EQ(j["measured_now"], 4) << r.out;
  testing::CliRun asm_text = testing::kiln("print " + workload + " --target '" + kI8mm + "' --db " + db + " --asm");
  ASSERT_EQ(asm_text.code, 0) << asm_text.out;
  EXPECT_NE(asm_text.out.find("usdot\tv"), std::string::npos) << asm_text.out;
}

// `kiln tune-op --target <aarch64>` measures through a local runner of
// that device, whose worker runs under qemu: every candidate is checked
// against the default program run there, each record names the emulation,
// and bench-op reproduces the best the same way.
TEST(Aarch64Tune, TunesThroughTheEmulatedRunner) {
  const std::string db = testing::scratch_path("aarch64.db");
  const std::string target = "'" + std::string(kTargets[1]) + "'";
  testing::CliRun r = testing::kiln("tune-op matmul:M=16,N=24,K=8 --target " + target +
                                    " --trials 8 --batch-size 4 --repeat 2 --final-top 2 --db " + db + " --json");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("its kernels run under qemu-user"), std::string::npos) << r.out;
  nlohmann::json j = nlohmann::json::parse(testing::last_line(r.out));
  EXPECT_EQ(j["trials_done"], 8);
  EXPECT_EQ(j["measured_now"], 8);
  EXPECT_GT(j["best_gflops"].get<double>(), 0);

  std::vector<tuning::TuningRecord> all;
  tuning::open_database(db)->for_each_record([&](const tuning::TuningRecord& rec) { all.push_back(rec); });
  ASSERT_EQ(all.size(), 8u);
  for (const tuning::TuningRecord& rec : all) {
    EXPECT_EQ(rec.target, Target::parse(kTargets[1]).str());
    EXPECT_NE(rec.cpu_model.find("qemu-aarch64 -cpu max,sve-default-vector-length=32, emulated on"), std::string::npos)
        << rec.cpu_model;
  }

  testing::CliRun bench = testing::kiln("bench-op matmul:M=16,N=24,K=8 --target " + target + " --db " + db + " --check");
  ASSERT_EQ(bench.code, 0) << bench.out;
  EXPECT_NE(bench.out.find("check: max relative error against the reference interpreter"), std::string::npos) << bench.out;
}

}  // namespace
}  // namespace kiln
