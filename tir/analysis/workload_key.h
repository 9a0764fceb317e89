// The workload key: the stable identity of an unscheduled program.
//
// The tuning database keys records by (workload key, target). The key is the
// structural hash of the PrimFunc in hex: the same computation on the same
// shapes and dtypes gives the same key in every run, process and machine,
// whatever its variables and buffers are called.
#pragma once

#include <string>

#include "tir/stmt.h"

namespace kiln {

std::string workload_key(const PrimFunc& f);

}  // namespace kiln
