// Workload strings (ops/workload.h): what users pass to `kiln tune` and
// jobs carry to the daemon. A parsed workload must print canonically,
// parse back to itself and build its function.
#include <string>

#include "fuzz/fuzz_util.h"
#include "ops/workload.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = kiln::fuzz::as_string(data, size);
  kiln::fuzz::user_errors_are_fine([&] {
    const kiln::ops::Workload w = kiln::ops::parse_workload(text);
    KILN_ICHECK(kiln::ops::parse_workload(w.str()) == w) << "'" << w.str() << "' does not parse back to itself";
    kiln::ops::workload_flops(w);
    kiln::ops::build_workload(w);
  });
  return 0;
}
