#include "support/example_schedules.h"

namespace kiln::testing {

std::ostream& operator<<(std::ostream& os, const ExampleSchedule& e) { return os << e.trace << " on " << e.workload; }

Trace example_trace(const std::string& file) {
  return read_trace_file(std::string(KILN_SOURCE_DIR) + "/examples/schedules/" + file);
}

OpProgram prepare_example(const std::string& trace, const std::string& workload, const Target& target) {
  const Trace t = example_trace(trace);
  PrepareOptions options;
  options.trace = &t;
  return prepare_op(workload, target, options);
}

}  // namespace kiln::testing
