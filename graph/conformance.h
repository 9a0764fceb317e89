// ONNX test cases run on the reference executor: a folder holding
// model.onnx and test_data_set_*/ with input_N.pb and output_N.pb (the
// layout of ONNX's node tests, Debian's libonnx-testdata). What
// `kiln graph --test-data` runs, and what docs/onnx_conformance.md lists.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "targets/runtime/ndarray.h"

namespace kiln::graph {

// Where Debian's libonnx-testdata puts the node tests.
constexpr const char* kOnnxNodeTests = "/usr/share/libonnx-testdata/data/node";

struct TestCaseResult {
  enum Status { kPass, kFail, kUnsupported };
  std::string name;  // the folder's name: test_relu
  Status status = kFail;
  std::string detail;  // why it failed or is unsupported; empty for a pass
};

const char* status_name(TestCaseResult::Status s);

// "" when output k is `want` within |got - want| <= atol + rtol * |want|
// (NaN where NaN is wanted, the same infinity); else what differs first.
std::string compare_output(const NDArray& got, const NDArray& want, size_t k, double rtol = 1e-3,
                           double atol = 1e-7);

// What runs a graph on its inputs: the reference executor, or a compiled one.
using GraphExecutor = std::function<std::vector<NDArray>(const Graph&, const std::vector<NDArray>&)>;

// Imports the model, runs every data set (on `run`, the reference executor
// when empty) and compares each output with
// |got - want| <= atol + rtol * |want| (ONNX's backend tests use rtol 1e-3,
// atol 1e-7). A model kiln refuses as not supported (an operator, opset,
// dtype or attribute) is kUnsupported; any other error or a mismatch is
// kFail.
TestCaseResult run_test_case(const std::string& dir, double rtol = 1e-3, double atol = 1e-7,
                             const GraphExecutor& run = {});

// The test case folders under `root`, sorted by name.
std::vector<std::string> test_case_dirs(const std::string& root);

}  // namespace kiln::graph
