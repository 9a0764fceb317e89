#include "farm/job.h"

#include "core/error.h"

namespace kiln::farm {

using nlohmann::json;

json JobSpec::to_json() const {
  json t = json::array();
  for (const tuning::WorkloadEntry& e : tasks)
    t.push_back({{"key", e.key}, {"ir_json", e.ir_json}, {"op", e.op}, {"shape", e.shape}, {"flops", e.flops}});
  return {{"tasks", t},           {"name", name},         {"target", target},       {"device_key", device_key},
          {"trials", trials},     {"time_budget_s", time_budget_s}, {"priority", priority}, {"strategy", strategy},
          {"cost_model", cost_model}, {"seed", seed},     {"batch_size", batch_size}, {"repeat", repeat},
          {"final_top", final_top}};
}

JobSpec JobSpec::from_json(const json& j) {
  JobSpec s;
  try {
    for (const json& t : j.at("tasks"))
      s.tasks.push_back({t.at("key").get<std::string>(), t.at("ir_json").get<std::string>(), t.at("op").get<std::string>(),
                         t.at("shape").get<std::string>(), t.at("flops").get<double>()});
    s.name = j.at("name").get<std::string>();
    s.target = j.at("target").get<std::string>();
    s.device_key = j.at("device_key").get<std::string>();
    s.trials = j.at("trials").get<int64_t>();
    s.time_budget_s = j.value("time_budget_s", 0.0);
    s.priority = j.value("priority", 0);
    s.strategy = j.value("strategy", s.strategy);
    s.cost_model = j.value("cost_model", s.cost_model);
    s.seed = j.value("seed", s.seed);
    s.batch_size = j.value("batch_size", s.batch_size);
    s.repeat = j.value("repeat", s.repeat);
    s.final_top = j.value("final_top", s.final_top);
  } catch (const json::exception& e) {
    KILN_USER_ERROR() << "malformed job spec: " << e.what();
  }
  if (s.tasks.empty()) KILN_USER_ERROR() << "malformed job spec: no task to tune";
  if (s.device_key.empty()) KILN_USER_ERROR() << "malformed job spec: no device key";
  if (s.trials <= 0 && s.time_budget_s <= 0) KILN_USER_ERROR() << "malformed job spec: neither trials nor a time budget";
  return s;
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
          {"target", spec.target}, {"trials", spec.trials}, {"tasks", spec.tasks.size()}};
}

}  // namespace kiln::farm
