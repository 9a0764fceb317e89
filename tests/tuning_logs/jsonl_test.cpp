// JSON lines export and import, merge and prune: round trips are exact,
// duplicates are dropped, and bad input changes nothing.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "core/error.h"
#include "tuning_logs/jsonl.h"
#include "tuning_logs/sqlite_database.h"

namespace kiln::tuning {
namespace {

std::unique_ptr<Database> fresh(const std::string& name) {
  std::string p = (std::filesystem::temp_directory_path() /
                   ("kiln-jsonl-test-" + std::to_string(getpid()) + "-" + name + ".db"))
                      .string();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(p + suffix);
  return open_sqlite_database(p);
}

WorkloadEntry workload(const std::string& key) { return {key, "{\"ir\": \"" + key + "\"}", "matmul", key + "-shape", 64}; }

TuningRecord record(const std::string& key, const std::string& target, const std::string& trace, double secs) {
  TuningRecord r;
  r.workload_key = key;
  r.target = target;
  r.device_key = "dev";
  r.cpu_model = "cpu \"quoted\"\nand a newline";
  r.trace_json = trace;
  if (secs > 0) r.run_secs = {secs, secs * 1.5};
  else r.error_kind = "timeout";
  r.build_ms = 3.25;
  r.kiln_version = "0.1.0";
  r.created_at = 1700000123;
  return r;
}

std::unique_ptr<Database> sample(const std::string& name) {
  auto db = fresh(name);
  db->add_workload(workload("k1"));
  db->add_workload(workload("k2"));
  db->add_records({record("k1", "t", "a", 3e-3), record("k1", "t", "b", 1e-3), record("k1", "t", "c", 0),
                   record("k2", "t", "a", 2e-3), record("k1", "u", "a", 5e-3)});
  return db;
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
  b->add_workload(workload("k1"));
  b->add_workload(workload("k3"));
  b->add_records({record("k1", "t", "b", 9e-3), record("k1", "t", "new", 4e-3), record("k3", "t", "a", 1e-3)});
  ImportCounts c = merge(*a, *b);
  EXPECT_EQ(c.added, 2) << "(k1, t, b) is already there";
  EXPECT_EQ(c.duplicates, 1);
  EXPECT_EQ(a->num_records(), 7);
  EXPECT_EQ(a->workloads().size(), 3u);
  EXPECT_EQ(a->top_k("k1", "t", 1).front().trace_json, "b") << "the copy in `a` was kept";
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
           {"{\"kiln_tuning\": 1, \"record\": " + std::string(R"({"workload_key": "nope", "target": "t", "device_key": "", "cpu_model": "", "trace": "", "run_secs": [], "build_ms": 0, "error_kind": "none", "error_message": "", "feature_version": 0, "kiln_version": "", "created_at": 0})") + "}\n",
            "in.jsonl:1: record of workload nope, which neither the file nor the database holds"},
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

TEST(Jsonl, AWorkloadKeyHeldByAnotherComputationIsRefusedWhole) {
  auto db = sample("collide");
  const std::string before = exported(*db);
  std::string text = "{\"kiln_tuning\": 1, \"workload\": {\"key\": \"k9\", \"ir_json\": \"{}\", \"op\": \"x\", "
                     "\"shape\": \"x\", \"flops\": 1}}\n"
                     "{\"kiln_tuning\": 1, \"workload\": {\"key\": \"k1\", \"ir_json\": \"{\\\"ir\\\": 5}\", "
                     "\"op\": \"x\", \"shape\": \"x\", \"flops\": 1}}\n";
  std::istringstream in(text);
  EXPECT_THROW(import_jsonl(*db, in, "in.jsonl"), Error);
  EXPECT_EQ(exported(*db), before) << "not even the new workload k9 was added";
}

TEST(Prune, KeepsTheBestKOfEachWorkloadAndTarget) {
  auto db = sample("prune");
  EXPECT_EQ(db->prune(1), 2) << "k1/t keeps b; its a and failed c go";
  EXPECT_EQ(db->num_records(), 3);
  EXPECT_EQ(db->top_k("k1", "t", 5).size(), 1u);
  EXPECT_EQ(db->top_k("k1", "t", 5).front().trace_json, "b");
  EXPECT_EQ(db->top_k("k1", "u", 5).size(), 1u);
  EXPECT_EQ(db->top_k("k2", "t", 5).size(), 1u);
  EXPECT_EQ(db->counts_by_error().count("timeout"), 0u);
}

}  // namespace
}  // namespace kiln::tuning
