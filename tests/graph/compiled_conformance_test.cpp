// The compiled executor on ONNX test data: models exported by PyTorch
// (tests/data/models, written by scripts/export_models) and every node
// test, each compiled (every task's default program) and run, its outputs
// compared with the data set's as the node tests compare.
#include <gtest/gtest.h>

#include <filesystem>

#include "graph/compiled_model.h"
#include "graph/conformance.h"
#include "graph/fuse.h"
#include "graph/passes.h"
#include "graph/tasks.h"
#include "support/scratch.h"

namespace kiln::graph {
namespace {

namespace fs = std::filesystem;

// The graph's outputs, compiled (each task's default program, after the
// graph passes) and run.
std::vector<NDArray> run_compiled(const Graph& imported, const std::vector<NDArray>& inputs) {
  static int count = 0;
  return run_compiled_default(imported, inputs, Target::parse("llvm -num-cores=2"),
                              testing::scratch_path("compiled_" + std::to_string(count++)));
}

void expect_pass(const std::string& dir) {
  const TestCaseResult r = run_test_case(dir, 1e-3, 1e-7, run_compiled);
  EXPECT_EQ(r.status, TestCaseResult::kPass) << r.name << ": " << status_name(r.status) << ": " << r.detail;
}

TEST(CompiledConformance, TransformerEncodersExportedByPyTorch) {
  for (const char* model : {"encoder_op13", "encoder_op17"}) {
    expect_pass(std::string(KILN_SOURCE_DIR) + "/tests/data/models/" + model);
  }
}

TEST(CompiledConformance, TransformersExportedByPyTorch) {
  // BERT, a GPT-2 prefill pass and decode step, and ViT, tiny
  // (scripts/export_models), against PyTorch's outputs within 1e-4
  // relative; the absolute 1e-6 is for logits near zero, whose float32
  // sums differ from PyTorch's in their last bits.
  for (const char* model : {"bert_tiny", "gpt2_tiny_prefill", "gpt2_tiny_decode", "vit_tiny"}) {
    const TestCaseResult r =
        run_test_case(std::string(KILN_SOURCE_DIR) + "/tests/data/models/" + model, 1e-4, 1e-6, run_compiled);
    EXPECT_EQ(r.status, TestCaseResult::kPass) << r.name << ": " << status_name(r.status) << ": " << r.detail;
  }
}

TEST(CompiledConformance, EveryNodeTestThatPassesOnTheReference) {
  // Each of ONNX's node tests compiled (every task's default program) and
  // run: the compiler's code for every operator kiln takes, against the
  // data sets' outputs. None may fail; as many pass as on the reference.
  ASSERT_TRUE(fs::is_directory(kOnnxNodeTests)) << "libonnx-testdata is not installed (scripts/setup)";
  int pass = 0;
  for (const std::string& dir : test_case_dirs(kOnnxNodeTests)) {
    const TestCaseResult r = run_test_case(dir, 1e-3, 1e-7, run_compiled);
    if (r.status == TestCaseResult::kFail) ADD_FAILURE() << r.name << ": " << r.detail;
    pass += r.status == TestCaseResult::kPass;
  }
  EXPECT_GE(pass, 821) << "fewer node tests pass compiled than docs/onnx_conformance.md lists";
}

}  // namespace
}  // namespace kiln::graph
