#include "farm/farm_schema.h"

#include "tuning_logs/postgres_schema.h"

namespace kiln::farm {
namespace {

// Step i brings the farm's tables from version i to i + 1. Never edit a
// step that has shipped: add one. Times are the server's (now()), the one
// clock every daemon agrees on.
const std::vector<const char*> kSteps = {
    // 0 -> 1: jobs, their logs, runners.
    R"sql(
CREATE TABLE jobs(
  id BIGSERIAL PRIMARY KEY,
  owner TEXT NOT NULL,
  name TEXT NOT NULL,
  device_key TEXT NOT NULL,
  priority INTEGER NOT NULL,
  spec TEXT NOT NULL,
  state TEXT NOT NULL,
  daemon TEXT,
  lease_until TIMESTAMPTZ,
  attempts INTEGER NOT NULL DEFAULT 0,
  cancel_requested BOOLEAN NOT NULL DEFAULT false,
  progress TEXT NOT NULL DEFAULT '{}',
  message TEXT NOT NULL DEFAULT '',
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  started_at TIMESTAMPTZ,
  finished_at TIMESTAMPTZ);
CREATE INDEX jobs_open ON jobs(priority DESC, id) WHERE state IN ('queued', 'running');
CREATE TABLE job_log(
  id BIGSERIAL PRIMARY KEY,
  job_id BIGINT NOT NULL REFERENCES jobs(id),
  at TIMESTAMPTZ NOT NULL DEFAULT now(),
  line TEXT NOT NULL);
CREATE INDEX job_log_by_job ON job_log(job_id, id);
CREATE TABLE runners(
  address TEXT PRIMARY KEY,
  device_key TEXT NOT NULL,
  info TEXT NOT NULL,
  state TEXT NOT NULL,
  registered_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  last_heartbeat TIMESTAMPTZ NOT NULL DEFAULT now(),
  busy_job BIGINT,
  measured BIGINT NOT NULL DEFAULT 0,
  errors BIGINT NOT NULL DEFAULT 0);
CREATE INDEX runners_by_key ON runners(device_key);
)sql",
};

}  // namespace

void prepare_farm_schema(tuning::PgConnection& c) {
  tuning::prepare_pg_schema(c, /*create=*/true);
  tuning::migrate_pg_part(c, "farm_schema_version", kSteps);
}

}  // namespace kiln::farm
