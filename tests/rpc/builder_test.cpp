// The builder: candidates in, artifacts or error kinds out, in order.
#include <gtest/gtest.h>

#include "core/error.h"
#include "ops/workload.h"
#include "rpc/builder.h"
#include "tir/schedule/schedule.h"

namespace kiln::testing {
namespace {


PrimFunc workload(const std::string& w) { return ops::build_workload(ops::parse_workload(w)); }

rpc::BuilderOptions options(int workers = 1, double timeout_ms = 60000) {
  rpc::BuilderOptions o;
  o.workers = workers;
  o.timeout_ms = timeout_ms;
  o.kiln = KILN_BINARY;
  return o;
}

// A trace that splits matmul's first loop by 8 and vectorises the inner part.
Trace split_trace(const PrimFunc& f) {
  Schedule sch(f);
  BlockRV b = sch.get_block("C");
  std::vector<LoopRV> loops = sch.get_loops(b);
  std::vector<LoopRV> parts = sch.split(loops[1], {kInfer, 8});
  sch.vectorize(parts[1]);
  return sch.trace();
}

TEST(Builder, BuildsEveryCandidateInOrderOnTwoWorkers) {
  PrimFunc mm = workload("matmul:M=16,N=16,K=16");
  PrimFunc add = workload("add:M=8,N=8");
  Target t = Target::host();
  rpc::Builder b(options(2));
  std::vector<rpc::BuildResult> rs = b.build({{mm, split_trace(mm), t}, {add, std::nullopt, t}, {mm, std::nullopt, t}});
  ASSERT_EQ(rs.size(), 3u);
  for (const auto& r : rs) {
    EXPECT_TRUE(r.ok()) << r.message;
    EXPECT_EQ(r.artifact.format, "shared_library");
    EXPECT_GT(r.artifact.data.size(), 1000u);
    EXPECT_EQ(r.artifact.target, t.str());
    EXPECT_GT(r.build_ms, 0);
  }
  EXPECT_EQ(rs[0].artifact.kernel_name, mm.name());
  EXPECT_EQ(rs[1].artifact.kernel_name, add.name());
  EXPECT_EQ(rs[0].args, arg_specs(mm));
  EXPECT_EQ(rs[1].args, arg_specs(add));
}

TEST(Builder, ATraceThatDoesNotApplyIsAnInstantiationError) {
  PrimFunc mm = workload("matmul:M=16,N=16,K=16");
  PrimFunc add = workload("add:M=8,N=8");  // has no block "C"
  rpc::Builder b(options());
  rpc::BuildResult r = b.build({{add, split_trace(mm), Target::host()}}).front();
  EXPECT_EQ(r.error, ErrorKind::kInstantiation);
  EXPECT_FALSE(r.message.empty());
}

TEST(Builder, AnInvalidProgramIsAnInstantiationErrorNamingWhatIsWrong) {
  // Stores into a buffer that is neither a parameter nor allocated: the
  // worker verifies what it is sent before it schedules or lowers it.
  Buffer a("A", DataType::Float32(), {Expr(4)});
  Buffer stray("stray", DataType::Float32(), {Expr(4)});
  PrimFunc bad("bad", {a}, buffer_store(stray, Expr(1.0f), {Expr(0)}));
  rpc::Builder b(options());
  rpc::BuildResult r = b.build({{bad, std::nullopt, Target::host()}}).front();
  EXPECT_EQ(r.error, ErrorKind::kInstantiation);
  EXPECT_NE(r.message.find("stray"), std::string::npos) << r.message;
}

TEST(Builder, AScheduleTheTargetCannotCompileIsACompileError) {
  PrimFunc mm = workload("matmul:M=16,N=16,K=16");
  Schedule sch(mm);
  sch.bind(sch.get_loops(sch.get_block("C"))[0], "threadIdx.x");
  rpc::Builder b(options());
  rpc::BuildResult r = b.build({{mm, sch.trace(), Target::host()}}).front();
  EXPECT_EQ(r.error, ErrorKind::kCompile);
  EXPECT_NE(r.message.find("threadIdx.x"), std::string::npos) << r.message;
}

TEST(Builder, ABuildOverTheLimitTimesOutAndTheNextOneBuilds) {
  PrimFunc mm = workload("matmul:M=64,N=64,K=64");
  rpc::Builder slow(options(1, /*timeout_ms=*/1));
  rpc::BuildResult r = slow.build({{mm, std::nullopt, Target::host()}}).front();
  EXPECT_EQ(r.error, ErrorKind::kBuildTimeout);
  EXPECT_NE(r.message.find("1 ms"), std::string::npos) << r.message;

  rpc::Builder ok(options(1));
  EXPECT_TRUE(ok.build({{mm, std::nullopt, Target::host()}}).front().ok());
}

TEST(Builder, AMissingWorkerBinaryIsAClearError) {
  rpc::BuilderOptions o = options();
  o.kiln = "/nonexistent/kiln";
  rpc::Builder b(o);
  try {
    b.build({{workload("add:M=2,N=2"), std::nullopt, Target::host()}});
    FAIL() << "built without a worker";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/kiln"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kiln::testing
