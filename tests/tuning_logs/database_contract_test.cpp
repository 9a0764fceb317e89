// The tuning database's contract, on both backends: what goes in comes out,
// fastest first, for the right target only, a batch all or nothing, and a
// key never shared by two computations. The same tests run on a SQLite file
// and on a PostgreSQL server's database (tests/support/postgres.h).
#include <gtest/gtest.h>

#include "core/error.h"
#include "tuning_logs/fixtures.h"
#include "tuning_logs/open_database.h"

namespace kiln::tuning {
namespace {

const std::string kZen4 = "llvm -mcpu=znver4 -num-cores=2";
const std::string kZen3 = "llvm -mcpu=znver3 -num-cores=2";

WorkloadEntry matmul() { return {"k-matmul", "{\"ir\": 1}", "matmul", "matmul:M=8,N=8,K=8,dtype=float32", 1024}; }

TuningRecord record(const std::string& target, std::vector<double> secs, const std::string& trace = "[]") {
  TuningRecord r;
  r.workload_key = "k-matmul";
  r.target = target;
  r.device_key = "znver4";
  r.cpu_model = "AMD EPYC";
  r.trace_json = trace;
  r.run_secs = std::move(secs);
  r.build_ms = 7;
  r.kiln_version = "0.1.0";
  r.created_at = 1700000000;
  return r;
}

// Runs every test on a new database of the backend in the parameter.
class DatabaseContract : public ::testing::TestWithParam<std::string> {
 protected:
  std::string fresh(const std::string& name) { return fresh_database(GetParam(), name); }
};

TEST_P(DatabaseContract, TopKIsTheFastestValidRecordsOfExactlyThatTarget) {
  std::string path = fresh("topk");
  auto db = open_database(path);
  db->add_workload(matmul());
  TuningRecord failed = record(kZen4, {});
  failed.error_kind = ErrorKind::kWrongAnswer;
  failed.error_message = "max relative error 3";
  db->add_records({record(kZen4, {3e-3, 3e-3}, "slow"), record(kZen4, {1e-3, 1e-3, 9e-3}, "fast"), failed,
                   record(kZen3, {1e-4}, "other target"), record(kZen4, {2e-3}, "middle")});

  std::vector<TuningRecord> top = db->top_k("k-matmul", kZen4, 2);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].trace_json, "fast");
  EXPECT_EQ(top[1].trace_json, "middle");
  EXPECT_EQ(top[0].run_secs, (std::vector<double>{1e-3, 1e-3, 9e-3}));
  EXPECT_DOUBLE_EQ(top[0].median_secs(), 1e-3);
  EXPECT_EQ(top[0].device_key, "znver4");
  EXPECT_EQ(db->top_k("k-matmul", kZen4, 10).size(), 3u) << "the failed record is never served";
  EXPECT_EQ(db->top_k("k-matmul", kZen4, 10, "another-device").size(), 0u);
  EXPECT_EQ(db->top_k("k-matmul", "llvm -mcpu=haswell -num-cores=2", 10).size(), 0u);
  EXPECT_EQ(db->targets_of("k-matmul"), (std::vector<std::string>{kZen3, kZen4}));
  EXPECT_EQ(db->num_records(), 5);
  EXPECT_EQ(db->counts_by_error(), (std::map<std::string, int64_t>{{"none", 4}, {"wrong_answer", 1}}));
  EXPECT_EQ(db->counts_by_target(), (std::map<std::string, int64_t>{{kZen3, 1}, {kZen4, 4}}));
  std::vector<WorkloadBest> best = db->best_per_workload();
  ASSERT_EQ(best.size(), 2u);
  EXPECT_EQ(best[0].target, kZen3);
  EXPECT_DOUBLE_EQ(best[0].secs, 1e-4);
  EXPECT_EQ(best[1].target, kZen4);
  EXPECT_DOUBLE_EQ(best[1].secs, 1e-3);
}

