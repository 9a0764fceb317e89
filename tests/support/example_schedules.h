// The hand schedules of examples/schedules, for the tests that replay them:
// a trace paired with a workload it schedules, and the workload prepared
// (built, scheduled, lowered) for a target as that trace says.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "driver/op_program.h"

namespace kiln::testing {

struct ExampleSchedule {
  const char* trace;  // a file of examples/schedules
  const char* workload;
};

// Every CPU trace of examples/schedules on shapes none of its tiles divide
// as well as on shapes they fit: what the tests of each CPU target replay.
extern const std::vector<ExampleSchedule> kCpuScheduleExamples;

// "matmul_gpu.json on matmul:M=50,N=70,K=30", for test names and messages.
std::ostream& operator<<(std::ostream& os, const ExampleSchedule& e);

// The trace in examples/schedules/`file`.
Trace example_trace(const std::string& file);

// `workload` prepared for `target` as examples/schedules/`trace` schedules it.
OpProgram prepare_example(const std::string& trace, const std::string& workload, const Target& target);
inline OpProgram prepare_example(const ExampleSchedule& e, const Target& target) {
  return prepare_example(e.trace, e.workload, target);
}

}  // namespace kiln::testing
