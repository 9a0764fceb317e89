// The compiled executor on ONNX test data: models exported by PyTorch
// (tests/data/models, written by scripts/export_models) and one node test
// per operator family, each compiled (every task's default program) and
// run, its outputs compared with the data set's as the node tests compare.
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
  const Graph g = run_passes(imported);
  const std::vector<FusedGroup> groups = fuse_operators(g);
  const std::vector<Task> tasks = extract_tasks(g, groups);
  std::vector<PrimFunc> funcs;
  for (const Task& t : tasks) funcs.push_back(t.func);
  const std::string out = testing::scratch_path("compiled_" + std::to_string(count++));
  write_compiled_model(g, groups, tasks, funcs, Target::parse("llvm -num-cores=2"), out, 2);
  CompiledModel model = CompiledModel::load(out);
  ThreadPool pool(2);
  return model.run(inputs, pool);
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

TEST(CompiledConformance, OneNodeTestPerFamily) {
  ASSERT_TRUE(fs::is_directory(kOnnxNodeTests)) << "libonnx-testdata is not installed (scripts/setup)";
  for (const char* name :
       {"test_conv_with_strides_and_asymmetric_padding", "test_gemm_all_attributes", "test_matmul_4d",
        "test_softmax_axis_1", "test_layer_normalization_4d_axis1", "test_maxpool_2d_ceil",
        "test_averagepool_2d_pads_count_include_pad", "test_batchnorm_epsilon", "test_transpose_all_permutations_3",
        "test_erf", "test_sigmoid", "test_relu", "test_concat_3d_axis_1", "test_globalaveragepool",
        "test_edge_pad", "test_reflect_pad", "test_slice_neg_steps", "test_reshape_negative_extended_dims"}) {
    expect_pass(std::string(kOnnxNodeTests) + "/" + name);
  }
}

}  // namespace
}  // namespace kiln::graph
