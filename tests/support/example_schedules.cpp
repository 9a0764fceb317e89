#include "support/example_schedules.h"

namespace kiln::testing {

const std::vector<ExampleSchedule> kCpuScheduleExamples = {
    {"matmul_1024_avx2.json", "matmul:M=50,N=70,K=30"},
    {"matmul_1024_avx2.json", "matmul:M=12,N=32,K=8"},
    {"matmul_1024_avx512.json", "matmul:M=50,N=70,K=30"},
    {"matmul_1024_avx512.json", "matmul:M=12,N=128,K=8"},
    {"matmul_1024_loops.json", "matmul:M=50,N=70,K=30"},
    {"conv2d_nchw_avx2.json", "conv2d_nchw:N=1,C=5,H=9,W=17,K=12,R=3,S=3,stride=1,pad=1"},
    {"conv2d_nchw_avx2.json", "conv2d_nchw:N=2,C=3,H=7,W=11,K=8,R=3,S=3,stride=2,pad=1"},
    {"conv2d_nchw_avx2.json", "conv2d_nchw:N=1,C=4,H=6,W=14,K=16,R=3,S=3,stride=1,pad=1"},
    {"conv2d_nchw_avx512.json", "conv2d_nchw:N=1,C=5,H=9,W=17,K=12,R=3,S=3,stride=1,pad=1"},
    {"conv2d_nchw_avx512.json", "conv2d_nchw:N=1,C=4,H=6,W=14,K=16,R=3,S=3,stride=1,pad=1"},
};

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
