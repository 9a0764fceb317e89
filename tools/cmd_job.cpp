// kiln job submit|list|status|cancel|logs and kiln farm status: a farm's
// jobs and runners from the command line (docs/farm.md). Tables on a
// terminal, --json for scripts; `status --follow` and `logs --follow`
// stream a job's progress until it ends.
#include <cstdio>
#include <ctime>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "core/error.h"
#include "farm/job.h"
#include "targets/target.h"
#include "tools/commands.h"
#include "tools/duration.h"
#include "tools/farm_args.h"
#include "driver/model_program.h"
#include "driver/tune.h"
#include "tools/tune_flags.h"

namespace kiln::cli {
namespace {

using nlohmann::json;

std::string clock_of(double unix_s) {
  if (unix_s <= 0) return "-";
  std::time_t t = static_cast<std::time_t>(unix_s);
  char buf[32];
  std::strftime(buf, sizeof buf, "%H:%M:%S", std::localtime(&t));
  return buf;
}

// A model's job, as the task scheduler reports it: trials, the model's
// estimated latency, tasks tuned.
std::string model_progress(const json& p) {
  std::ostringstream os;
  os << p.value("trials_now", 0) << " trials, model " << std::fixed << std::setprecision(3)
     << p.value("latency_ms", 0.0) << " ms (untuned " << p.value("untuned_latency_ms", 0.0) << "), "
     << p.value("tasks_tuned", 0) << "/" << p.value("tasks", 0) << " tasks tuned";
  return os.str();
}

// One line per job: id, state, owner, key, what, progress.
void print_job_row(const json& j) {
  const json& p = j["progress"];
  std::ostringstream progress;
  if (p.contains("latency_ms")) {
    progress << model_progress(p);
  } else if (p.contains("trials")) {
    progress << p.value("trials", 0) << "/" << p.value("trials_total", 0) << " trials, best " << std::fixed
             << std::setprecision(1) << p.value("best_gflops", 0.0) << " GFLOP/s";
    if (j.value("tasks", 1) > 1) progress << " (task " << p.value("task", 1) << "/" << j.value("tasks", 1) << ")";
  }
  std::cout << std::left << std::setw(6) << j["id"].get<int64_t>() << std::setw(11) << j["state"].get<std::string>()
            << std::setw(10) << j["owner"].get<std::string>() << std::setw(12) << j["device_key"].get<std::string>()
            << std::setw(36) << j["name"].get<std::string>().substr(0, 35) << progress.str() << "\n";
}

void print_job(const json& j) {
  std::cout << "job " << j["id"] << ": " << j["name"].get<std::string>() << "\n"
            << "  state     " << j["state"].get<std::string>()
            << (j.value("cancel_requested", false) && j["state"] == "running" ? " (cancelling)" : "") << "\n"
            << "  owner     " << j["owner"].get<std::string>() << "\n"
            << "  device    key '" << j["device_key"].get<std::string>() << "', target '" << j["target"].get<std::string>()
            << "'\n"
            << "  trials    " << j["trials"] << " per task, " << j["tasks"] << " task(s)"
            << (j.value("schedule", json()).is_string() ? ", " + j["schedule"].get<std::string>() + " task scheduling" : "")
            << ", priority " << j["priority"] << "\n";
  if (!j["daemon"].get<std::string>().empty()) std::cout << "  daemon    " << j["daemon"].get<std::string>() << " (attempt " << j["attempts"] << ")\n";
  std::cout << "  times     submitted " << clock_of(j["created_at"]) << ", started " << clock_of(j["started_at"])
            << ", ended " << clock_of(j["finished_at"]) << "\n";
  const json& p = j["progress"];
  if (p.contains("latency_ms"))
    std::cout << "  progress  " << model_progress(p) << "\n";
  else if (p.contains("trials"))
    std::cout << "  progress  " << p["trials"] << "/" << p["trials_total"] << " trials, best " << std::fixed
              << std::setprecision(1) << p.value("best_gflops", 0.0) << " GFLOP/s, " << p.value("errors", 0)
              << " errors\n";
  if (j.contains("waiting")) std::cout << "  waiting   " << j["waiting"].get<std::string>() << "\n";
  if (!j["message"].get<std::string>().empty()) std::cout << "  result    " << j["message"].get<std::string>() << "\n";
}

// Streams a job's log until it ends; exits non-zero unless it is done.
void follow(farm::FarmClient& c, int64_t id, bool as_json) {
  json last = c.logs(id, 0, true, [&](double at, const std::string& line) {
    if (as_json) std::cout << json{{"at", at}, {"line", line}}.dump() << std::endl;
    else std::cout << clock_of(at) << "  " << line << std::endl;
  });
  if (last.is_null()) return;
  if (as_json) std::cout << last.dump() << "\n";
  else std::cout << "job " << id << " " << last["state"].get<std::string>() << ": " << last["message"].get<std::string>() << "\n";
  if (last["state"] != "done") throw CLI::RuntimeError(1);
}

struct SubmitArgs {
  std::vector<std::string> workloads;
  std::string model, input_shapes, layout = "nchwc";
  std::string policy = "gradient";
  bool trials_given = false;
  std::string key;
  int priority = 0;
  bool warm_weights = false;
  TuneFlags tune;
};

farm::JobSpec spec_of(const SubmitArgs& a) {
  farm::JobSpec s;
  s.tune = a.tune.resolve();
  const Target& target = s.tune.target;
  if (a.workloads.empty() == a.model.empty()) KILN_USER_ERROR() << "kiln job submit: give workloads or --model, not both";
  for (const std::string& w : a.workloads) s.tasks.push_back({op_task(w).entry});
  if (!a.model.empty()) {  // as kiln tune would: its cap per task, the task scheduler
    if (!a.trials_given) s.tune.trials = kModelTrialsPerTask;
    s.schedule = search::parse_policy(a.policy);
    const ModelProgram m = prepare_model(a.model, a.input_shapes, pass_options(a.layout, target));
    for (const search::SchedulerTask& t : model_tasks(m, a.warm_weights))
      s.tasks.push_back({t.task.entry, t.task.model, t.weight, t.name});
  }
  s.name = a.model.empty() ? a.workloads.front() + (a.workloads.size() > 1 ? " (+" + std::to_string(a.workloads.size() - 1) + ")" : "")
                           : a.model;
  s.device_key = a.key.empty() ? target.mcpu() : a.key;
  s.priority = a.priority;
  return s;
}

}  // namespace

void add_job(CLI::App& app) {
  auto d = std::make_shared<DaemonArgs>();
  auto sa = std::make_shared<SubmitArgs>();
  auto id = std::make_shared<int64_t>(0);
  auto as_json = std::make_shared<bool>(false);
  auto follow_flag = std::make_shared<bool>(false);
  auto limit = std::make_shared<int>(50);
  CLI::App* job = app.add_subcommand("job", "submit, list, follow and cancel a farm's tuning jobs (docs/farm.md)");
  job->require_subcommand(1);
  auto common = [&](CLI::App* c) {
    d->add_to(c);
    c->add_flag("--json", *as_json, "print JSON instead of a table");
    return c;
  };

  CLI::App* submit = common(job->add_subcommand("submit", "queue a tuning job"));
  submit->add_option("workloads", sa->workloads, "workloads (OP:key=value,...)");
  submit->add_option("--model", sa->model, "an ONNX model: every task of it");
  submit->add_option("--input-shapes", sa->input_shapes, "the model's input shapes, as kiln tune takes them");
  submit->add_flag("--warm-weights", sa->warm_weights,
                   "with --model: time kernels with the model's weights left in the caches, as kiln tune --warm-weights");
  submit->add_option("--key", sa->key, "device key of the runners to measure on (default: the target's CPU)");
  CLI::Option* trials = submit->add_option("--trials", sa->tune.options.trials,
                                           "trials per task, earlier ones included (default: " +
                                               std::to_string(sa->tune.options.trials) + " a workload, " +
                                               std::to_string(kModelTrialsPerTask) + " a task of a --model)")
                            ->check(CLI::PositiveNumber);
  submit->add_option("--policy", sa->policy,
                     "with --model: which task gets the next batch, gradient (Ansor's) or round-robin, as kiln tune")
      ->check(CLI::IsMember({"gradient", "round-robin"}))
      ->capture_default_str();
  submit->add_option("--priority", sa->priority, "higher runs first")->capture_default_str();
  add_tune_options(submit, sa->tune);
  submit->add_flag("--follow", *follow_flag, "stream its progress until it ends");
  submit->callback([=] {
    sa->trials_given = trials->count() > 0;
    const farm::JobSpec spec = spec_of(*sa);
    if (sa->tune.dry_run) {  // what a daemon would tune each task with
      if (spec.schedule) {
        for (const farm::JobTask& t : spec.tasks) std::cout << dry_run_task(t.entry, t.weight, t.model) << "\n";
        std::cout << search::schedule_json(spec.scheduler_options()).dump() << "\n";
      }
      std::cout << spec.tune.to_json().dump() << "\n";
      return;
    }
    farm::FarmClient c = d->client();
    json j = c.submit(spec);
    if (*as_json) std::cout << j.dump() << "\n";
    else std::cout << "job " << j["id"] << " queued: " << j["name"].get<std::string>() << " on key '"
                   << j["device_key"].get<std::string>() << "'"
                   << (j.contains("waiting") ? "; " + j["waiting"].get<std::string>() : "") << "\n";
    if (*follow_flag) follow(c, j["id"], *as_json);
  });

  CLI::App* list = common(job->add_subcommand("list", "the newest jobs"));
  list->add_option("--limit", *limit)->capture_default_str();
  list->callback([=] {
    std::vector<json> jobs = d->client().jobs(*limit);
    if (*as_json) {
      std::cout << json(jobs).dump() << "\n";
      return;
    }
    std::cout << std::left << std::setw(6) << "id" << std::setw(11) << "state" << std::setw(10) << "owner"
              << std::setw(12) << "key" << std::setw(36) << "job" << "progress\n";
    for (const json& j : jobs) print_job_row(j);
  });

  CLI::App* status = common(job->add_subcommand("status", "where a job stands"));
  status->add_option("id", *id)->required();
  status->add_flag("--follow", *follow_flag, "stream its progress until it ends");
  status->callback([=] {
    farm::FarmClient c = d->client();
    if (*follow_flag) return follow(c, *id, *as_json);
    json j = c.job(*id);
    if (*as_json) std::cout << j.dump() << "\n";
    else print_job(j);
  });

  CLI::App* logs = common(job->add_subcommand("logs", "a job's log"));
  logs->add_option("id", *id)->required();
  logs->add_flag("--follow", *follow_flag, "go on until the job ends");
  logs->callback([=] {
    farm::FarmClient c = d->client();
    if (*follow_flag) return follow(c, *id, *as_json);
    c.logs(*id, 0, false, [&](double at, const std::string& line) {
      if (*as_json) std::cout << json{{"at", at}, {"line", line}}.dump() << "\n";
      else std::cout << clock_of(at) << "  " << line << "\n";
    });
  });

  CLI::App* cancel = common(job->add_subcommand("cancel", "cancel a job (its owner or an admin)"));
  cancel->add_option("id", *id)->required();
  cancel->callback([=] {
    json j = d->client().cancel(*id);
    if (*as_json) std::cout << j.dump() << "\n";
    else std::cout << "job " << *id << ": " << (j["state"] == "cancelled" ? "cancelled" : "cancelling (it stops after its batch)") << "\n";
  });
}

void add_farm(CLI::App& app) {
  auto d = std::make_shared<DaemonArgs>();
  auto as_json = std::make_shared<bool>(false);
  CLI::App* farm = app.add_subcommand("farm", "a farm's runners and jobs (docs/farm.md)");
  farm->require_subcommand(1);
  CLI::App* status = farm->add_subcommand("status", "runners by device key: state, busy, measured, errors, last heartbeat");
  d->add_to(status);
  status->add_flag("--json", *as_json, "print JSON instead of a table");
  status->callback([=] {
    json s = d->client().status();
    if (*as_json) {
      std::cout << s.dump() << "\n";
      return;
    }
    std::cout << std::left << std::setw(12) << "key" << std::setw(28) << "runner" << std::setw(8) << "state"
              << std::setw(8) << "busy" << std::setw(10) << "measured" << std::setw(8) << "errors" << "heartbeat\n";
    for (const json& r : s["runners"]) {
      std::ostringstream age;
      age << std::fixed << std::setprecision(1) << r["heartbeat_age_s"].get<double>() << " s ago";
      std::cout << std::left << std::setw(12) << r["device_key"].get<std::string>() << std::setw(28)
                << r["address"].get<std::string>() << std::setw(8) << r["state"].get<std::string>() << std::setw(8)
                << (r["busy_job"].get<int64_t>() ? "job " + std::to_string(r["busy_job"].get<int64_t>()) : "-")
                << std::setw(10) << r["measured"].get<int64_t>() << std::setw(8) << r["errors"].get<int64_t>()
                << age.str() << "\n";
    }
    std::cout << "jobs:";
    for (const auto& [state, n] : s["jobs"].items()) std::cout << " " << state << " " << n;
    std::cout << "\n";
  });
}

}  // namespace kiln::cli
