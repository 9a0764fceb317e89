// The compiled executor on ONNX test data: models exported by PyTorch
// (tests/data/models, written by scripts/export_models) and one node test
// per operator family, each compiled (every task's default program) and
// run, its outputs compared with the data set's as the node tests compare.
#include <gtest/gtest.h>

#include <filesystem>

#include "graph/compiled_model.h"
#include "graph/conformance.h"
#include "graph/fuse.h"
#include "graph/onnx_import.h"
#include "graph/passes.h"
#include "graph/tasks.h"
#include "support/scratch.h"

namespace kiln::graph {
namespace {

namespace fs = std::filesystem;

// "" when the compiled model reproduces test_data_set_0; else what differs.
std::string compiled_result(const std::string& dir) {
  const Graph g = run_passes(import_onnx_file(dir + "/model.onnx"));
  const std::vector<FusedGroup> groups = fuse_operators(g);
  const std::vector<Task> tasks = extract_tasks(g, groups);
  std::vector<PrimFunc> funcs;
  for (const Task& t : tasks) funcs.push_back(t.func);
  const std::string out = testing::scratch_path(fs::path(dir).filename().string());
  write_compiled_model(g, groups, tasks, funcs, Target::parse("llvm -num-cores=2"), out, 2);
  CompiledModel model = CompiledModel::load(out);
  std::vector<NDArray> in;
  for (size_t k = 0; k < model.inputs().size(); ++k)
    in.push_back(read_tensor_file(dir + "/test_data_set_0/input_" + std::to_string(k) + ".pb"));
  ThreadPool pool(2);
  const std::vector<NDArray> got = model.run(in, pool);
  for (size_t k = 0; k < got.size(); ++k) {
    const NDArray want = read_tensor_file(dir + "/test_data_set_0/output_" + std::to_string(k) + ".pb");
    if (std::string why = compare_output(got[k], want, k); !why.empty()) return why;
  }
  return "";
}

TEST(CompiledConformance, TransformerEncodersExportedByPyTorch) {
  for (const char* model : {"encoder_op13", "encoder_op17"}) {
    const std::string dir = std::string(KILN_SOURCE_DIR) + "/tests/data/models/" + model;
    EXPECT_EQ(compiled_result(dir), "") << model;
  }
}

TEST(CompiledConformance, OneNodeTestPerFamily) {
  ASSERT_TRUE(fs::is_directory(kOnnxNodeTests)) << "libonnx-testdata is not installed (scripts/setup)";
  for (const char* name :
       {"test_conv_with_strides_and_asymmetric_padding", "test_gemm_all_attributes", "test_matmul_4d",
        "test_softmax_axis_1", "test_layer_normalization_4d_axis1", "test_maxpool_2d_ceil",
        "test_averagepool_2d_pads_count_include_pad", "test_batchnorm_epsilon", "test_transpose_all_permutations_3",
        "test_erf", "test_sigmoid", "test_relu", "test_concat_3d_axis_1", "test_globalaveragepool"}) {
    EXPECT_EQ(compiled_result(std::string(kOnnxNodeTests) + "/" + name), "") << name;
  }
}

}  // namespace
}  // namespace kiln::graph
