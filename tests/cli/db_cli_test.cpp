// `kiln db ...` and `--db` on bench-op and print, as a user runs them.
#include <gtest/gtest.h>


#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_run.h"
#include "core/json.h"
#include "ops/workload.h"
#include "targets/target.h"
#include "tir/analysis/workload_key.h"
#include "tuning_logs/sqlite_database.h"
#include "tuning_logs/workload_entry.h"
#include "support/postgres.h"
#include "support/scratch.h"

namespace kiln::testing {
namespace {

const std::string kWorkload = "matmul:M=40,N=72,K=16";
const std::string kLoopTrace = std::string(KILN_SOURCE_DIR) + "/examples/schedules/matmul_1024_loops.json";

std::string read_file(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

std::string temp(const std::string& name) { return testing::scratch_path(name); }

tuning::TuningRecord record(const PrimFunc& f, const std::string& target, const std::string& trace, double secs) {
  tuning::TuningRecord r;
  r.workload_key = workload_key(f);
  r.target = target;
  r.device_key = "dev";
  r.cpu_model = "cpu";
  r.trace_json = trace;
  r.run_secs = {secs};
  return r;
}

// A database holding the loop schedule of kWorkload for the host, and a
// record for another CPU.
// The example loop schedule, written against the matmul's canonical form
// (its one block is b0 there), as records are (docs/tuning_database.md).
std::string canonical_loop_trace() {
  std::string t = read_file(kLoopTrace);
  const std::string from = "\"attrs\": [\"C\"]";
  t.replace(t.find(from), from.size(), "\"attrs\": [\"b0\"]");
  return t;
}

std::string sample_db(const std::string& name, const std::string& trace = canonical_loop_trace()) {
  std::string path = temp(name);
  auto db = tuning::open_sqlite_database(path);
  ops::Workload w = ops::parse_workload(kWorkload);
  PrimFunc f = ops::build_workload(w);
  db->add_workload(tuning::workload_entry(f, w.op, w.str(), ops::workload_flops(w)));
  db->add_records({record(f, Target::host().str(), trace, 1e-5),
                   record(f, "llvm -mcpu=haswell -num-cores=2", R"({"kiln_trace": 1, "instructions": []})", 2e-5)});
  return path;
}

TEST(DbCli, StatsAndBest) {
  std::string db = sample_db("stats");
  CliRun s = kiln("db stats " + db + " --json");
  ASSERT_EQ(s.code, 0) << s.out;
  auto j = nlohmann::json::parse(last_line(s.out));
  EXPECT_EQ(j["records"], 2);
  EXPECT_EQ(j["workloads"], 1);
  EXPECT_EQ(j["by_target"][Target::host().str()], 1);
  EXPECT_EQ(j["by_target"]["llvm -mcpu=haswell -num-cores=2"], 1);
  CliRun text = kiln("db stats " + db);
  EXPECT_NE(text.out.find("by target:\n"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("\n  1       llvm -mcpu=haswell -num-cores=2\n"), std::string::npos) << text.out;
  CliRun b = kiln("db best " + db + " " + kWorkload + " --json");
  ASSERT_EQ(b.code, 0) << b.out;
  EXPECT_EQ(nlohmann::json::parse(last_line(b.out)).size(), 1u);
  // The same record by the workload's key, as a model's task is named.
  const std::string key = workload_key(ops::build_workload(ops::parse_workload(kWorkload)));
  CliRun by_key = kiln("db best " + db + " " + key + " --json");
  ASSERT_EQ(by_key.code, 0) << by_key.out;
  EXPECT_EQ(nlohmann::json::parse(last_line(by_key.out)), nlohmann::json::parse(last_line(b.out)));
  CliRun unknown = kiln("db best " + db + " v1-0123456789abcdef");
  EXPECT_EQ(unknown.code, 2) << unknown.out;
  EXPECT_NE(unknown.out.find("holds no workload v1-0123456789abcdef"), std::string::npos) << unknown.out;
  CliRun table = kiln("db list " + db);
  EXPECT_NE(table.out.find(kWorkload), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("best 0.0100 ms"), std::string::npos) << table.out;
  CliRun listed = kiln("db list " + db + " --json");
  EXPECT_EQ(nlohmann::json::parse(last_line(listed.out))[0]["best"].size(), 2u) << "one per target";
}

TEST(DbCli, AnotherTargetGetsNothingAndIsToldWhatThereIs) {
  std::string db = sample_db("target");
  CliRun r = kiln("db best " + db + " " + kWorkload + " --target 'llvm -mcpu=znver3 -num-cores=2'");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("no valid record"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("llvm -mcpu=haswell"), std::string::npos) << r.out;
}

TEST(DbCli, BenchOpAndPrintApplyTheBestRecord) {
  std::string db = sample_db("apply");
  CliRun p = kiln("print " + kWorkload + " --db " + db);
  ASSERT_EQ(p.code, 0) << p.out;
  EXPECT_NE(p.out.find("T.vectorized(32)"), std::string::npos) << "the loop schedule was applied:\n" << p.out;
  EXPECT_EQ(p.out.find("warning"), std::string::npos) << p.out;
  CliRun b = kiln("bench-op " + kWorkload + " --db " + db + " --repeat 1 --check --json");
  ASSERT_EQ(b.code, 0) << b.out;
  EXPECT_LE(static_cast<double>(nlohmann::json::parse(last_line(b.out))["max_rel_err"]), 1e-4);

  CliRun none = kiln("print matmul:M=8,N=8,K=8 --db " + db);
  EXPECT_EQ(none.code, 0) << none.out;
  EXPECT_NE(none.out.find("warning"), std::string::npos) << none.out;
  EXPECT_NE(none.out.find("using the default schedule"), std::string::npos) << none.out;
}

// A record's trace taken out of the database names the blocks of the
// workload's stored form (b0, ...), not the operator's own (C): as a
// --trace file it applies to that form, as --db applies it. Before, print
// and bench-op stopped at its first instruction: no block named 'b0'.
TEST(DbCli, ARecordsTraceTakenOutOfTheDatabaseAppliesAsATraceFile) {
  const std::string trace = temp("record_trace.json");
  std::ofstream(trace) << canonical_loop_trace();
  CliRun p = kiln("print " + kWorkload + " --trace " + trace);
  ASSERT_EQ(p.code, 0) << p.out;
  EXPECT_NE(p.out.find("T.vectorized(32)"), std::string::npos) << "the loop schedule was applied:\n" << p.out;
  CliRun b = kiln("bench-op " + kWorkload + " --trace " + trace + " --repeat 1 --check --json");
  ASSERT_EQ(b.code, 0) << b.out;
  EXPECT_LE(static_cast<double>(nlohmann::json::parse(last_line(b.out))["max_rel_err"]), 1e-4);
  // A trace that names no block of either form still fails, naming it.
  std::string other = canonical_loop_trace();
  other.replace(other.find("\"b0\""), 4, "\"b9\"");
  const std::string other_file = temp("other_trace.json");
  std::ofstream(other_file) << other;
  CliRun bad = kiln("print " + kWorkload + " --trace " + other_file);
  EXPECT_EQ(bad.code, 2) << bad.out;
  EXPECT_NE(bad.out.find("no block named 'b9'"), std::string::npos) << bad.out;
}

// A model's task has no workload string: print takes its key, and the
// database gives the program as well as the schedule.
TEST(DbCli, PrintTakesAWorkloadKeyFromTheDatabase) {
  std::string db = sample_db("key");
  CliRun listed = kiln("db list " + db + " --json");
  ASSERT_EQ(listed.code, 0) << listed.out;
  const std::string key = nlohmann::json::parse(last_line(listed.out))[0]["key"];
  CliRun by_key = kiln("print " + key + " --db " + db);
  ASSERT_EQ(by_key.code, 0) << by_key.out;
  EXPECT_NE(by_key.out.find("T.vectorized(32)"), std::string::npos) << "the best record was applied:\n" << by_key.out;
  CliRun lowered = kiln("print " + key + " --db " + db + " --lowered");
  ASSERT_EQ(lowered.code, 0) << lowered.out;
  CliRun by_string = kiln("print " + kWorkload + " --db " + db + " --lowered");
  EXPECT_EQ(lowered.out, by_string.out) << "the same program either way";

  CliRun unknown = kiln("print v1-0123456789abcdef --db " + db);
  EXPECT_EQ(unknown.code, 2) << unknown.out;
  EXPECT_NE(unknown.out.find(db + " holds no workload v1-0123456789abcdef"), std::string::npos) << unknown.out;
  CliRun no_db = kiln("print " + key);
  EXPECT_EQ(no_db.code, 2) << no_db.out;
  EXPECT_NE(no_db.out.find("needs --db"), std::string::npos) << no_db.out;
}

// bench-op takes the key too: the same program, checked and timed, with
// the FLOPs counted from its IR.
TEST(DbCli, BenchOpTakesAWorkloadKeyFromTheDatabase) {
  std::string db = sample_db("bench_key");
  CliRun listed = kiln("db list " + db + " --json");
  ASSERT_EQ(listed.code, 0) << listed.out;
  const std::string key = nlohmann::json::parse(last_line(listed.out))[0]["key"];
  CliRun by_key = kiln("bench-op " + key + " --db " + db + " --repeat 2 --check --json");
  ASSERT_EQ(by_key.code, 0) << by_key.out;
  nlohmann::json k = nlohmann::json::parse(last_line(by_key.out));
  CliRun by_string = kiln("bench-op " + kWorkload + " --db " + db + " --repeat 2 --json");
  ASSERT_EQ(by_string.code, 0) << by_string.out;
  nlohmann::json w = nlohmann::json::parse(last_line(by_string.out));
  EXPECT_EQ(k["workload_key"], w["workload_key"]);
  EXPECT_EQ(k["check_passed"], true);
  // GFLOP/s from the same FLOPs either way.
  auto flops = [](const nlohmann::json& j) { return j["gflops"].get<double>() * j["median_ms"].get<double>(); };
  EXPECT_NEAR(flops(k), flops(w), 1e-6 * flops(w));

  CliRun no_db = kiln("bench-op " + key);
  EXPECT_EQ(no_db.code, 2) << no_db.out;
  EXPECT_NE(no_db.out.find("needs --db"), std::string::npos) << no_db.out;
  CliRun runner = kiln("bench-op " + key + " --db " + db + " --runner local");
  EXPECT_EQ(runner.code, 2) << runner.out;
  EXPECT_NE(runner.out.find("measured in this process"), std::string::npos) << runner.out;
}

TEST(DbCli, ARecordWhoseTraceNoLongerAppliesIsAnError) {
  std::string stale = R"({"kiln_trace": 1, "instructions": [
      {"kind": "get_block", "inputs": [], "attrs": ["gone"], "outputs": ["b0"]}]})";
  std::string db = sample_db("stale", stale);
  CliRun r = kiln("bench-op " + kWorkload + " --db " + db + " --repeat 1");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find(db + ": record 1 (workload "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("holds a trace that no longer applies"), std::string::npos) << r.out;
  // The same through a runner: the builder's instantiation error names the record too.
  CliRun remote = kiln("bench-op " + kWorkload + " --db " + db + " --repeat 1 --runner local");
  EXPECT_EQ(remote.code, 2) << remote.out;
  EXPECT_NE(remote.out.find(db + ": record 1 (workload "), std::string::npos) << remote.out;
}

TEST(DbCli, ExportImportMergePrune) {
  std::string db = sample_db("roundtrip");
  std::string jsonl = temp("out.jsonl"), copy = temp("copy.db");
  ASSERT_EQ(kiln("db export " + db + " -o " + jsonl).code, 0);
  CliRun i = kiln("db import " + copy + " " + jsonl + " --json");
  ASSERT_EQ(i.code, 0) << i.out;
  EXPECT_EQ(nlohmann::json::parse(last_line(i.out))["added"], 2);
  EXPECT_EQ(kiln("db export " + copy).out, read_file(jsonl));

  CliRun m = kiln("db merge " + copy + " " + db + " --json");
  ASSERT_EQ(m.code, 0) << m.out;
  EXPECT_EQ(nlohmann::json::parse(last_line(m.out))["added"], 0) << "everything is a duplicate";

  CliRun p = kiln("db prune " + copy + " --keep 1 --json");
  ASSERT_EQ(p.code, 0) << p.out;
  EXPECT_EQ(nlohmann::json::parse(last_line(p.out))["records"], 2) << "one per (workload, target)";
}

TEST(DbCli, BadFilesExitTwoAndStayAsTheyWere) {
  std::string text = temp("notes.txt");
  std::ofstream(text) << "shopping list: flour, eggs, a faster matmul\n";
  for (const std::string& cmd : {"db stats " + text, "db prune " + text, "bench-op add:M=4,N=4 --db " + text}) {
    CliRun r = kiln(cmd);
    EXPECT_EQ(r.code, 2) << cmd << "\n" << r.out;
    EXPECT_NE(r.out.find(text), std::string::npos) << r.out;
  }
  EXPECT_EQ(read_file(text), "shopping list: flour, eggs, a faster matmul\n");

  std::string db = sample_db("badline");
  std::string before = kiln("db export " + db).out;
  std::string bad = temp("bad.jsonl");
  std::ofstream(bad) << "{\"kiln_tuning\": 1, \"workload\": {\"key\": 3}}\n";
  CliRun r = kiln("db import " + db + " " + bad);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find(bad + ":1:"), std::string::npos) << r.out;
  EXPECT_EQ(kiln("db export " + db).out, before);
  EXPECT_EQ(kiln("db stats " + temp("missing.db")).code, 2);
}

