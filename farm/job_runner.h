// Running one claimed job to its end on a daemon: each task tuned by the
// tuner (search/tuner.h) against the live runners of the job's device key
// (farm_runner.h), every measured batch into the farm's tuning database,
// progress and log lines to the queue, the lease renewed all the while.
//
// A job taken up again after its daemon died resumes: the tuner counts the
// records the database holds for each task and measures only the rest. It
// stops after the batch in flight when its cancellation is asked for, when
// its lease was lost to another daemon, or when this daemon shuts down.
#pragma once

#include <atomic>
#include <string>

#include "farm/job.h"

namespace kiln::farm {

struct JobRunnerOptions {
  std::string db_url;
  std::string daemon;        // the lease holder's name
  std::string runner_token;  // what runners are dialled with
  std::string runner_tls_ca; // and the CA their certificates are trusted by; empty: plain
  double lease_s = 30;
  double runner_timeout_s = 10;
  int build_workers = 0;     // 0: the target's cores
};

struct JobOutcome {
  JobState state = JobState::kDone;
  std::string message;
  bool lost_lease = false;  // another daemon holds it now: write nothing more
  bool shut_down = false;   // this daemon is stopping: give the job back
};

// Runs `job` (claimed by options.daemon). `shutdown` asks it to stop after
// the batch in flight. Never throws: a job that cannot run fails with why.
JobOutcome run_job(const Job& job, const JobRunnerOptions& options, const std::atomic<bool>& shutdown);

}  // namespace kiln::farm
