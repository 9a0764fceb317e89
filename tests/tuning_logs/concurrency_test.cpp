// Several writer processes on one database, and a writer killed mid-batch:
// every committed batch is there, whole, and no partial one; a SQLite file
// is sound. On both backends.
#include <gtest/gtest.h>

#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <thread>

#include "tuning_logs/fixtures.h"
#include "tuning_logs/open_database.h"

namespace kiln::tuning {
namespace {

constexpr int kBatch = 64;

std::vector<TuningRecord> batch(const std::string& writer, int b) {
  std::vector<TuningRecord> out;
  for (int i = 0; i < kBatch; ++i) {
    TuningRecord r;
    r.workload_key = "k";
    r.target = "t";
    r.trace_json = writer + "/" + std::to_string(b) + "/" + std::to_string(i);
    r.run_secs = {1e-3 * (i + 1)};
    out.push_back(r);
  }
  return out;
}

// Forks a process that writes `batches` batches (-1: until killed).
pid_t writer(const std::string& path, const std::string& name, int batches) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  try {
    auto db = open_database(path);
    db->add_workload({"k", "{}", "op", "shape", 1});
    for (int b = 0; batches < 0 || b < batches; ++b) db->add_records(batch(name, b));
  } catch (const std::exception& e) {
    fprintf(stderr, "writer %s: %s\n", name.c_str(), e.what());
    _exit(1);
  }
  _exit(0);
}

// Records per (writer, batch).
std::map<std::string, int> batches_in(Database& db) {
  std::map<std::string, int> n;
  db.for_each_record([&](const TuningRecord& r) { ++n[r.trace_json.substr(0, r.trace_json.rfind('/'))]; });
  return n;
}

std::string integrity(const std::string& path) {
  sqlite3* raw = nullptr;
  sqlite3_open(path.c_str(), &raw);
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(raw, "PRAGMA integrity_check", -1, &s, nullptr);
  std::string out = sqlite3_step(s) == SQLITE_ROW ? reinterpret_cast<const char*>(sqlite3_column_text(s, 0)) : "?";
  sqlite3_finalize(s);
  sqlite3_close(raw);
  return out;
}

class Concurrency : public ::testing::TestWithParam<std::string> {
 protected:
  // Whether a SQLite file passes its integrity check; a server checks itself.
  void expect_sound(const std::string& where) {
    if (GetParam() == "sqlite") EXPECT_EQ(integrity(where), "ok");
  }
};

TEST_P(Concurrency, TwoWriterProcessesOnOneDatabase) {
  std::string path = fresh_database(GetParam(), "two");
  open_database(path);  // both open an existing file
  pid_t a = writer(path, "a", 20), b = writer(path, "b", 20);
  for (pid_t p : {a, b}) {
    int status = 0;
    waitpid(p, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "writer " << p << " failed";
  }
  auto db = open_database(path);
  EXPECT_EQ(db->num_records(), 2 * 20 * kBatch);
  for (const auto& [name, n] : batches_in(*db)) EXPECT_EQ(n, kBatch) << name;
  expect_sound(path);
}

TEST_P(Concurrency, AWriterKilledMidBatchLeavesWholeBatchesOnly) {
  std::string path = fresh_database(GetParam(), "killed");
  open_database(path);
  pid_t w = writer(path, "w", -1);
  // Let it commit a few batches, then kill it wherever it is.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline && open_database(path)->num_records() < 5 * kBatch)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  kill(w, SIGKILL);
  int status = 0;
  waitpid(w, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));

  expect_sound(path);
  auto db = open_database(path);
  std::map<std::string, int> batches = batches_in(*db);
  EXPECT_GE(batches.size(), 5u);
  for (const auto& [name, n] : batches) EXPECT_EQ(n, kBatch) << name << " is partial";
  EXPECT_EQ(db->num_records(), static_cast<int64_t>(batches.size()) * kBatch);
  // Every batch up to the last committed one is there: none was lost.
  for (size_t b = 0; b < batches.size(); ++b) EXPECT_TRUE(batches.count("w/" + std::to_string(b))) << b;
}

INSTANTIATE_TEST_SUITE_P(Backends, Concurrency, ::testing::Values("sqlite", "postgresql"), backend_name);

}  // namespace
}  // namespace kiln::tuning
