#include "farm/job.h"

#include "core/error.h"

namespace kiln::farm {

using nlohmann::json;

json JobSpec::to_json() const {
  json t = json::array();
  for (const JobTask& task : tasks) {
    const tuning::WorkloadEntry& e = task.entry;
    json one = {{"key", e.key}, {"ir_json", e.ir_json}, {"op", e.op}, {"shape", e.shape}, {"flops", e.flops}};
    if (!task.model.empty()) one["model"] = task.model.to_json();
    if (task.weight != 1) one["weight"] = task.weight;
    if (!task.name.empty()) one["name"] = task.name;
    t.push_back(std::move(one));
  }
  json j = {{"tasks", t}, {"name", name}, {"device_key", device_key}, {"priority", priority}, {"tune", tune.to_json()}};
  if (schedule) j["schedule"] = {{"policy", search::policy_name(*schedule)}};
  return j;
}

namespace {

// A spec written before the tuning options were one object (still in a
// queue): its few settings over the defaults.
search::TuneOptions legacy_tune_options(const json& j) {
  json t = {{"target", j.at("target")}, {"trials", j.at("trials")}};
  for (const char* k : {"time_budget_s", "strategy", "cost_model", "seed", "batch_size", "final_top"})
    if (j.contains(k)) t[k] = j[k];
  if (j.contains("repeat")) t["timing"] = {{"repeat", j["repeat"]}};
  return search::TuneOptions::from_json(t);
}

}  // namespace

JobSpec JobSpec::from_json(const json& j) {
  JobSpec s;
  try {
    for (const json& t : j.at("tasks")) {
      s.tasks.push_back({{t.at("key").get<std::string>(), t.at("ir_json").get<std::string>(), t.at("op").get<std::string>(),
                          t.at("shape").get<std::string>(), t.at("flops").get<double>()},
                         t.contains("model") ? search::ModelArgs::from_json(t.at("model")) : search::ModelArgs{},
                         t.value("weight", int64_t{1}),
                         t.value("name", std::string())});
      if (s.tasks.back().weight < 1) KILN_USER_ERROR() << "task " << s.tasks.size() << " has weight " << s.tasks.back().weight;
    }
    s.name = j.at("name").get<std::string>();
    s.device_key = j.at("device_key").get<std::string>();
    s.priority = j.value("priority", 0);
    s.tune = j.contains("tune") ? search::TuneOptions::from_json(j.at("tune")) : legacy_tune_options(j);
    if (j.contains("schedule")) s.schedule = search::parse_policy(j.at("schedule").at("policy").get<std::string>());
  } catch (const json::exception& e) {
    KILN_USER_ERROR() << "malformed job spec: " << e.what();
  } catch (const Error& e) {
    KILN_USER_ERROR() << "malformed job spec: " << e.what();
  }
  if (s.tasks.empty()) KILN_USER_ERROR() << "malformed job spec: no task to tune";
  if (s.device_key.empty()) KILN_USER_ERROR() << "malformed job spec: no device key";
  if (s.tune.trials <= 0 && s.tune.time_budget_s <= 0)
    KILN_USER_ERROR() << "malformed job spec: neither trials nor a time budget";
  return s;
}

std::optional<search::TuneOptions> JobSpec::task_options(double elapsed_s) const {
  search::TuneOptions o = tune;
  if (tune.time_budget_s > 0) {
    o.time_budget_s = tune.time_budget_s - elapsed_s;
    if (o.time_budget_s <= 0) return std::nullopt;
  }
  return o;
}

search::TaskSchedulerOptions JobSpec::scheduler_options() const {
  search::TaskSchedulerOptions o;
  o.policy = schedule.value_or(search::TaskSchedulerOptions::Policy::kGradient);
  o.trials_per_task = tune.trials;
  o.time_budget_s = tune.time_budget_s;
  o.tune = tune;
  return o;
}

const char* job_state_name(JobState s) {
  switch (s) {
    case JobState::kQueued: return "queued";
    case JobState::kRunning: return "running";
    case JobState::kDone: return "done";
    case JobState::kFailed: return "failed";
    case JobState::kCancelled: return "cancelled";
  }
  return "?";
}

JobState parse_job_state(const std::string& s) {
  for (JobState st : {JobState::kQueued, JobState::kRunning, JobState::kDone, JobState::kFailed, JobState::kCancelled})
    if (s == job_state_name(st)) return st;
  KILN_USER_ERROR() << "unknown job state '" << s << "'";
}

json Job::to_json() const {
  return {{"id", id},         {"owner", owner},           {"name", name},       {"device_key", device_key},
          {"priority", priority}, {"state", job_state_name(state)}, {"daemon", daemon}, {"attempts", attempts},
          {"cancel_requested", cancel_requested}, {"progress", progress}, {"message", message},
          {"created_at", created_at}, {"started_at", started_at}, {"finished_at", finished_at},
          {"target", spec.tune.target.str()}, {"trials", spec.tune.trials}, {"tasks", spec.tasks.size()},
          {"schedule", spec.schedule ? json(search::policy_name(*spec.schedule)) : json()}};
}

}  // namespace kiln::farm
