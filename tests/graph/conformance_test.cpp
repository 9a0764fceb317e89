// ONNX's node tests (Debian's libonnx-testdata, which scripts/setup
// installs) on the reference executor: none fails, and no test that
// passes today stops passing. docs/onnx_conformance.md is the table.
#include <gtest/gtest.h>

#include <filesystem>

#include "graph/conformance.h"

namespace kiln::graph {
namespace {

TEST(Conformance, NoNodeTestFailsAndTheListedOnesPass) {
  ASSERT_TRUE(std::filesystem::is_directory(kOnnxNodeTests)) << "libonnx-testdata is not installed (scripts/setup)";
  int pass = 0, fail = 0;
  for (const std::string& dir : test_case_dirs(kOnnxNodeTests)) {
    const TestCaseResult r = run_test_case(dir);
    if (r.status == TestCaseResult::kFail) {
      ++fail;
      ADD_FAILURE() << r.name << ": " << r.detail;
    }
    pass += r.status == TestCaseResult::kPass;
  }
  EXPECT_EQ(fail, 0);
  EXPECT_GE(pass, 821) << "fewer node tests pass than docs/onnx_conformance.md lists";
}

TEST(Conformance, OperatorsOfTheListPassTheirTests) {
  // One test per family, each run by name: a wrong definition fails here
  // with its own message.
  for (const char* name :
       {"test_conv_with_strides_and_asymmetric_padding", "test_gemm_all_attributes", "test_matmul_4d",
        "test_softmax_axis_1", "test_layer_normalization_4d_axis1", "test_reshape_negative_extended_dims",
        "test_slice_neg_steps", "test_maxpool_2d_precomputed_same_upper", "test_averagepool_2d_strides", "test_batchnorm_epsilon",
        "test_transpose_all_permutations_3", "test_unsqueeze_negative_axes", "test_gather_2d_indices",
        "test_clip_splitbounds", "test_pow_bcast_array", "test_reduce_mean_keepdims_random", "test_erf"}) {
    const TestCaseResult r = run_test_case(std::string(kOnnxNodeTests) + "/" + name);
    EXPECT_EQ(r.status, TestCaseResult::kPass) << name << ": " << status_name(r.status) << ": " << r.detail;
  }
}

TEST(Conformance, AModelKilnCannotTakeIsUnsupportedNotFailed) {
  const TestCaseResult r = run_test_case(std::string(kOnnxNodeTests) + "/test_unique_not_sorted_without_axis");
  EXPECT_EQ(r.status, TestCaseResult::kUnsupported) << r.detail;
  EXPECT_NE(r.detail.find("(Unique)"), std::string::npos) << r.detail;
}

}  // namespace
}  // namespace kiln::graph
