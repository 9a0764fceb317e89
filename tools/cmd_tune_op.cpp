// kiln tune-op WORKLOAD|KEY --trials N --db FILE [--target T] [--time-budget D]
//                       [--strategy evolutionary|random] [--cost-model xgb|random|MODEL] [--seed S]
//                       [--threads N] [--batch-size N] [--repeat R] [--slow-factor X] [--similar N] [--final-top K]
//                       [--register-designs N]
//                       [--runner ADDR [--token T]] [--json] [--curve FILE]
//
// Tunes one workload (a workload string, or a workload key the database
// holds: a function defined in Python, a model's task): the search proposes candidates of its design space,
// the builder builds them, a runner measures them (checked against the
// default program), and every batch goes into the tuning database. On a
// terminal a progress bar, otherwise a line per round. Ctrl-C finishes the
// batch in flight, keeps it, and stops. A rerun on the same database
// resumes. At the end the best records are timed again at length (--final-top)
// and ranked by that. `kiln bench-op WORKLOAD --db FILE` then compiles the best.
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <fstream>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "core/error.h"
#include "tir/analysis/workload_key.h"
#include "driver/tune.h"
#include "tools/commands.h"
#include "tools/duration.h"
#include "search/progress_json.h"
#include "search/progress_line.h"
#include "tools/tune_flags.h"
#include "tools/tune_session.h"
#include "tuning_logs/open_database.h"
#include "tuning_logs/workload_entry.h"

namespace kiln::cli {
namespace {

struct Args {
  std::string workload;
  std::string db;
  TuneFlags tune;
  std::string runner = "local";
  std::string token;
  std::string tls_ca;
  bool json = false;
  std::string curve;
};

void show_progress(const search::TuneProgress& p, bool terminal) {
  if (terminal && p.final_measured == 0) {
    std::ostringstream best;
    best << std::fixed << std::setprecision(1) << p.best_gflops;
    const int width = 30;
    const int filled = p.trials_total ? static_cast<int>(width * p.trials_done / p.trials_total) : 0;
    std::cerr << "\r[" << std::string(std::min(filled, width), '#') << std::string(width - std::min(filled, width), '.')
              << "] " << p.trials_done << "/" << p.trials_total << " trials  best " << best.str()
              << " GFLOP/s  " << search::clock_text(p.elapsed_s) << " elapsed  ETA " << search::clock_text(p.eta_s)
              << (p.internal_errors ? "  " + std::to_string(p.internal_errors) + " INTERNAL ERRORS" : "") << "   "
              << std::flush;
    return;
  }
  // The last report after a bar ends the bar's line first.
  std::cerr << (terminal ? "\n" : "") << search::progress_line(p) << "\n";
}

void run(const Args& a) {
  const search::TuneTask task = named_task(a.workload, a.db);
  const tuning::WorkloadEntry& entry = task.entry;
  const std::string name = is_workload_key(a.workload) ? a.workload : entry.shape;
  const search::TuneOptions o = a.tune.resolve();
  if (a.tune.dry_run) {
    std::cout << o.to_json().dump() << "\n";
    return;
  }
  const bool terminal = isatty(STDERR_FILENO);
  std::ofstream curve;
  if (!a.curve.empty()) {
    curve.open(a.curve);
    if (!curve) KILN_USER_ERROR() << "cannot write the curve file '" << a.curve << "'";
  }
  std::cerr << "kiln: tuning " << name << " (" << entry.key << ") for '" << o.target.str() << "': " << o.trials
            << " trials, " << o.strategy << " search"
            << (o.strategy == "random" ? "" : " with cost model " + o.cost_model) << ", into " << tuning::database_name(a.db) << "\n";
  note_emulation(o.target);
  search::TuneResult r;
  {
    StopOnInterrupt interrupt;
    r =
      tune_workload(task, o, a.db, {a.runner, a.token, a.tls_ca},
                    [&](const search::TuneProgress& p) {
                      show_progress(p, terminal);
                      if (curve.is_open() && p.final_measured == 0) curve << search::progress_json(p).dump() << std::endl;
                    },
                    interrupt.stop());
  }
  if (terminal && r.last.round > 0 && r.last.final_measured == 0) std::cerr << "\n";
  if (r.stopped) std::cerr << "kiln: stopped; every measured batch is in " << tuning::database_name(a.db) << "\n";

  nlohmann::json out = {{"workload", name},         {"workload_key", entry.key},
                        {"target", o.target.str()},    {"trials_done", r.last.trials_done},
                        {"measured_now", r.measured_now}, {"errors", r.last.errors},
                        {"internal_errors", r.last.internal_errors},
                        {"elapsed_s", r.last.elapsed_s}, {"stopped", r.stopped}};
  if (r.best) {
    const double ms = r.best->rank_secs() * 1e3;
    const double gflops = entry.flops / r.best->rank_secs() / 1e9;
    const double tuning_gflops = entry.flops / r.best->median_secs() / 1e9;
    // One figure: the final measurement's, timed as bench-op times it
    // (report_timing); the round's figure only where there is none.
    std::cout << name << ": best " << std::fixed << std::setprecision(1) << gflops << " GFLOP/s (median "
              << std::setprecision(3) << ms << " ms"
              << (r.best->final_secs.empty() ? " while tuning"
                                             : " over " + std::to_string(r.best->final_secs.size()) + " final samples")
              << "), record " << r.best->id << " of " << r.last.trials_done << " trials\n";
    std::cout << "reproduce: kiln bench-op " << name << " --db " << tuning::database_name(a.db) << " --target '" << o.target.str()
              << "'\n";
    out["best_gflops"] = gflops;
    out["best_median_ms"] = ms;
    out["best_record"] = r.best->id;
    out["best_tuning_gflops"] = tuning_gflops;  // the winner's own measurement while tuning
    out["final_measured"] = r.last.final_measured;
  } else {
    std::cout << name << ": no valid candidate measured yet\n";
  }
  if (a.json) std::cout << out.dump() << "\n";
  fail_on_internal_errors(r.last.internal_errors, r.last.first_internal_error, a.db);
}

}  // namespace

void add_tune_op(CLI::App& app) {
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("tune-op", "tune one workload's schedule into a tuning database");
  cmd->add_option("workload", a->workload, "OP:key=value,... (see docs/workloads.md), or a workload key the database holds")->required();
  cmd->add_option("--db", a->db, "the tuning database: a SQLite file (created if missing) or a postgresql:// URL")->required();
  cmd->add_option("--trials", a->tune.options.trials, "trials the workload should have on this target, earlier runs included")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  add_tune_options(cmd, a->tune);
  cmd->add_option("--runner", a->runner, "'local' (a child process) or a runner's address");
  cmd->add_option("--token", a->token, "the runner's token (or set KILN_RUNNER_TOKEN)");
  cmd->add_option("--tls-ca", a->tls_ca, "PEM file of the CA that signed the runner's certificate (TLS)");
  cmd->add_flag("--json", a->json, "print one JSON object as the last line of stdout");
  cmd->add_option("--curve", a->curve, "write a JSON line per round (trials, best GFLOP/s, time split) to this file");
  cmd->callback([a] { run(*a); });
}

}  // namespace kiln::cli
