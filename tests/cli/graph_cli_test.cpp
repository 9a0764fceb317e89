// `kiln graph`: a model file in, the graph IR out; what it cannot read is
// an error naming it, exit code 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli_run.h"
#include "graph/model_builder.h"

namespace kiln::testing {
namespace {

std::string write_model(const std::string& name, const std::string& bytes) {
  const std::string path = (std::filesystem::temp_directory_path() / name).string();
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

TEST(GraphCli, PrintsTheGraphWithShapes) {
  graph::testing::ModelBuilder m;
  m.input("x", {-1, 8}).weights("w", {8, 4}).output("y");
  m.node("MatMul", {"x", "w"}, {"h"}, "proj");
  m.node("Relu", {"h"}, {"y"}, "act");
  const std::string path = write_model("kiln_graph_cli_test.onnx", m.bytes());
  CliRun dynamic = kiln("graph " + path);
  EXPECT_EQ(dynamic.code, 2) << dynamic.out;
  EXPECT_NE(dynamic.out.find("--input-shapes x:[...]"), std::string::npos) << dynamic.out;
  CliRun r = kiln("graph " + path + " --input-shapes 'x:[3,8]'");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("  %h = MatMul(%x, %w) : float32[3, 4]  # proj\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  output %y: float32[3, 4]\n"), std::string::npos) << r.out;
  std::filesystem::remove(path);
}

TEST(GraphCli, ListsItsOperatorsAndRefusesWhatIsNotAModel) {
  CliRun ops = kiln("graph --ops");
  ASSERT_EQ(ops.code, 0) << ops.out;
  EXPECT_NE(ops.out.find("Conv: "), std::string::npos) << ops.out;
  EXPECT_NE(ops.out.find("opsets 1 to 17"), std::string::npos) << ops.out;
  const std::string path = write_model("kiln_graph_cli_not_a_model.onnx", "hello");
  CliRun bad = kiln("graph " + path);
  EXPECT_EQ(bad.code, 2) << bad.out;
  EXPECT_NE(bad.out.find("is not an ONNX model"), std::string::npos) << bad.out;
  std::filesystem::remove(path);
  CliRun missing = kiln("graph /nonexistent/model.onnx");
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.out.find("cannot read model '/nonexistent/model.onnx'"), std::string::npos) << missing.out;
}

}  // namespace
}  // namespace kiln::testing