TEST_P(DatabaseContract, AFinalMeasurementRanksARecordAndKeepsItsFirstTimes) {
  std::string path = fresh("final");
  auto db = open_database(path);
  db->add_workload(matmul());
  db->add_records({record(kZen4, {1e-3}, "lucky"), record(kZen4, {1.1e-3}, "steady"),
                   record(kZen4, {1.15e-3}, "third")});
  std::vector<TuningRecord> top = db->top_k("k-matmul", kZen4, 2);
  ASSERT_EQ(top[0].trace_json, "lucky");
  // Before: ranked by their first medians. After: the two best, timed
  // again together, rank first and by that: "lucky" runs at 1.2 ms and
  // falls behind "steady" at 1.05 ms; "third", never timed again, follows.
  db->add_final_measurement(top[0].id, {1.2e-3, 1.3e-3, 1.2e-3});
  db->add_final_measurement(top[1].id, {1.05e-3});
  top = db->top_k("k-matmul", kZen4, 3);
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0].trace_json, "steady");
  EXPECT_EQ(top[1].trace_json, "lucky");
  EXPECT_EQ(top[2].trace_json, "third");
  EXPECT_DOUBLE_EQ(top[0].rank_secs(), 1.05e-3);
  EXPECT_EQ(top[1].run_secs, (std::vector<double>{1e-3})) << "the first times are kept";
  EXPECT_EQ(top[1].final_secs, (std::vector<double>{1.2e-3, 1.3e-3, 1.2e-3}));
  EXPECT_DOUBLE_EQ(db->best_per_workload()[0].secs, 1.05e-3);
  // More repeats add to the final measurement.
  db->add_final_measurement(top[0].id, {1.0e-3, 1.0e-3});
  EXPECT_DOUBLE_EQ(db->top_k("k-matmul", kZen4, 1)[0].rank_secs(), 1.0e-3);
  // A record that fails when timed again is never served, its times kept.
  db->add_final_measurement(top[0].id, {}, ErrorKind::kWrongAnswer, "max relative error 0.5");
  top = db->top_k("k-matmul", kZen4, 3);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].trace_json, "lucky");
  EXPECT_EQ(db->counts_by_error()["wrong_answer"], 1);
  bool kept = false;
  db->for_each_record([&](const TuningRecord& r) {
    if (r.trace_json != "steady") return;
    kept = r.final_secs.size() == 3 && r.error_message == "final measurement: max relative error 0.5";
  });
  EXPECT_TRUE(kept);
  // Reopened, all of it is there; prune ranks as top_k does.
  db.reset();
  db = open_database(path, OpenMode::kExisting);
  EXPECT_EQ(db->top_k("k-matmul", kZen4, 1)[0].final_secs.size(), 3u);
  EXPECT_EQ(db->prune(1), 2);
  EXPECT_EQ(db->top_k("k-matmul", kZen4, 5)[0].trace_json, "lucky");
  EXPECT_THROW(db->add_final_measurement(999, {1e-3}), Error);
}

TEST_P(DatabaseContract, RecordsSurviveReopening) {
  std::string path = fresh("reopen");
  {
    auto db = open_database(path);
    db->add_workload(matmul());
    db->add_records({record(kZen4, {1e-3})});
  }
  auto db = open_database(path, OpenMode::kExisting);
  EXPECT_EQ(db->num_records(), 1);
  ASSERT_TRUE(db->workload("k-matmul"));
  EXPECT_EQ(db->workload("k-matmul")->shape, "matmul:M=8,N=8,K=8,dtype=float32");
}

TEST_P(DatabaseContract, ABatchIsAllOrNothing) {
  std::string path = fresh("atomic");
  auto db = open_database(path);
  db->add_workload(matmul());
  TuningRecord orphan = record(kZen4, {1e-3});
  orphan.workload_key = "never-added";
  EXPECT_THROW(db->add_records({record(kZen4, {1e-3}), orphan}), Error);
  EXPECT_EQ(db->num_records(), 0);
  db->add_records({record(kZen4, {1e-3})});
  EXPECT_EQ(db->num_records(), 1);
}

TEST_P(DatabaseContract, AKeyHeldByAnotherComputationIsRefused) {
  auto db = open_database(fresh("collision"));
  db->add_workload(matmul());
  db->add_workload(matmul());  // the same again is fine
  WorkloadEntry other = matmul();
  other.ir_json = "{\"ir\": 2}";
  other.shape = "add:M=4,N=4";
  try {
    db->add_workload(other);
    FAIL() << "a colliding key was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("held by another computation"), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, DatabaseContract, ::testing::Values("sqlite", "postgresql"), backend_name);

}  // namespace
}  // namespace kiln::tuning
