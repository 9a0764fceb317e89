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
  for (const JobTask& t : spec.tasks) {  // what a daemon will tune must read
    size_t params = 0;
    try {
      params = tuning::read_workload_ir(t.entry.ir_json).params().size();
    } catch (const Error& err) {
      KILN_USER_ERROR() << "task " << t.entry.shape << ": " << err.what();
    }
    for (const std::vector<int>* positions : {&t.model.constants, &t.model.cold_args})
      for (int i : *positions)
        if (static_cast<size_t>(i) >= params)
          KILN_USER_ERROR() << "task " << t.entry.shape << ": its model names parameter " << i << " of a function with "
                            << params << " parameters";
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
