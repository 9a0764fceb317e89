// The farm's job queue, on PostgreSQL: any number of kilnd daemons, on any
// number of machines, take jobs from one table and never run one twice.
//
// A daemon claims the best waiting job (highest priority, then oldest)
// with a row lock that other daemons skip (FOR UPDATE SKIP LOCKED), and
// holds it by a lease it renews while the job runs. A daemon that dies
// (SIGKILL, power) stops renewing; when its lease runs out any daemon,
// itself restarted included, claims the job again, and the tuner resumes
// from the records the database already holds. Only jobs whose device key
// has a live runner are claimed: the others wait, and say so.
//
//   JobQueue q(url);
//   int64_t id = q.submit(spec, "alice");
//   if (auto job = q.claim("host-a/1", {.lease_s = 30})) { ...; q.finish(job->id, "host-a/1", JobState::kDone, "ok"); }
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "farm/job.h"
#include "tuning_logs/pg_connection.h"

namespace kiln::farm {

struct ClaimOptions {
  double lease_s = 30;
  // A runner whose last heartbeat is older than this is not live.
  double runner_timeout_s = 10;
};

struct LogLine {
  int64_t id = 0;
  double at = 0;  // unix seconds
  std::string line;
};

class JobQueue {
 public:
  // Connects and creates or migrates the farm's tables. Throws kiln::Error
  // naming the database (without its password).
  explicit JobQueue(const std::string& url);

  int64_t submit(const JobSpec& spec, const std::string& owner);

  // The best job waiting (queued, or running under a lease that ran out)
  // whose device key has a live runner, now running under `daemon`'s lease;
  // nullopt when there is none.
  std::optional<Job> claim(const std::string& daemon, const ClaimOptions& o);
  // Extends the lease. False when the job is no longer this daemon's (its
  // lease ran out and another took it) or its cancellation was asked for:
  // either way, stop working on it.
  bool renew(int64_t id, const std::string& daemon, double lease_s);
  // Records the tuner's progress while the lease is this daemon's.
  void set_progress(int64_t id, const std::string& daemon, const nlohmann::json& progress);
  // Ends a job this daemon holds: done, failed or cancelled, with why.
  // False (nothing changed) when it is no longer this daemon's.
  bool finish(int64_t id, const std::string& daemon, JobState state, const std::string& message);
  // Gives a job back to the queue (a daemon shutting down cleanly).
  void release(int64_t id, const std::string& daemon);

  // Cancels a job: a queued one at once, a running one when its daemon
  // next renews. Only its owner or an admin may. Throws kiln::Error when
  // the job does not exist, is not `who`'s, or has finished.
  void cancel(int64_t id, const std::string& who, bool admin);

  std::optional<Job> get(int64_t id);
  // The newest first, at most `limit`.
  std::vector<Job> list(int limit = 100);
  // Jobs per state ("queued", "running", ...).
  std::map<std::string, int64_t> counts_by_state();
  // What a queued job waits for, when it waits for a runner: "no runner of
  // key 'K' is live" (kiln farm status shows them); "" otherwise.
  std::string waiting_reason(const Job& job, double runner_timeout_s);

  void log(int64_t id, const std::string& line);
  // The job's log lines after line id `after`, oldest first.
  std::vector<LogLine> logs(int64_t id, int64_t after = 0);

  const std::string& name() const { return c_.name(); }

 private:
  tuning::PgConnection c_;
};

}  // namespace kiln::farm
