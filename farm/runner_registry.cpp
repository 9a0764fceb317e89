#include "farm/runner_registry.h"

#include <nlohmann/json.hpp>

#include "farm/farm_schema.h"

namespace kiln::farm {
namespace {

using tuning::pg_text;
using tuning::PgResult;

std::string info_json(const rpc::DeviceInfo& d) {
  return nlohmann::json{{"kiln_version", d.kiln_version}, {"device_key", d.device_key}, {"cpu_model", d.cpu_model},
                        {"cpu_name", d.cpu_name},         {"isa_features", d.isa_features}, {"num_cores", d.num_cores},
                        {"targets", d.targets}}
      .dump();
}

rpc::DeviceInfo read_info(const std::string& text) {
  const nlohmann::json j = nlohmann::json::parse(text);
  rpc::DeviceInfo d;
  d.kiln_version = j.value("kiln_version", "");
  d.device_key = j.value("device_key", "");
  d.cpu_model = j.value("cpu_model", "");
  d.cpu_name = j.value("cpu_name", "");
  d.isa_features = j.value("isa_features", std::vector<std::string>{});
  d.num_cores = j.value("num_cores", 0);
  d.targets = j.value("targets", std::vector<std::string>{});
  return d;
}

}  // namespace

std::string live_runner_sql(const std::string& prefix, int timeout_param) {
  return prefix + "state = 'alive' AND " + prefix + "last_heartbeat > now() - make_interval(secs => $" +
         std::to_string(timeout_param) + ")";
}

RunnerRegistry::RunnerRegistry(const std::string& url) : c_(url) { prepare_farm_schema(c_); }

void RunnerRegistry::announce(const std::string& address, const rpc::DeviceInfo& info) {
  c_.exec(
      "INSERT INTO runners(address, device_key, info, state) VALUES($1, $2, $3, 'alive') ON CONFLICT(address) DO "
      "UPDATE SET device_key = $2, info = $3, state = 'alive', registered_at = now(), last_heartbeat = now(), "
      "busy_job = NULL",
      {address, info.device_key, info_json(info)});
}

bool RunnerRegistry::heartbeat(const std::string& address) {
  return c_.exec("UPDATE runners SET last_heartbeat = now(), state = 'alive' WHERE address = $1 AND state <> 'gone'",
                 {address})
             .affected() == 1;
}

void RunnerRegistry::leave(const std::string& address) {
  c_.exec("UPDATE runners SET state = 'gone', busy_job = NULL WHERE address = $1", {address});
}

std::vector<RegisteredRunner> RunnerRegistry::read(const std::string& where, const std::vector<tuning::PgParam>& params) {
  // $1 is always the timeout.
  PgResult q = c_.exec(
      "SELECT address, device_key, info, CASE WHEN " + live_runner_sql("", 1) +
          " THEN 'alive' WHEN state = 'gone' THEN 'gone' ELSE 'lost' END, EXTRACT(EPOCH FROM last_heartbeat)::float8, "
      "EXTRACT(EPOCH FROM now() - last_heartbeat)::float8, COALESCE(busy_job, 0), measured, errors FROM runners " +
          where,
      params);
  std::vector<RegisteredRunner> out;
  for (int i = 0; i < q.rows(); ++i)
    out.push_back({q.text(i, 0), q.text(i, 1), read_info(q.text(i, 2)), q.text(i, 3), q.real(i, 4), q.real(i, 5),
                   q.integer(i, 6), q.integer(i, 7), q.integer(i, 8)});
  return out;
}

std::vector<RegisteredRunner> RunnerRegistry::live(const std::string& device_key, double timeout_s) {
  return read("WHERE device_key = $2 AND " + live_runner_sql("", 1) +
                  " ORDER BY busy_job IS NOT NULL, address COLLATE \"C\"",
              {pg_text(timeout_s), device_key});
}

std::vector<RegisteredRunner> RunnerRegistry::all(double timeout_s) {
  return read("ORDER BY device_key COLLATE \"C\", address COLLATE \"C\"", {pg_text(timeout_s)});
}

bool RunnerRegistry::is_live(const std::string& address, double timeout_s) {
  return !read("WHERE address = $2 AND " + live_runner_sql("", 1), {pg_text(timeout_s), address}).empty();
}

void RunnerRegistry::set_busy(const std::string& address, int64_t job) {
  c_.exec("UPDATE runners SET busy_job = $2 WHERE address = $1",
          {address, job ? tuning::PgParam(pg_text(job)) : std::nullopt});
}

void RunnerRegistry::count(const std::string& address, int64_t measured, int64_t errors) {
  c_.exec("UPDATE runners SET measured = measured + $2, errors = errors + $3 WHERE address = $1",
          {address, pg_text(measured), pg_text(errors)});
}

}  // namespace kiln::farm
