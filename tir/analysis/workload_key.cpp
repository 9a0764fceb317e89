#include "tir/analysis/workload_key.h"

#include <cstdio>

#include "core/structural.h"

namespace kiln {

std::string workload_key(const PrimFunc& f) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(structural_hash(f)));
  return buf;
}

}  // namespace kiln
