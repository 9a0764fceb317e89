// kiln db stats|list|best|export|import|merge|prune FILE ...
//
// The tuning database from the command line (docs/tuning_database.md):
// tables for people, --json for scripts. A file that is not a kiln tuning
// database, is corrupt or newer exits 2, naming the file, and is not changed.
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "driver/op_program.h"
#include "targets/target.h"
#include "tir/analysis/workload_key.h"
#include "tools/commands.h"
#include "tuning_logs/best.h"
#include "tuning_logs/jsonl.h"
#include "tuning_logs/open_database.h"

namespace kiln::cli {
namespace {

using nlohmann::json;
using tuning::Database;
using tuning::OpenMode;

std::unique_ptr<Database> open_existing(const std::string& path) {
  return tuning::open_database(path, OpenMode::kExisting);
}

json counts_json(const std::map<std::string, int64_t>& m) {
  json j = json::object();
  for (const auto& [k, v] : m) j[k] = v;
  return j;
}

void stats(const std::string& file, bool as_json) {
  auto db = open_existing(file);
  const int64_t records = db->num_records();
  const size_t workloads = db->workloads().size();
  const auto by_error = db->counts_by_error();
  const auto by_target = db->counts_by_target();
  if (as_json) {
    std::cout << json{{"file", tuning::database_name(file)}, {"workloads", workloads}, {"records", records},
                      {"by_error", counts_json(by_error)}, {"by_target", counts_json(by_target)}}
                     .dump()
              << "\n";
    return;
  }
  std::cout << tuning::database_name(file) << ": " << workloads << " workloads, " << records << " records\n";
  for (const auto& [kind, n] : by_error) std::cout << "  " << std::left << std::setw(20) << kind << n << "\n";
  std::cout << "by target:\n";
  for (const auto& [target, n] : by_target) std::cout << "  " << std::left << std::setw(8) << n << target << "\n";
}

void list(const std::string& file, bool as_json) {
  auto db = open_existing(file);
  auto counts = db->counts_by_workload();
  std::map<std::string, std::vector<tuning::WorkloadBest>> best;
  for (tuning::WorkloadBest& b : db->best_per_workload()) best[b.workload_key].push_back(std::move(b));
  json out = json::array();
  if (!as_json) std::cout << std::left << std::setw(22) << "key" << std::setw(10) << "records" << "workload\n";
  for (const tuning::WorkloadEntry& w : db->workloads()) {
    int64_t n = counts.count(w.key) ? counts[w.key] : 0;
    json bests = json::array();
    for (const tuning::WorkloadBest& b : best[w.key])
      bests.push_back({{"target", b.target}, {"median_ms", b.secs * 1e3}, {"gflops", w.flops / b.secs / 1e9}});
    if (as_json) {
      out.push_back({{"key", w.key}, {"workload", w.shape}, {"op", w.op}, {"flops", w.flops}, {"records", n},
                     {"best", bests}});
      continue;
    }
    std::cout << std::left << std::setw(22) << w.key << std::setw(10) << n << w.shape << "\n";
    for (const tuning::WorkloadBest& b : best[w.key])
      std::cout << std::string(32, ' ') << "best " << std::fixed << std::setprecision(4) << b.secs * 1e3
                << " ms (" << std::setprecision(1) << w.flops / b.secs / 1e9 << " GFLOP/s) on " << b.target
                << "\n";
  }
  if (as_json) std::cout << out.dump() << "\n";
}

void best(const std::string& file, const std::string& workload, const std::string& target_str, int k, bool as_json) {
  auto db = open_existing(file);
  const NamedWorkload w = named_workload(workload, file);
  const PrimFunc& f = w.func;
  const double flops = w.flops;
  const std::string target = Target::parse(target_str).str();
  std::vector<tuning::TuningRecord> rs = db->top_k(workload_key(f), target, k);
  if (rs.empty()) KILN_USER_ERROR() << tuning::database_name(file) << ": " << tuning::no_record_message(*db, f, target);
  json out = json::array();
  for (const auto& r : rs) {
    double gflops = flops / r.rank_secs() / 1e9;
    if (as_json) {
      out.push_back({{"median_ms", r.rank_secs() * 1e3}, {"gflops", gflops}, {"final", !r.final_secs.empty()},
                     {"device_key", r.device_key}, {"cpu_model", r.cpu_model},
                     {"trace", json::parse(r.trace_json, nullptr, false)}});
    } else {
      std::cout << std::fixed << std::setprecision(4) << r.rank_secs() * 1e3 << " ms  " << std::setprecision(1)
                << gflops << " GFLOP/s  " << r.device_key << " (" << r.cpu_model << ")"
                << (r.final_secs.empty() ? "" : "  timed again at the end of its job") << "\n";
    }
  }
  if (as_json) std::cout << out.dump() << "\n";
}

void export_to(const std::string& file, const std::string& out_path) {
  auto db = open_existing(file);
  if (out_path.empty() || out_path == "-") {
    tuning::export_jsonl(*db, std::cout);
    return;
  }
  std::ofstream out(out_path);
  if (!out) KILN_USER_ERROR() << "cannot write " << out_path;
  int64_t n = tuning::export_jsonl(*db, out);
  std::cerr << "kiln: wrote " << n << " lines to " << out_path << "\n";
}

void print_counts(const tuning::ImportCounts& c, bool as_json) {
  if (as_json)
    std::cout << json{{"workloads", c.workloads}, {"records", c.records}, {"added", c.added}, {"duplicates", c.duplicates}}
                     .dump()
              << "\n";
  else
    std::cout << "added " << c.added << " of " << c.records << " records (" << c.duplicates
              << " already held), " << c.workloads << " workloads\n";
}

}  // namespace

void add_db(CLI::App& app) {
  struct Args {
    std::string file, input, workload, target = "llvm", out;
    std::vector<std::string> others;
    int k = 5, keep = 10;
    bool json = false;
  };
  auto a = std::make_shared<Args>();
  CLI::App* db = app.add_subcommand("db", "inspect, share and maintain tuning databases (docs/tuning_database.md)");
  db->require_subcommand(1);
  auto with_file = [&](CLI::App* c) {
    c->add_option("file", a->file, "the tuning database: a SQLite file or a postgresql:// URL")->required();
    c->add_flag("--json", a->json, "print JSON instead of a table");
    return c;
  };
  with_file(db->add_subcommand("stats", "records and workloads, records by error kind"))->callback([a] {
    stats(a->file, a->json);
  });
  with_file(db->add_subcommand("list", "every workload with its record count"))->callback([a] { list(a->file, a->json); });
  CLI::App* b = with_file(db->add_subcommand("best", "the fastest records of a workload on a target"));
  b->add_option("workload", a->workload, "OP:key=value,... or a workload key the database holds (kiln db list)")->required();
  b->add_option("--target", a->target, "target string")->capture_default_str();
  b->add_option("-k", a->k, "how many")->check(CLI::PositiveNumber)->capture_default_str();
  b->callback([a] { best(a->file, a->workload, a->target, a->k, a->json); });
  CLI::App* e = db->add_subcommand("export", "write the database as JSON lines");
  e->add_option("file", a->file, "the tuning database: a SQLite file or a postgresql:// URL")->required();
  e->add_option("-o,--out", a->out, "output file (default: stdout)");
  e->callback([a] { export_to(a->file, a->out); });
  CLI::App* i = with_file(db->add_subcommand("import", "add the records of a JSON lines file (all or nothing)"));
  i->add_option("jsonl", a->input, "JSON lines file")->required();
  i->callback([a] {
    std::ifstream in(a->input);
    if (!in) KILN_USER_ERROR() << "cannot read " << a->input;
    auto d = tuning::open_database(a->file);
    print_counts(tuning::import_jsonl(*d, in, a->input), a->json);
  });
  CLI::App* m = with_file(db->add_subcommand("merge", "add the records of other databases, dropping duplicates"));
  m->add_option("others", a->others, "databases to merge in (files or URLs)")->required();
  m->callback([a] {
    auto into = tuning::open_database(a->file);
    for (const std::string& other : a->others) print_counts(tuning::merge(*into, *open_existing(other), tuning::database_name(other)), a->json);
  });
  CLI::App* p = with_file(db->add_subcommand("prune", "keep the best k records of every workload and target"));
  p->add_option("--keep", a->keep, "records to keep per (workload, target)")->check(CLI::PositiveNumber)->capture_default_str();
  p->callback([a] {
    auto d = open_existing(a->file);
    int64_t gone = d->prune(a->keep);
    if (a->json) std::cout << json{{"deleted", gone}, {"records", d->num_records()}}.dump() << "\n";
    else std::cout << "deleted " << gone << " records, " << d->num_records() << " left\n";
  });
}

}  // namespace kiln::cli
