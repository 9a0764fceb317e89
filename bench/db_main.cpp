// kiln_db_bench: the tuning database at the size the issue names.
//
//   kiln_db_bench [--workloads 1000] [--records 100000] [--dir /tmp]
//
// Fills a fresh SQLite database with `records` records over `workloads`
// workloads (2 targets each, every 10th record a failure) in batches of 64,
// then measures: insert rate, top-k query latency, file size per record,
// and the times of export, import (into a fresh file) and merge (into a
// fresh file, then again, where every record is a duplicate).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>

#include "bench/guarded_main.h"
#include "core/error.h"
#include "rpc/runner/device.h"
#include "targets/runtime/timing.h"
#include "ops/workload.h"
#include "tuning_logs/jsonl.h"
#include "tuning_logs/sqlite_database.h"
#include "tuning_logs/workload_entry.h"

namespace kiln::bench {
namespace {

using Clock = std::chrono::steady_clock;
using namespace tuning;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// The files a run made, removed when it ends.
std::vector<std::string> g_files;

void remove_files() {
  for (const std::string& p : g_files)
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(p + suffix);
}

std::string fresh(const std::string& dir, const std::string& name) {
  std::string p = (std::filesystem::path(dir) / ("kiln-db-bench-" + std::to_string(getpid()) + "-" + name)).string();
  g_files.push_back(p);
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(p + suffix);
  return p;
}

// A trace that reads, of realistic size (a tiled matmul's is about 2 KB):
// a block, its loops, and eight tile samples with random decisions.
std::string trace_text(std::mt19937_64& rng) {
  nlohmann::json insts = nlohmann::json::array();
  insts.push_back({{"kind", "get_block"}, {"inputs", nlohmann::json::array()}, {"attrs", {"C"}}, {"outputs", {"b0"}}});
  insts.push_back({{"kind", "get_loops"}, {"inputs", {"b0"}}, {"attrs", nlohmann::json::array()},
                   {"outputs", {"l1", "l2", "l3"}}});
  int next = 4;
  for (int i = 0; i < 8; ++i) {
    nlohmann::json outs = nlohmann::json::array(), decision = nlohmann::json::array();
    for (int k = 0; k < 4; ++k) {
      outs.push_back("v" + std::to_string(next++));
      decision.push_back(1 << (rng() % 5));
    }
    insts.push_back({{"kind", "sample_perfect_tile"}, {"inputs", {"l" + std::to_string(1 + i % 3)}},
                     {"attrs", {4, 16}}, {"outputs", outs}, {"decision", decision}});
  }
  return nlohmann::json{{"kiln_trace", 1}, {"instructions", insts}}.dump();
}

int64_t file_bytes(const std::string& p) {
  int64_t n = 0;
  for (const char* suffix : {"", "-wal"}) {
    std::error_code ec;
    auto s = std::filesystem::file_size(p + suffix, ec);
    if (!ec) n += static_cast<int64_t>(s);
  }
  return n;
}

int run(int argc, char** argv) {
  int workloads = 1000, records = 100000;
  std::string dir = std::filesystem::temp_directory_path().string();
  CLI::App app{"kiln_db_bench: the tuning database at size"};
  app.add_option("--workloads", workloads)->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--records", records)->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--dir", dir, "where the files go")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  std::cout << "cpu: " << rpc::cpu_model_name() << "; " << records << " records over " << workloads
            << " workloads, batches of 64\n";

  std::mt19937_64 rng(7);
  const std::vector<std::string> targets = {"llvm -mcpu=znver4 -num-cores=2", "llvm -mcpu=znver3 -num-cores=2"};
  std::string path = fresh(dir, "main.db");
  auto db = open_sqlite_database(path);
  std::vector<std::string> keys;
  for (int w = 0; w < workloads; ++w) {
    ops::Workload wl = ops::parse_workload("matmul:M=" + std::to_string(w + 1) + ",N=64,K=64");
    WorkloadEntry e = workload_entry(ops::build_workload(wl), wl.op, wl.str(), ops::workload_flops(wl));
    keys.push_back(e.key);
    db->add_workload(e);
  }

  auto t0 = Clock::now();
  std::vector<TuningRecord> batch;
  for (int i = 0; i < records; ++i) {
    TuningRecord r;
    r.workload_key = keys[rng() % workloads];
    r.target = targets[rng() % 2];
    r.device_key = "znver4";
    r.cpu_model = "AMD EPYC";
    r.trace_json = trace_text(rng);
    if (i % 10 == 9) {
      r.error_kind = ErrorKind::kRuntimeError;
      r.error_message = "the candidate crashed its worker: killed by signal 11 (SIGSEGV, segmentation fault)";
    } else {
      for (int k = 0; k < 3; ++k) r.run_secs.push_back(1e-4 + 1e-6 * static_cast<double>(rng() % 1000));
    }
    r.build_ms = 80;
    r.kiln_version = "0.1.0";
    r.created_at = 1700000000 + i;
    batch.push_back(std::move(r));
    if (batch.size() == 64 || i + 1 == records) {
      db->add_records(batch);
      batch.clear();
    }
  }
  double insert_ms = ms_since(t0);
  std::cout << std::fixed << std::setprecision(0) << "insert: " << records / (insert_ms * 1e-3) << " records/s ("
            << std::setprecision(1) << insert_ms << " ms)\n";

  std::vector<double> lat;
  for (int q = 0; q < 2000; ++q) {
    const std::string& key = keys[rng() % workloads];
    auto q0 = Clock::now();
    auto best = db->top_k(key, targets[q % 2], 5);
    lat.push_back(ms_since(q0));
    if (best.empty()) KILN_USER_ERROR() << "no record for " << key;
  }
  std::sort(lat.begin(), lat.end());
  std::cout << std::setprecision(3) << "top-5 query: median " << median(lat) << " ms, p99 " << lat[lat.size() * 99 / 100]
            << " ms\n";
  db.reset();
  auto reopened = open_sqlite_database(path);
  reopened.reset();
  std::cout << std::setprecision(0) << "file: " << file_bytes(path) / static_cast<double>(records)
            << " bytes per record (" << file_bytes(path) / (1 << 20) << " MiB)\n";

  db = open_sqlite_database(path);
  std::string jsonl = fresh(dir, "export.jsonl");
  t0 = Clock::now();
  {
    std::ofstream out(jsonl);
    export_jsonl(*db, out);
  }
  std::cout << std::setprecision(1) << "export: " << ms_since(t0) << " ms ("
            << std::filesystem::file_size(jsonl) / (1 << 20) << " MiB of JSON lines)\n";
  auto copy = open_sqlite_database(fresh(dir, "import.db"));
  t0 = Clock::now();
  {
    std::ifstream in(jsonl);
    import_jsonl(*copy, in, jsonl);
  }
  std::cout << "import: " << ms_since(t0) << " ms into an empty file\n";
  // Merging into an empty file adds every record; merging the same file
  // again finds every one a duplicate.
  auto merged = open_sqlite_database(fresh(dir, "merge.db"));
  for (const char* pass : {"into an empty file", "again"}) {
    t0 = Clock::now();
    ImportCounts c = merge(*merged, *db, "bench");
    std::cout << "merge " << pass << ": " << ms_since(t0) << " ms (" << c.added << " added, " << c.duplicates
              << " duplicates)\n";
  }
  return 0;
}

}  // namespace
}  // namespace kiln::bench

int main(int argc, char** argv) {
  const int rc = kiln::bench::guarded_main("kiln_db_bench", kiln::bench::run, argc, argv);
  kiln::bench::remove_files();
  return rc;
}
