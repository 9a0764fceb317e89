// What the farm's service reads from a peer before it touches the queue or
// the registry (farm/farm_service.h): a submitted job spec and a runner's
// registration. Apart from the service so that the checks a peer's bytes
// meet can be exercised without a daemon or a database
// (fuzz/farm_request.cpp).
#pragma once

#include "farm/job.h"
#include "rpc/measure.h"
#include "rpc/proto/farm.pb.h"

namespace kiln::farm {

// The job spec of a Submit: JSON, every field well-formed, a target that
// parses (made canonical), every task's IR readable. Throws kiln::Error
// naming the fault.
JobSpec read_submission(const rpc::proto::SubmitRequest& req);

// The device of a Register: an address to reach the runner at and a device
// key. Throws kiln::Error naming the fault.
rpc::DeviceInfo read_registration(const rpc::proto::RegisterRequest& req);

}  // namespace kiln::farm
