#include "farm/job_queue.h"

#include "core/error.h"
#include "farm/farm_schema.h"
#include "farm/runner_registry.h"

namespace kiln::farm {
namespace {

using tuning::pg_text;
using tuning::PgResult;

constexpr const char* kJobColumns =
    "id, owner, name, device_key, priority, state, COALESCE(daemon, ''), attempts, cancel_requested, progress, "
    "message, EXTRACT(EPOCH FROM created_at)::float8, COALESCE(EXTRACT(EPOCH FROM started_at)::float8, 0), "
    "COALESCE(EXTRACT(EPOCH FROM finished_at)::float8, 0), spec";

Job read_job(const PgResult& q, int i) {
  Job j;
  j.id = q.integer(i, 0);
  j.owner = q.text(i, 1);
  j.name = q.text(i, 2);
  j.device_key = q.text(i, 3);
  j.priority = static_cast<int>(q.integer(i, 4));
  j.state = parse_job_state(q.text(i, 5));
  j.daemon = q.text(i, 6);
  j.attempts = static_cast<int>(q.integer(i, 7));
  j.cancel_requested = q.text(i, 8) == "t";
  j.progress = nlohmann::json::parse(q.text(i, 9));
  j.message = q.text(i, 10);
  j.created_at = q.real(i, 11);
  j.started_at = q.real(i, 12);
  j.finished_at = q.real(i, 13);
  j.spec = JobSpec::from_json(nlohmann::json::parse(q.text(i, 14)));
  return j;
}

// A live runner of the job's key, the timeout in $2.
const std::string kHasLiveRunner =
    "EXISTS(SELECT 1 FROM runners r WHERE r.device_key = jobs.device_key AND " + live_runner_sql("r.", 2) + ")";

}  // namespace

JobQueue::JobQueue(const std::string& url) : c_(url) { prepare_farm_schema(c_); }

int64_t JobQueue::submit(const JobSpec& spec, const std::string& owner) {
  PgResult q = c_.exec(
      "INSERT INTO jobs(owner, name, device_key, priority, spec, state) VALUES($1, $2, $3, $4, $5, 'queued') "
      "RETURNING id",
      {owner, spec.name, spec.device_key, pg_text(static_cast<int64_t>(spec.priority)), spec.to_json().dump()});
  return q.integer(0, 0);
}

std::optional<Job> JobQueue::claim(const std::string& daemon, const ClaimOptions& o) {
  // The subquery locks the row it picks and skips rows other daemons have
  // locked; the UPDATE re-checks the condition on the row it got.
  PgResult q = c_.exec(std::string("UPDATE jobs SET state = 'running', daemon = $1, lease_until = now() + "
                                   "make_interval(secs => $3), attempts = attempts + 1, started_at = "
                                   "COALESCE(started_at, now()) WHERE id = (SELECT id FROM jobs WHERE (state = "
                                   "'queued' OR (state = 'running' AND lease_until < now())) AND NOT "
                                   "cancel_requested AND ") +
                           kHasLiveRunner + " ORDER BY priority DESC, id FOR UPDATE SKIP LOCKED LIMIT 1) RETURNING " +
                           kJobColumns,
                       {daemon, pg_text(o.runner_timeout_s), pg_text(o.lease_s)});
  if (q.rows() == 0) return std::nullopt;
  return read_job(q, 0);
}

bool JobQueue::renew(int64_t id, const std::string& daemon, double lease_s) {
  PgResult q = c_.exec(
      "UPDATE jobs SET lease_until = now() + make_interval(secs => $3) WHERE id = $1 AND daemon = $2 AND state = "
      "'running' RETURNING cancel_requested",
      {pg_text(id), daemon, pg_text(lease_s)});
  return q.rows() == 1 && q.text(0, 0) == "f";
}

void JobQueue::set_progress(int64_t id, const std::string& daemon, const nlohmann::json& progress) {
  c_.exec("UPDATE jobs SET progress = $3 WHERE id = $1 AND daemon = $2 AND state = 'running'",
          {pg_text(id), daemon, progress.dump()});
}

bool JobQueue::finish(int64_t id, const std::string& daemon, JobState state, const std::string& message) {
  PgResult q = c_.exec(
      "UPDATE jobs SET state = $3, message = $4, finished_at = now(), lease_until = NULL WHERE id = $1 AND daemon = "
      "$2 AND state = 'running'",
      {pg_text(id), daemon, job_state_name(state), message});
  return q.affected() == 1;
}

void JobQueue::release(int64_t id, const std::string& daemon) {
  c_.exec("UPDATE jobs SET state = 'queued', daemon = NULL, lease_until = NULL WHERE id = $1 AND daemon = $2 AND "
          "state = 'running'",
          {pg_text(id), daemon});
}

void JobQueue::cancel(int64_t id, const std::string& who, bool admin) {
  c_.transaction([&] {
    PgResult q = c_.exec("SELECT owner, state FROM jobs WHERE id = $1 FOR UPDATE", {pg_text(id)});
    if (q.rows() == 0) KILN_USER_ERROR() << "no job " << id;
    const std::string owner = q.text(0, 0), state = q.text(0, 1);
    if (!admin && owner != who)
      KILN_USER_ERROR() << "job " << id << " belongs to " << owner << ": only its owner or an admin may cancel it";
    if (state == "queued")
      c_.exec("UPDATE jobs SET state = 'cancelled', cancel_requested = true, finished_at = now(), message = $2 "
              "WHERE id = $1",
              {pg_text(id), "cancelled by " + who + " before it started"});
    else if (state == "running")
      c_.exec("UPDATE jobs SET cancel_requested = true WHERE id = $1", {pg_text(id)});
    else
      KILN_USER_ERROR() << "job " << id << " has already ended (" << state << ")";
  });
}

std::optional<Job> JobQueue::get(int64_t id) {
  PgResult q = c_.exec(std::string("SELECT ") + kJobColumns + " FROM jobs WHERE id = $1", {pg_text(id)});
  if (q.rows() == 0) return std::nullopt;
  return read_job(q, 0);
}

std::vector<Job> JobQueue::list(int limit) {
  PgResult q = c_.exec(std::string("SELECT ") + kJobColumns + " FROM jobs ORDER BY id DESC LIMIT $1",
                       {pg_text(static_cast<int64_t>(limit))});
  std::vector<Job> out;
  for (int i = 0; i < q.rows(); ++i) out.push_back(read_job(q, i));
  return out;
}

std::map<std::string, int64_t> JobQueue::counts_by_state() {
  PgResult q = c_.exec("SELECT state, COUNT(*) FROM jobs GROUP BY state");
  std::map<std::string, int64_t> out;
  for (int i = 0; i < q.rows(); ++i) out[q.text(i, 0)] = q.integer(i, 1);
  return out;
}

std::string JobQueue::waiting_reason(const Job& job, double runner_timeout_s) {
  if (job.state != JobState::kQueued) return "";
  PgResult q = c_.exec(
      "SELECT COUNT(*) FROM runners WHERE device_key = $1 AND " + live_runner_sql("", 2),
      {job.device_key, pg_text(runner_timeout_s)});
  if (q.integer(0, 0) > 0) return "";
  return "no runner of key '" + job.device_key + "' is live (kiln farm status lists the runners)";
}

void JobQueue::log(int64_t id, const std::string& line) {
  c_.exec("INSERT INTO job_log(job_id, line) VALUES($1, $2)", {pg_text(id), line});
}

std::vector<LogLine> JobQueue::logs(int64_t id, int64_t after) {
  PgResult q = c_.exec(
      "SELECT id, EXTRACT(EPOCH FROM at)::float8, line FROM job_log WHERE job_id = $1 AND id > $2 ORDER BY id",
      {pg_text(id), pg_text(after)});
  std::vector<LogLine> out;
  for (int i = 0; i < q.rows(); ++i) out.push_back({q.integer(i, 0), q.real(i, 1), q.text(i, 2)});
  return out;
}

}  // namespace kiln::farm
