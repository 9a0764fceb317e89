// A tuning job as the farm keeps it: what to tune (JobSpec, written by
// `kiln job submit`), and where it stands (Job, a row of the queue).
#pragma once

#include <cstdint>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "search/task_scheduler.h"
#include "search/tune_options.h"
#include "tuning_logs/record.h"

namespace kiln::farm {

// One task of a job: its workload with its IR (an operator's, or one of a
// model's fused subgraphs), and for a model's task what the model says of
// its arguments (weights packed once and timed cold, as `kiln tune` times
// them) and how many times the model runs it (its weight for the task
// scheduler), so that a daemon anywhere tunes exactly what the submitter
// meant without reading its files.
struct JobTask {
  tuning::WorkloadEntry entry;
  search::ModelArgs model = {};
  int64_t weight = 1;
  std::string name = {};  // for progress lines: "Conv+Relu"; empty: the workload's shape
};

struct JobSpec {
  std::vector<JobTask> tasks;
  std::string name;        // what people read: the workload string or the model file
  std::string device_key;  // the runners that measure it
  int priority = 0;        // higher first
  // How each task is tuned: the options `kiln tune-op` would use with the
  // same flags (search/tune_options.h). trials is per task, earlier runs
  // included; time_budget_s is the whole job's (0: none).
  search::TuneOptions tune;
  // A model's job shares its trials among the tasks as `kiln tune` does, a
  // batch at a time where the model's latency is expected to drop most
  // (search/task_scheduler.h), by this policy; without one (operators),
  // each task is tuned in turn to its trials, as `kiln tune-op` would.
  std::optional<search::TaskSchedulerOptions::Policy> schedule;

  // The options task `t` is tuned with once `elapsed_s` of the job's budget
  // is spent: the spec's own, the time left as its budget. nullopt when the
  // budget is spent.
  std::optional<search::TuneOptions> task_options(double elapsed_s) const;
  // A model's job: the task scheduler's options (trials per task as the
  // cap, the job's budget, its policy). Only with `schedule`.
  search::TaskSchedulerOptions scheduler_options() const;

  nlohmann::json to_json() const;
  // Throws kiln::Error naming what is missing or malformed.
  static JobSpec from_json(const nlohmann::json& j);
};

enum class JobState { kQueued, kRunning, kDone, kFailed, kCancelled };
const char* job_state_name(JobState s);
JobState parse_job_state(const std::string& s);

struct Job {
  int64_t id = 0;
  std::string owner;
  std::string name;
  std::string device_key;
  int priority = 0;
  JobState state = JobState::kQueued;
  std::string daemon;  // the daemon holding it, while running
  int attempts = 0;    // claims: more than one means a daemon took it up again
  bool cancel_requested = false;
  nlohmann::json progress;  // the tuner's last progress (TuneProgress as JSON)
  std::string message;      // why it ended, or what it waits for
  double created_at = 0, started_at = 0, finished_at = 0;  // unix seconds; 0: not yet
  JobSpec spec;

  bool finished() const { return state == JobState::kDone || state == JobState::kFailed || state == JobState::kCancelled; }
  nlohmann::json to_json() const;
};

}  // namespace kiln::farm
