#include "farm/requests.h"

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "rpc/convert.h"
#include "targets/target.h"
#include "tuning_logs/workload_entry.h"

namespace kiln::farm {

JobSpec read_submission(const rpc::proto::SubmitRequest& req) {
  nlohmann::json j = nlohmann::json::parse(req.spec_json(), nullptr, false);
  if (j.is_discarded()) KILN_USER_ERROR() << "malformed job spec: not JSON";
  JobSpec spec = JobSpec::from_json(j);
  for (const tuning::WorkloadEntry& e : spec.tasks) {  // what a daemon will tune must read
    try {
      tuning::read_workload_ir(e.ir_json);
    } catch (const Error& err) {
      KILN_USER_ERROR() << "task " << e.shape << ": " << err.what();
    }
  }
  return spec;
}

rpc::DeviceInfo read_registration(const rpc::proto::RegisterRequest& req) {
  if (req.address().empty()) KILN_USER_ERROR() << "a runner must say where it listens";
  rpc::DeviceInfo d = rpc::from_proto(req.device());
  if (d.device_key.empty()) KILN_USER_ERROR() << "runner at " << req.address() << " has no device key";
  return d;
}

}  // namespace kiln::farm