// The password inside a test server's URL.
std::string password_of(const std::string& url) {
  const size_t colon = url.find(':', std::string("postgresql://").size());
  return url.substr(colon + 1, url.find('@') - colon - 1);
}

TEST(DbCli, EveryCommandWorksOnAServerAndNeverPrintsItsPassword) {
  const std::string file = sample_db("to-server");
  const std::string url = fresh_postgres_database("cli");
  const std::string password = password_of(url);
  ASSERT_GE(password.size(), 8u);
  std::vector<CliRun> runs;
  auto run = [&](const std::string& cmd) {
    runs.push_back(kiln(cmd));
    EXPECT_EQ(runs.back().out.find(password), std::string::npos) << cmd << " printed the password\n" << runs.back().out;
    return runs.back();
  };
  EXPECT_EQ(run("db stats " + url).code, 2) << "an empty server database is not opened as a tuning database";
  CliRun m = run("db merge " + url + " " + file + " --json");
  ASSERT_EQ(m.code, 0) << m.out;
  EXPECT_EQ(nlohmann::json::parse(last_line(m.out))["added"], 2);
  CliRun st = run("db stats " + url + " --json");
  ASSERT_EQ(st.code, 0) << st.out;
  nlohmann::json stats = nlohmann::json::parse(last_line(st.out));
  EXPECT_EQ(stats["records"], 2);
  EXPECT_NE(stats["file"].get<std::string>().find(":***@"), std::string::npos) << st.out;
  EXPECT_EQ(run("db export " + url).out, kiln("db export " + file).out);
  EXPECT_EQ(nlohmann::json::parse(last_line(run("db best " + url + " " + kWorkload + " --json").out)).size(), 1u);
  EXPECT_EQ(run("db list " + url).code, 0);
  EXPECT_EQ(run("bench-op " + kWorkload + " --db " + url + " --repeat 1").code, 0);
  // And back into a file.
  const std::string back = temp("from-server.db");
  EXPECT_EQ(nlohmann::json::parse(last_line(run("db merge " + back + " " + url + " --json").out))["added"], 2);
  EXPECT_EQ(kiln("db export " + back).out, kiln("db export " + file).out);
  // A tuning job writes to the server and resumes from it.
  const std::string tune = "tune-op matmul:M=16,N=16,K=16 --batch-size 4 --repeat 2 --final-top 0 --json --db " + url;
  CliRun t = run(tune + " --trials 4");
  ASSERT_EQ(t.code, 0) << t.out;
  CliRun again = run(tune + " --trials 8");
  ASSERT_EQ(again.code, 0) << again.out;
  EXPECT_EQ(nlohmann::json::parse(last_line(again.out))["trials_done"], 8);
  EXPECT_EQ(nlohmann::json::parse(last_line(again.out))["measured_now"], 4) << "the first 4 came from the server";
  // A wrong password: exit 2, the URL named without it.
  std::string wrong = url;
  wrong.replace(wrong.find(password), password.size(), "wrong-password-0815");
  CliRun w = kiln("db stats " + wrong);
  EXPECT_EQ(w.code, 2) << w.out;
  EXPECT_NE(w.out.find(":***@127.0.0.1"), std::string::npos) << w.out;
  EXPECT_EQ(w.out.find("wrong-password-0815"), std::string::npos) << w.out;
}

}  // namespace
}  // namespace kiln::testing
