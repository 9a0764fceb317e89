// split_prepack (tir/transform/split_prepack.h): a constant parameter's
// pack, marked at the root of a scheduled function, becomes a function of
// its own; the rest takes the packed buffer in the parameter's place, and
// the two in turn compute what the whole function computed.
#include <gtest/gtest.h>

#include "ops/workload.h"
#include "support/packed_matmul.h"
#include "targets/build.h"
#include "targets/lower.h"
#include "targets/runtime/arguments.h"
#include "tir/printer.h"
#include "tir/transform/split_prepack.h"

namespace kiln {
namespace {

// matmul 8 x 64 x 32, j tiled (4, 16), B copied at the root into panels of
// 16 columns (B_global[j // 16, k, j % 16]) and marked as B's pack.
PrimFunc packed_matmul() {
  return testing::packed_matmul(ops::build_workload(ops::parse_workload("matmul:M=8,N=64,K=32")));
}

std::vector<std::string> param_names(const PrimFunc& f) {
  std::vector<std::string> out;
  for (const Buffer& b : f.params()) out.push_back(b.name());
  return out;
}

TEST(SplitPrepack, TheConstantsPackBecomesAFunctionAndMainTakesThePackedBuffer) {
  const PrimFunc f = packed_matmul();
  const SplitPrepack s = split_prepack(f, {1});
  ASSERT_EQ(s.packs.size(), 1u);
  EXPECT_EQ(s.packs[0].param, 1u);
  EXPECT_EQ(param_names(s.packs[0].func), (std::vector<std::string>{"B", "B_global"}));
  EXPECT_EQ(param_names(s.main), (std::vector<std::string>{"A", "B_global", "C"}));
  const std::string main_text = to_string(s.main), pack_text = to_string(s.packs[0].func);
  EXPECT_EQ(main_text.find("B["), std::string::npos) << main_text;  // main never reads B
  EXPECT_EQ(pack_text.find("block(\"C\""), std::string::npos) << pack_text;
  EXPECT_NE(pack_text.find("B_global"), std::string::npos) << pack_text;
}

// Not a constant, or no pack at all: the function stays whole.
TEST(SplitPrepack, OtherParametersKeepTheirPacksInMain) {
  const PrimFunc f = packed_matmul();
  EXPECT_TRUE(split_prepack(f, {0}).packs.empty());
  EXPECT_TRUE(split_prepack(f, {}).packs.empty());
  EXPECT_TRUE(split_prepack(f, {0}).main.same_as(f));
  const PrimFunc plain = ops::build_workload(ops::parse_workload("matmul:M=8,N=64,K=32"));
  EXPECT_TRUE(split_prepack(plain, {1}).packs.empty());
}

// Packed once, then main: the same output as the whole function, to the
// bit (the same sums in the same order).
TEST(SplitPrepack, PackThenMainComputeWhatTheWholeFunctionDoes) {
  const PrimFunc f = packed_matmul();
  const SplitPrepack s = split_prepack(f, {1});
  ASSERT_EQ(s.packs.size(), 1u);
  const Target t = Target::host();
  ThreadPool pool(2);
  std::vector<NDArray> args = make_arguments(f, 7);
  auto whole = build(lower(f, t), t);
  ASSERT_EQ(whole->call_arrays({&args[0], &args[1], &args[2]}, pool), 0);

  std::vector<ArgSpec> main_specs = arg_specs(s.main);
  NDArray packed(main_specs[1].dtype, main_specs[1].shape), out(main_specs[2].dtype, main_specs[2].shape);
  auto pack = build(lower(s.packs[0].func, t), t);
  ASSERT_EQ(pack->call_arrays({&args[1], &packed}, pool), 0);
  EXPECT_EQ(packed.data_as<float>()[16], args[1].data_as<float>()[64]);  // B[1, 0], the panel's second row
  auto main = build(lower(s.main, t), t);
  ASSERT_EQ(main->call_arrays({&args[0], &packed, &out}, pool), 0);
  for (int64_t i = 0; i < out.numel(); ++i) ASSERT_EQ(out.data_as<float>()[i], args[2].data_as<float>()[i]) << i;
}

}  // namespace
}  // namespace kiln
