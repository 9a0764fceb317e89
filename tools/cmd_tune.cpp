// kiln tune MODEL.onnx --db FILE [--trials N] [--trials-per-task M] [--time-budget D] [--target T]
//                      [--policy gradient|round-robin] [--input-shapes S] [--seed S] [--json]
//
// Tunes a model: its fused groups become tasks (identical ones one task
// with a weight), and the task scheduler (search/task_scheduler.h) shares
// the trials among them, a batch at a time, where the model's latency is
// expected to drop most. One line per round: tasks tuned, trials, the
// model's estimated latency now against untuned, elapsed, ETA. Ctrl-C
// finishes the batch in flight, keeps it, and stops; a rerun on the same
// database resumes (--trials counts the trials the model's tasks already
// have there). `kiln compile MODEL.onnx --db FILE -o OUT` then builds it.
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/error.h"
#include "driver/model_program.h"
#include "driver/tune.h"
#include "search/progress_line.h"
#include "search/task_scheduler.h"
#include "tools/commands.h"
#include "tools/duration.h"
#include "tools/tune_flags.h"
#include "tools/tune_session.h"
#include "tuning_logs/open_database.h"
#include "tuning_logs/workload_entry.h"

namespace kiln::cli {
namespace {

struct Args {
  std::string model;
  std::string db;
  std::string input_shapes;
  std::string layout = "nchwc";
  int64_t trials = 0;
  int64_t trials_per_task = kModelTrialsPerTask;
  std::string policy = "gradient";
  TuneFlags tune;
  bool warm_weights = false;
  bool json = false;
};

void run(const Args& a) {
  search::TaskSchedulerOptions o;
  o.tune = a.tune.resolve();
  const Target target = o.tune.target;
  const ModelProgram m = prepare_model(a.model, a.input_shapes, pass_options(a.layout, target));
  const std::vector<search::SchedulerTask> tasks = model_tasks(m, a.warm_weights);
  o.policy = search::parse_policy(a.policy);
  o.trials = a.trials;
  o.trials_per_task = a.trials_per_task;
  if (a.trials_per_task > 0) o.tune.trials = a.trials_per_task;  // each task's job tunes toward its cap
  o.time_budget_s = o.tune.time_budget_s;
  if (a.trials <= 0 && a.trials_per_task <= 0 && o.time_budget_s <= 0)
    KILN_USER_ERROR() << "kiln tune: give --trials, --trials-per-task or --time-budget";
  if (a.tune.dry_run) {
    for (const search::SchedulerTask& t : tasks) std::cout << dry_run_task(t.task.entry, t.weight, t.task.model) << "\n";
    std::cout << search::schedule_json(o).dump() << "\n" << o.tune.to_json().dump() << "\n";
    return;
  }
  auto db = tuning::open_database(a.db);
  int64_t earlier = 0;
  for (const search::SchedulerTask& t : tasks) earlier += db->count_records(t.task.entry.key, target.str());
  o.trials = a.trials > 0 ? std::max<int64_t>(0, a.trials - earlier) : 0;

  std::cerr << "kiln: tuning " << a.model << " for '" << target.str() << "': " << m.groups.size()
            << " fused groups, " << m.tasks.size() << " tasks";
  if (a.trials > 0) std::cerr << ", " << a.trials << " trials in all (" << earlier << " in the database)";
  if (a.trials_per_task > 0) std::cerr << ", at most " << a.trials_per_task << " per task";
  std::cerr << ", " << a.policy << " task scheduling, into " << tuning::database_name(a.db) << "\n";
  note_emulation(target);
  std::cerr << "kiln: timing each task's default program for the untuned estimate\n";

  search::SchedulerResult r;
  {
    StopOnInterrupt interrupt;
    r = tune_model(
        tasks, o, *db,
        [&](const search::SchedulerProgress& p) { std::cerr << search::progress_line(p, tasks) << "\n"; },
        interrupt.stop());
  }
  if (r.stopped) std::cerr << "kiln: stopped; every measured batch is in " << tuning::database_name(a.db) << "\n";

  nlohmann::json per_task = nlohmann::json::array();
  std::cout << std::fixed;
  for (size_t i = 0; i < tasks.size(); ++i) {
    const search::TaskState& s = r.tasks[i];
    std::cout << "task " << i << "  x" << tasks[i].weight << "  " << std::setprecision(3) << s.untuned_secs * 1e3
              << " ms untuned -> " << (s.best_secs > 0 ? s.best_secs : s.untuned_secs) * 1e3 << " ms, "
              << s.trials << " trials  " << m.tasks[i].signature << "\n";
    per_task.push_back({{"name", tasks[i].name}, {"weight", tasks[i].weight}, {"key", m.tasks[i].key},
                        {"signature", m.tasks[i].signature}, {"trials", s.trials},
                        {"untuned_ms", s.untuned_secs * 1e3}, {"best_ms", s.best_secs * 1e3}});
  }
  std::cout << a.model << ": estimated latency " << std::setprecision(3) << r.last.latency_s * 1e3
            << " ms (untuned " << r.last.untuned_latency_s * 1e3 << " ms) after " << r.last.trials_now
            << " trials this run in " << search::clock_text(r.last.elapsed_s) << "\n"
            << "compile: kiln compile " << a.model << " --db " << tuning::database_name(a.db) << " --target '" << target.str()
            << "' -o OUT\n";
  if (a.json)
    std::cout << nlohmann::json{{"model", a.model},
                                {"target", target.str()},
                                {"tasks", per_task},
                                {"latency_ms", r.last.latency_s * 1e3},
                                {"untuned_latency_ms", r.last.untuned_latency_s * 1e3},
                                {"trials_now", r.last.trials_now},
                                {"elapsed_s", r.last.elapsed_s},
                                {"internal_errors", r.last.internal_errors},
                                {"stopped", r.stopped}}
                     .dump()
              << "\n";
  fail_on_internal_errors(r.last.internal_errors, r.last.first_internal_error, a.db);
}

}  // namespace

void add_tune(CLI::App& app) {
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("tune", "tune an ONNX model's tasks into a tuning database, one budget for all");
  cmd->add_option("model", a->model, "the .onnx file")->required();
  cmd->add_option("--db", a->db, "the tuning database: a SQLite file (created if missing) or a postgresql:// URL")->required();
  cmd->add_option("--trials", a->trials, "trials the model's tasks should have in all, earlier runs included");
  cmd->add_option("--trials-per-task", a->trials_per_task, "at most this many trials per task, earlier runs included (0: no cap)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--input-shapes", a->input_shapes,
                  "shapes of inputs with dynamic dimensions: \"name:[1,3,224,224] other:[1,128]\"");
  cmd->add_option("--layout", a->layout, kLayoutHelp);
  cmd->add_option("--policy", a->policy, "which task gets the next batch: gradient (Ansor's) or round-robin")
      ->check(CLI::IsMember({"gradient", "round-robin"}));
  add_tune_options(cmd, a->tune);
  cmd->add_flag("--warm-weights", a->warm_weights,
                "time kernels with the model's weights left in the caches (default: evicted before every run, as an "
                "inference finds them)");
  cmd->add_flag("--json", a->json, "print one JSON object as the last line of stdout");
  cmd->callback([a] { run(*a); });
}

}  // namespace kiln::cli
