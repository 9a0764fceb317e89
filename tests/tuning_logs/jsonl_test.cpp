// JSON lines export and import, merge and prune: round trips are exact,
// duplicates are dropped, and bad input changes nothing.
#include <gtest/gtest.h>


#include <sstream>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "tuning_logs/fixtures.h"
#include "tuning_logs/jsonl.h"
#include "tuning_logs/sqlite_database.h"
#include "support/scratch.h"

namespace kiln::tuning {
namespace {

std::unique_ptr<Database> fresh(const std::string& name) {
  return open_sqlite_database(testing::scratch_path(name + ".db"));
}

// Workloads k1, k2, k3: matmuls with M = 1, 2, 3.
WorkloadEntry workload(int n) { return test_workload(n); }
std::string k(int n) { return test_workload(n).key; }

TuningRecord record(const std::string& key, const std::string& target, const std::string& trace, double secs) {
  TuningRecord r;
  r.workload_key = key;
  r.target = target;
  r.device_key = "dev";
  r.cpu_model = "cpu \"quoted\"\nand a newline";
  r.trace_json = test_trace(trace);
  if (secs > 0) r.run_secs = {secs, secs * 1.5};
  else r.error_kind = ErrorKind::kTimeout;
  r.build_ms = 3.25;
  r.kiln_version = "0.1.0";
  r.created_at = 1700000123;
  return r;
}

std::unique_ptr<Database> sample(const std::string& name) {
  auto db = fresh(name);
  db->add_workload(workload(1));
  db->add_workload(workload(2));
  db->add_records({record(k(1), "t", "a", 3e-3), record(k(1), "t", "b", 1e-3), record(k(1), "t", "c", 0),
                   record(k(2), "t", "a", 2e-3), record(k(1), "u", "a", 5e-3)});
  return db;
}

// One JSON line holding a record or a workload, with the fields a test varies.
std::string record_line(const std::string& key, const std::string& trace, const std::string& error_kind = "\"none\"",
                        const std::string& run_secs = "[]") {
  return "{\"kiln_tuning\": 1, \"record\": {\"workload_key\": \"" + key +
         "\", \"target\": \"t\", \"device_key\": \"\", \"cpu_model\": \"\", \"trace\": " +
         nlohmann::json(trace).dump() + ", \"run_secs\": " + run_secs +
         ", \"build_ms\": 0, \"error_kind\": " + error_kind +
         ", \"error_message\": \"\", \"feature_version\": 0, \"kiln_version\": \"\", \"created_at\": 0}}\n";
}
std::string workload_line(const std::string& key, const std::string& ir_json) {
  return "{\"kiln_tuning\": 1, \"workload\": {\"key\": \"" + key + "\", \"ir_json\": " +
         nlohmann::json(ir_json).dump() + ", \"op\": \"x\", \"shape\": \"x\", \"flops\": 1}}\n";
}

std::string exported(Database& db) {
  std::ostringstream os;
  export_jsonl(db, os);
  return os.str();
}

TEST(Jsonl, ExportThenImportIsIdentical) {
  auto db = sample("export");
  std::string text = exported(*db);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2 + 5);
  auto copy = fresh("import");
  std::istringstream in(text);
  ImportCounts c = import_jsonl(*copy, in, "sample.jsonl");
  EXPECT_EQ(c.workloads, 2);
  EXPECT_EQ(c.records, 5);
  EXPECT_EQ(c.added, 5);
  EXPECT_EQ(exported(*copy), text);
}

TEST(Jsonl, AFinalMeasurementTravelsWithItsRecord) {
  auto db = sample("final");
  const TuningRecord best = db->top_k(k(1), "t", 1).front();
  db->add_final_measurement(best.id, {4e-3, 4e-3});
  std::string text = exported(*db);
  EXPECT_NE(text.find("\"final_secs\":[0.004,0.004]"), std::string::npos) << text;
  auto copy = fresh("final-import");
  std::istringstream in(text);
  import_jsonl(*copy, in, "final.jsonl");
  EXPECT_EQ(exported(*copy), text);
  // Ranked by it there too: "b", timed again (4 ms), ahead of "a", never
  // timed again (3 ms at first).
  std::vector<TuningRecord> top = copy->top_k(k(1), "t", 2);
  EXPECT_EQ(top[0].trace_json, test_trace("b"));
  EXPECT_DOUBLE_EQ(top[0].rank_secs(), 4e-3);
  EXPECT_EQ(top[1].trace_json, test_trace("a"));
}

TEST(Jsonl, ImportingTwiceAddsNothingTheSecondTime) {
  auto db = sample("twice");
  std::string text = exported(*db);
  std::istringstream in(text);
  ImportCounts c = import_jsonl(*db, in, "again.jsonl");
  EXPECT_EQ(c.added, 0);
  EXPECT_EQ(c.duplicates, 5);
  EXPECT_EQ(db->num_records(), 5);
}

TEST(Jsonl, MergeDeduplicates) {
  auto a = sample("merge-a");
  auto b = fresh("merge-b");
  b->add_workload(workload(1));
  b->add_workload(workload(3));
  b->add_records({record(k(1), "t", "b", 9e-3), record(k(1), "t", "new", 4e-3), record(k(3), "t", "a", 1e-3)});
  ImportCounts c = merge(*a, *b, "b.db");
  EXPECT_EQ(c.added, 2) << "(k1, t, b) is already there";
  EXPECT_EQ(c.duplicates, 1);
  EXPECT_EQ(a->num_records(), 7);
  EXPECT_EQ(a->workloads().size(), 3u);
  EXPECT_EQ(a->top_k(k(1), "t", 1).front().trace_json, test_trace("b")) << "the copy in `a` was kept";
}

TEST(Jsonl, BadLinesNameFileAndLineAndChangeNothing) {
  auto db = sample("bad");
  const std::string before = exported(*db);
  std::string good = exported(*sample("bad-src"));
  struct Case {
    std::string text, message;
  };
  for (const Case& c : std::vector<Case>{
           {good + "{not json\n", "in.jsonl:8: malformed line"},
           {good + "{\"kiln_tuning\": 7, \"record\": {}}\n", "in.jsonl:8: format version 7"},
           {"[1, 2]\n", "in.jsonl:1: not a kiln tuning line"},
           {good + "{\"kiln_tuning\": 1, \"record\": {\"workload_key\": \"k1\"}}\n", "in.jsonl:8: malformed line"},
           {record_line(k(9), test_trace("a")), "in.jsonl:1: record of workload " + k(9) + ", which neither the file nor the database holds"},
           // A record whose trace does not read.
           {good + record_line(k(1), "[1, 2]"), "in.jsonl:8: record of workload " + k(1) + ": trace: expected a JSON object"},
           // Unknown error kinds and negative times.
           {good + record_line(k(1), test_trace("z"), "\"exploded\"", "[1e-3]"), "in.jsonl:8: record with an unknown error kind 'exploded'"},
           {good + record_line(k(1), test_trace("z"), "\"none\"", "[-1]"), "in.jsonl:8: record with a run time of -1 s"},
           // A workload whose IR does not read, or is another computation than its key.
           {workload_line(k(1), "{}"), "in.jsonl:1: workload " + k(1) + " (x): its IR is invalid: IR JSON has no \"kiln_ir\" version"},
           {workload_line(k(1), workload(2).ir_json), "in.jsonl:1: workload " + k(1) + " (x): its IR has the key " + k(2)},
       }) {
    std::istringstream in(c.text);
    try {
      import_jsonl(*db, in, "in.jsonl");
      FAIL() << "accepted: " << c.text;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << e.what();
    }
    EXPECT_EQ(exported(*db), before);
  }
}

TEST(Jsonl, ABadLineRefusesTheWholeFile) {
  auto db = sample("whole");
  const std::string before = exported(*db);
  // A new, valid workload first, then one whose IR is not its key's.
  std::istringstream in(workload_line(k(9), workload(9).ir_json) + workload_line(k(1), workload(2).ir_json));
  EXPECT_THROW(import_jsonl(*db, in, "in.jsonl"), Error);
  EXPECT_EQ(exported(*db), before) << "not even the new workload was added";
}

TEST(Jsonl, MergeChecksTheOtherDatabase) {
  auto a = sample("merge-check-a");
  const std::string before = exported(*a);
  auto b = fresh("merge-check-b");
  b->add_workload(workload(1));
  TuningRecord bad = record(k(1), "t", "x", 1e-3);
  bad.trace_json = "not a trace";
  b->add_records({record(k(1), "t", "ok", 1e-3), bad});
  try {
    merge(*a, *b, "b.db");
    FAIL() << "merged a record whose trace does not read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("b.db: record 2: record of workload " + k(1) + ": trace is not valid JSON"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(exported(*a), before);
}

TEST(Prune, KeepsTheBestKOfEachWorkloadAndTarget) {
  auto db = sample("prune");
  EXPECT_EQ(db->prune(1), 2) << "k1/t keeps b; its a and failed c go";
  EXPECT_EQ(db->num_records(), 3);
  EXPECT_EQ(db->top_k(k(1), "t", 5).size(), 1u);
  EXPECT_EQ(db->top_k(k(1), "t", 5).front().trace_json, test_trace("b"));
  EXPECT_EQ(db->top_k(k(1), "u", 5).size(), 1u);
  EXPECT_EQ(db->top_k(k(2), "t", 5).size(), 1u);
  EXPECT_EQ(db->counts_by_error().count("timeout"), 0u);
}

}  // namespace
}  // namespace kiln::tuning
