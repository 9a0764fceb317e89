// Compiled models: the kernels of every task in one library, run with the
// static memory plan, against the reference executor; and a damaged
// folder refused with the file and what is wrong.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "core/error.h"
#include "graph/compiled_model.h"
#include "graph/fuse.h"
#include "graph/layout.h"
#include "graph/onnx_import.h"
#include "graph/passes.h"
#include "graph/reference.h"
#include "graph/tasks.h"
#include "model_builder.h"
#include "qdq_models.h"
#include "same_outputs.h"
#include "search/rules/rules.h"
#include "search/sample.h"
#include "search/space.h"
#include "targets/runtime/check.h"
#include "tir/analysis/workload_key.h"
#include "tir/tensor_intrin.h"
#include "tir/transform/split_prepack.h"
#include "tir/functor.h"
#include "tir/printer.h"
#include "core/json.h"

namespace kiln::graph {
namespace {

using testing::ModelBuilder;
using testing::set_int;
using testing::set_ints;

// A small residual network: two alike Conv+Relu groups (one task of
// weight 2), a skip add whose other operand (a 1x1 convolution, as a
// downsampling skip) comes after the convolution it adds to, a pool, a
// flatten and a dense layer.
std::string residual_model() {
  ModelBuilder m;
  m.input("x", {1, 4, 6, 6}).weights("w1", {4, 4, 3, 3}).weights("w2", {4, 4, 3, 3}).weights("w3", {4, 4, 3, 3});
  m.weights("wd", {4, 4, 1, 1}).weights("fc", {5, 36}).weights("fc_b", {5}).output("y");
  set_ints(m.node("Conv", {"x", "w1"}, {"c1"}), "pads", {1, 1, 1, 1});
  m.node("Relu", {"c1"}, {"a"});
  set_ints(m.node("Conv", {"a", "w2"}, {"c2"}), "pads", {1, 1, 1, 1});
  m.node("Relu", {"c2"}, {"b"});
  set_ints(m.node("Conv", {"b", "w3"}, {"c3"}), "pads", {1, 1, 1, 1});
  m.node("Conv", {"a", "wd"}, {"d"});
  m.node("Add", {"c3", "d"}, {"s"});
  onnx::NodeProto& pool = m.node("MaxPool", {"s"}, {"p"});
  set_ints(pool, "kernel_shape", {2, 2});
  set_ints(pool, "strides", {2, 2});
  m.node("Flatten", {"p"}, {"f"});
  set_int(m.node("Gemm", {"f", "fc", "fc_b"}, {"y"}), "transB", 1);
  return m.bytes();
}

// Whether some loop of `f` is tensorized (tir/tensor_intrin.h's kTensorizeAnn).
bool is_tensorized(const PrimFunc& f) {
  bool found = false;
  post_order_visit(f.body(), [&](const Stmt& s) {
    if (const auto* l = s.as<ForNode>()) found = found || l->annotations.count(kTensorizeAnn);
  });
  return found;
}

double max_rel_error(const NDArray& got, const NDArray& want) {
  double worst = 0;
  for (int64_t i = 0; i < want.numel(); ++i)
    worst = std::max(worst, std::abs(got.get(i) - want.get(i)) / (1e-4 + std::abs(want.get(i))));
  return worst;
}

class CompiledModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (std::filesystem::temp_directory_path() / ("kiln_model_" + std::to_string(getpid()))).string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // `g` compiled into dir_ with `funcs` for its tasks (for `threads`
  // threads), run on 2 threads on copies of `in`.
  std::vector<NDArray> compile_and_run(const Graph& g, const std::vector<FusedGroup>& groups,
                                       const std::vector<Task>& tasks, const std::vector<PrimFunc>& funcs,
                                       const std::vector<NDArray>& in, int threads) {
    write_compiled_model(g, groups, tasks, funcs, Target::parse("llvm -num-cores=2"), dir_, threads);
    CompiledModel model = CompiledModel::load(dir_);
    ThreadPool pool(2);
    std::vector<NDArray> run_in;
    for (const NDArray& a : in) run_in.push_back(a.copy());
    return model.run(run_in, pool);
  }

  // A draw of `task`'s design space that packs a constant weight at the
  // root (tir/transform/split_prepack.h), for `target`; nullopt when 400
  // draws make none.
  static std::optional<PrimFunc> a_prepacking_draw(const Graph& g, const Task& task, const Target& target) {
    std::vector<size_t> constants;
    for (int p : constant_params(g, task)) constants.push_back(static_cast<size_t>(p));
    const PrimFunc f = canonical_workload(task.func);
    const std::vector<Trace> space = search::design_space(f, search::SpaceParams::for_target(target));
    for (uint64_t seed = 1; seed < 400; ++seed)
      if (std::optional<search::Candidate> c = search::sample_candidate(f, space[seed % space.size()], seed))
        if (!split_prepack(c->func, constants).packs.empty()) return c->func;
    return std::nullopt;
  }

  // `g` (one task) compiled with each of `draws` schedules drawn from its
  // design space and run on copies of `in`: its first output within 1e-4
  // of `want` every time. How many draws made a candidate.
  int expect_drawn_schedules_compute(const Graph& g, const std::vector<NDArray>& in, const NDArray& want,
                                     uint64_t draws) {
    const std::vector<FusedGroup> groups = fuse_operators(g);
    const std::vector<Task> tasks = extract_tasks(g, groups);
    const Target target = Target::parse("llvm -num-cores=2");
    const PrimFunc f = canonical_workload(tasks.at(0).func);
    const std::vector<Trace> space = search::design_space(f, search::SpaceParams::for_target(target));
    int compiled = 0;
    for (uint64_t seed = 1; seed <= draws; ++seed) {
      std::optional<search::Candidate> c = search::sample_candidate(f, space[seed % space.size()], seed);
      if (!c) continue;
      SCOPED_TRACE(c->trace.str());
      std::vector<NDArray> out = compile_and_run(g, groups, tasks, {c->func}, in, 1);
      EXPECT_EQ(out.at(0).shape(), want.shape());
      if (out[0].shape() == want.shape()) {
        EXPECT_LT(max_rel_error(out[0], want), 1e-4);
      }
      ++compiled;
    }
    return compiled;
  }

  // One schedule drawn for each of `tasks` from its design space (seeds
  // from `seed` on, the first that makes a candidate).
  static std::vector<PrimFunc> drawn_designs(const std::vector<Task>& tasks, uint64_t seed) {
    const Target target = Target::parse("llvm -num-cores=2");
    std::vector<PrimFunc> funcs;
    for (const Task& t : tasks) {
      const PrimFunc f = canonical_workload(t.func);
      const std::vector<Trace> space = search::design_space(f, search::SpaceParams::for_target(target));
      std::optional<search::Candidate> c;
      for (uint64_t s = seed; !c && s < seed + 20; ++s) c = search::sample_candidate(f, space[s % space.size()], s);
      EXPECT_TRUE(c) << t.name;
      funcs.push_back(c ? c->func : t.func);
    }
    return funcs;
  }

  std::string dir_;
};

// The residual model compiled into `dir` in NCHW, every task running its
// default program.
void write_default_programs(const std::string& dir) {
  const Graph g = import_onnx_bytes(residual_model());
  const std::vector<FusedGroup> groups = fuse_operators(g);
  const std::vector<Task> tasks = extract_tasks(g, groups);
  std::vector<PrimFunc> funcs;
  for (const Task& t : tasks) funcs.push_back(t.func);
  write_compiled_model(g, groups, tasks, funcs, Target::parse("llvm -num-cores=2"), dir, 1);
}

TEST_F(CompiledModelTest, RunsLikeTheReferenceUntunedAndScheduled) {
  const Graph imported = import_onnx_bytes(residual_model());
  const Target target = Target::parse("llvm -num-cores=2");
  NDArray x(DataType::Float32(), {1, 4, 6, 6});
  x.fill_random(3);
  std::vector<NDArray> in;
  in.push_back(x.copy());
  const NDArray want = std::move(run_reference(imported, in)[0]);

  // In NCHW, and with the convolutions blocked (4 channels a block, the
  // pool reading the plain value back). Untuned: every task's default
  // program. Then each task scheduled by a draw from its design space, as
  // a tuned record would schedule it (in the canonical form the database
  // keeps).
  for (int variant = 0; variant < 4; ++variant) {
    const int64_t lanes = variant < 2 ? 0 : 4;
    const bool scheduled = variant % 2 == 1;
    SCOPED_TRACE(std::string(lanes ? "blocked, " : "nchw, ") + (scheduled ? "scheduled" : "default programs"));
    const Graph g = convert_layout(imported, lanes);
    const std::vector<FusedGroup> groups = fuse_operators(g);
    const std::vector<Task> tasks = extract_tasks(g, groups);
    ASSERT_LT(tasks.size(), groups.size());  // the two alike convolutions share a kernel
    std::vector<PrimFunc> funcs;
    for (const Task& t : tasks) {
      if (!scheduled) {
        funcs.push_back(t.func);
        continue;
      }
      const PrimFunc f = canonical_workload(t.func);
      const std::vector<Trace> space = search::design_space(f, search::SpaceParams::for_target(target));
      std::optional<search::Candidate> c;
      for (uint64_t seed = 1; !c && seed < 20; ++seed) c = search::sample_candidate(f, space[seed % space.size()], seed);
      ASSERT_TRUE(c) << t.name;
      funcs.push_back(c->func);
    }
    write_compiled_model(g, groups, tasks, funcs, target, dir_, 2);
    CompiledModel model = CompiledModel::load(dir_);
    EXPECT_EQ(model.num_calls(), groups.size());
    ASSERT_EQ(model.inputs().size(), 1u);
    EXPECT_EQ(model.inputs()[0].shape, (std::vector<int64_t>{1, 4, 6, 6}));
    ThreadPool pool(2);
    for (int run = 0; run < 2; ++run) {  // the arena is reused
      std::vector<NDArray> out = model.run(in, pool);
      ASSERT_EQ(out.size(), 1u);
      EXPECT_LT(max_rel_error(out[0], want), 1e-4) << "run " << run;
    }
    EXPECT_GT(model.arena_bytes(), 0);
  }
}

// Two alike MatMul layers, one task of weight 2, scheduled by a draw whose
// weight copy stays at the root (a pack, search/rewrite_layout.h): each
// call's weight is packed at compile time, stored packed, and the model
// computes what the reference does.
TEST_F(CompiledModelTest, WeightsArePackedAtCompileTimeForTheKernelThatReadsThem) {
  ModelBuilder m;
  m.input("x", {8, 32}).weights("w1", {32, 32}).weights("w2", {32, 32}).output("y");
  m.node("MatMul", {"x", "w1"}, {"h"});
  m.node("MatMul", {"h", "w2"}, {"y"});
  const Graph g = import_onnx_bytes(m.bytes());
  const Target target = Target::parse("llvm -num-cores=2");
  const std::vector<FusedGroup> groups = fuse_operators(g);
  const std::vector<Task> tasks = extract_tasks(g, groups);
  ASSERT_EQ(tasks.size(), 1u);
  ASSERT_EQ(constant_params(g, tasks[0]), (std::vector<int>{1}));

  const std::optional<PrimFunc> packed = a_prepacking_draw(g, tasks[0], target);
  ASSERT_TRUE(packed) << "no draw of the space packs the weight at the root";
  write_compiled_model(g, groups, tasks, {*packed}, target, dir_, 1);

  std::ifstream plan(std::filesystem::path(dir_) / "model.json");
  const nlohmann::json doc = nlohmann::json::parse(plan);
  std::vector<std::string> packed_names;
  for (const auto& [id, v] : doc["values"].items())
    if (v["name"].get<std::string>().find(".packed") != std::string::npos) packed_names.push_back(v["name"]);
  std::sort(packed_names.begin(), packed_names.end());
  EXPECT_EQ(packed_names, (std::vector<std::string>{"w1.packed", "w2.packed"}));

  NDArray x(DataType::Float32(), {8, 32});
  x.fill_random(5);
  std::vector<NDArray> in;
  in.push_back(x.copy());
  const NDArray want = std::move(run_reference(g, in)[0]);
  CompiledModel model = CompiledModel::load(dir_);
  ThreadPool pool(2);
  std::vector<NDArray> out = model.run(in, pool);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_LT(max_rel_error(out[0], want), 1e-4);
}

// MatMulInteger of uint8 activations by int8 weights without zero points:
// the space tiles it for the host's dot product (docs/tensorize.md), the
// weights are packed at compile time into the intrinsic's layout, and the
// compiled model's int32 output is exactly the reference's.
TEST_F(CompiledModelTest, AnInt8ProductIsTensorizedAndItsWeightsPrepacked) {
  ModelBuilder m;
  m.input("x", {8, 64}, onnx::TensorProto::UINT8).int8_weights("w", {64, 32}).output("y");
  m.node("MatMulInteger", {"x", "w"}, {"y"});
  const Graph g = import_onnx_bytes(m.bytes());
  const Target target = Target::parse("llvm -num-cores=2");
  const std::vector<FusedGroup> groups = fuse_operators(g);
  const std::vector<Task> tasks = extract_tasks(g, groups);
  ASSERT_EQ(tasks.size(), 1u);
  const std::optional<PrimFunc> packed = a_prepacking_draw(g, tasks[0], target);
  ASSERT_TRUE(packed) << "no draw of the space packs the weight at the root";
  EXPECT_TRUE(is_tensorized(*packed)) << to_string(*packed);

  NDArray x(DataType::UInt(8), {8, 64});
  x.fill_random(5, 0, 255);
  std::vector<NDArray> in;
  in.push_back(x.copy());
  const NDArray want = std::move(run_reference(g, in)[0]);
  std::vector<NDArray> out = compile_and_run(g, groups, tasks, {*packed}, in, 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(max_rel_error(out[0], want), 0);
}

// A quantized (QDQ) convolution folded into a QLinearConv and blocked
// (graph/fold_qdq.h, graph/layout.h), both kinds of data: the drawn
// schedule of its convolution is tensorized, and the compiled model's
// output is the passes' graph's on the reference executor exactly (the
// integers are exact and the requantization's float operations the same).
TEST_F(CompiledModelTest, AQuantizedConvolutionIsTensorizedAndExact) {
  for (bool signed_data : {false, true}) {
    testing::QConv c;
    c.C = 16, c.K = 32, c.H = 9, c.signed_data = signed_data;
    c.x_zp = signed_data ? -3 : 130, c.y_zp = signed_data ? -128 : 0;
    const Graph g = run_passes(testing::qdq_conv(c), "", {.lanes = 16, .dense_lanes = 16});
    const std::vector<FusedGroup> groups = fuse_operators(g);
    const std::vector<Task> tasks = extract_tasks(g, groups);
    const Target target = Target::parse("llvm -num-cores=2");
    std::vector<PrimFunc> funcs;
    bool tensorized = false;
    for (const Task& t : tasks) {
      const PrimFunc f = canonical_workload(t.func);
      const std::vector<Trace> space = search::design_space(f, search::SpaceParams::for_target(target));
      // The first draw, or the first tensorized one where there is one.
      std::optional<search::Candidate> drawn;
      for (uint64_t seed = 1; seed < 60; ++seed) {
        std::optional<search::Candidate> c = search::sample_candidate(f, space[seed % space.size()], seed);
        if (!c) continue;
        const bool has = is_tensorized(c->func);
        if (!drawn || has) drawn = std::move(c);
        if (has) {
          tensorized = true;
          break;
        }
      }
      ASSERT_TRUE(drawn) << t.func.name();
      funcs.push_back(drawn->func);
    }
    EXPECT_TRUE(tensorized) << "signed " << signed_data;
    std::vector<NDArray> in = testing::random_inputs(g, 6);
    const NDArray want = std::move(run_reference(g, in)[0]);
    std::vector<NDArray> out = compile_and_run(g, groups, tasks, funcs, in, 2);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(max_rel_error(out[0], want), 0) << "signed " << signed_data;
  }
}

// Weights of 7 bits mark the quantized convolution's product for
// vpmaddubsw's form, which an AVX2 target's space then tiles it for;
// weights over the whole byte keep the exact form.
TEST_F(CompiledModelTest, A7BitQuantizedConvolutionTakesVpmaddubswOnAvx2) {
  const search::SpaceParams avx2 = search::SpaceParams::for_target(Target::parse("llvm -mcpu=haswell -num-cores=2"));
  for (bool small : {true, false}) {
    testing::QConv c;
    c.C = 16, c.K = 16, c.small_weights = small;
    const Graph g = run_passes(testing::qdq_conv(c), "", {.lanes = 8, .dense_lanes = 8});
    const std::vector<Task> tasks = extract_tasks(g, fuse_operators(g));
    std::set<std::string> intrins;
    for (const Task& t : tasks)
      for (const Trace& sketch : search::design_space(canonical_workload(t.func), avx2))
        for (const Instruction& i : sketch.instructions())
          if (const auto* a = std::get_if<AnnotateAttrs>(&i.attrs); a && a->key == search::kTensorIntrinAnn)
            intrins.insert(std::get<std::string>(*a->value));
    EXPECT_EQ(intrins, std::set<std::string>{small ? "x86_avx2_u8s7s32_8x4" : "x86_avx2_u8s8s32_8x4"});
  }
}

// A MatMul onto 300 columns, padded to 320 (graph/pad_dense.h): the Slice
// back to 300 is the product's epilogue, one group, and every schedule
// drawn for it writes the 300 columns right and nothing past them.
TEST_F(CompiledModelTest, APaddedProductWritesOnlyTheColumnsAsked) {
  ModelBuilder m;
  m.input("x", {6, 32}).weights("w", {32, 300}).output("y");
  m.node("MatMul", {"x", "w"}, {"y"});
  const Graph imported = import_onnx_bytes(m.bytes());
  const Graph g = run_passes(imported, "", {.lanes = 0, .dense_lanes = 16});
  const std::vector<FusedGroup> groups = fuse_operators(g);
  ASSERT_EQ(groups_str(g, groups).substr(0, 16), "%y = MatMul+Slic") << groups_str(g, groups);
  std::vector<NDArray> in = testing::random_inputs(imported, 9);
  const NDArray want = std::move(run_reference(imported, in)[0]);
  ASSERT_EQ(want.shape(), (std::vector<int64_t>{6, 300}));
  EXPECT_GT(expect_drawn_schedules_compute(g, in, want, 12), 4);
}

// A 3×3 convolution at 30×30 with a bias and a Relu, blocked: Winograd's
// F(4×4, 3×3), its weights transformed at compile time; every schedule
// drawn for it computes what the direct convolution of the original graph
// does, the tiles past the 30th row and column written nowhere.
TEST_F(CompiledModelTest, AWinogradConvolutionRunsLikeTheDirectOne) {
  ModelBuilder m;
  m.input("x", {1, 8, 30, 30}).weights("w", {8, 8, 3, 3}).weights("b", {8}).output("y");
  set_ints(m.node("Conv", {"x", "w", "b"}, {"c"}), "pads", {1, 1, 1, 1});
  m.node("Relu", {"c"}, {"y"});
  const Graph imported = import_onnx_bytes(m.bytes());
  const Graph g = convert_layout(imported, 4);
  const std::vector<FusedGroup> groups = fuse_operators(g);
  ASSERT_NE(groups_str(g, groups).find("kiln.WinogradConvNCHWc+Relu"), std::string::npos) << groups_str(g, groups);
  std::vector<NDArray> in = testing::random_inputs(imported, 5);
  const NDArray want = std::move(run_reference(imported, in)[0]);
  const std::vector<Task> tasks = extract_tasks(g, groups);
  int compiled = 0;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    std::vector<NDArray> out = compile_and_run(g, groups, tasks, drawn_designs(tasks, seed), in, 2);
    ASSERT_EQ(out.at(0).shape(), want.shape());
    // Compared as the tuner's check compares (|got - want| / max(|want|, 1)):
    // the transforms' sums of inputs round as the inputs' magnitude, so an
    // output near zero has a relative error that says nothing. F(4,3)
    // rounds more than a direct sum (ops/winograd.h).
    EXPECT_LT(max_relative_error(out[0], want), 1e-4) << "draw " << seed;
    ++compiled;
  }
  EXPECT_EQ(compiled, 4);
}

// An image's 3 channels are blocked by 1 (graph/layout.h): NCHW1c is the
// input's own bytes, so its conversion is no task and no call, and the
// convolution reads the input where it lies.
TEST_F(CompiledModelTest, AnInputInBlocksOfOneChannelIsReadWhereItLies) {
  ModelBuilder m;
  m.input("x", {1, 3, 10, 10}).weights("w", {16, 3, 3, 3}).weights("b", {16}).output("y");
  set_ints(m.node("Conv", {"x", "w", "b"}, {"c"}), "pads", {1, 1, 1, 1});
  m.node("Relu", {"c"}, {"y"});
  const Graph imported = import_onnx_bytes(m.bytes());
  const Graph g = convert_layout(imported, 16);
  const std::vector<FusedGroup> groups = fuse_operators(g);
  ASSERT_NE(groups_str(g, groups).find("kiln.ToNCHWc("), std::string::npos) << groups_str(g, groups);
  EXPECT_TRUE(is_input_view(g, groups.front())) << groups_str(g, groups);
  const std::vector<Task> tasks = extract_tasks(g, groups);
  EXPECT_EQ(tasks.size(), groups.size() - 1);
  for (const Task& t : tasks) EXPECT_EQ(t.name.find("ToNCHWc"), std::string::npos) << t.name;
  std::vector<NDArray> in = testing::random_inputs(imported, 5);
  const NDArray want = std::move(run_reference(imported, in)[0]);
  std::vector<NDArray> out = compile_and_run(g, groups, tasks, drawn_designs(tasks, 1), in, 2);
  ASSERT_EQ(out.at(0).shape(), want.shape());
  EXPECT_LT(max_relative_error(out[0], want), 1e-5);
  CompiledModel model = CompiledModel::load(dir_);
  EXPECT_EQ(model.num_calls(), groups.size() - 1);
}

// 24 channels at 16 lanes are one block of 24 (graph/layout.h): the
// projection writes a vector and a half per pixel, the depthwise
// convolution and the residual Add work on it, the expansion reads it.
// Drawn schedules vectorize 24 lanes, 12, 8, ...: every one computes what
// the reference does.
TEST_F(CompiledModelTest, ABlockOfAVectorAndAHalfRunsLikeTheReference) {
  ModelBuilder m;
  m.input("x", {1, 32, 6, 6}).weights("wp", {24, 32, 1, 1}).weights("bp", {24}).weights("wdw", {24, 1, 3, 3});
  m.weights("we", {32, 24, 1, 1}).output("y");
  m.node("Conv", {"x", "wp", "bp"}, {"p"});
  onnx::NodeProto& dw = m.node("Conv", {"p", "wdw"}, {"d"});
  set_ints(dw, "pads", {1, 1, 1, 1});
  set_int(dw, "group", 24);
  m.node("Clip", {"d"}, {"r"});
  m.node("Add", {"r", "p"}, {"a"});
  m.node("Conv", {"a", "we"}, {"y"});
  const Graph imported = import_onnx_bytes(m.bytes());
  const Graph g = convert_layout(imported, 16);
  const std::vector<FusedGroup> groups = fuse_operators(g);
  const std::vector<Task> tasks = extract_tasks(g, groups);
  int in_blocks_of_24 = 0;  // the projection, depthwise+Clip+Add
  for (const Task& t : tasks) in_blocks_of_24 += t.signature.find("-> float32[1, 1, 6, 6, 24]") != std::string::npos;
  EXPECT_EQ(in_blocks_of_24, 2);
  std::vector<NDArray> in = testing::random_inputs(imported, 5);
  const NDArray want = std::move(run_reference(imported, in)[0]);
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    std::vector<NDArray> out = compile_and_run(g, groups, tasks, drawn_designs(tasks, seed), in, 2);
    ASSERT_EQ(out.at(0).shape(), want.shape());
    EXPECT_LT(max_relative_error(out[0], want), 1e-4) << "draw " << seed;
  }
}

// An attention over 20 keys with a causal keep condition, its keys padded
// to 32 (graph/pad_attention.h): every schedule drawn for it computes what
// the unpadded reference does, the 12 columns past the keys scoring -inf
// and weighing nothing (no NaN from -inf - -inf where a row keeps keys).
TEST_F(CompiledModelTest, AnAttentionOverPaddedKeysRunsLikeTheReference) {
  ModelBuilder m(14);
  m.input("q", {1, 2, 3, 8}).input("kt", {1, 2, 8, 20}).input("v", {1, 2, 20, 16}).output("y");
  m.input("keep", {3, 20}, onnx::TensorProto::BOOL).scalar_float("lowest", -3.4e38f).scalar_float("scale", 0.25f);
  m.node("MatMul", {"q", "kt"}, {"s"});
  m.node("Mul", {"s", "scale"}, {"ss"});
  m.node("Where", {"keep", "ss", "lowest"}, {"z"});
  testing::set_int(m.node("Softmax", {"z"}, {"p"}), "axis", -1);
  m.node("MatMul", {"p", "v"}, {"y"});
  const Graph imported = import_onnx_bytes(m.bytes());
  const Graph g = run_passes(imported, "", {.lanes = 0, .dense_lanes = 16});
  ASSERT_EQ(g.nodes.size(), 1u);
  ASSERT_EQ(g.nodes[0].attr_int("padded_keys", 0), 32);
  std::vector<NDArray> in = testing::random_inputs(imported, 5), ref_in;
  for (const NDArray& a : in) ref_in.push_back(a.copy());
  const NDArray want = std::move(run_reference(imported, ref_in)[0]);
  EXPECT_GT(expect_drawn_schedules_compute(g, in, want, 8), 3);
}

// A node of constant inputs past the fold budget (ImportOptions::
// max_fold_steps) is not evaluated at import: it stays a node, compiled
// and run with the rest, and the model computes what the folded one does.
TEST_F(CompiledModelTest, ANodeTooCostlyToFoldRunsCompiled) {
  ModelBuilder m;
  m.input("x", {3, 8}).weights("w", {16, 8}).output("y");
  m.node("Transpose", {"w"}, {"wt"});
  m.node("MatMul", {"x", "wt"}, {"y"});
  const Graph folded = import_onnx_bytes(m.bytes());
  ASSERT_TRUE(folded.value(folded.value_id("wt")).is_constant());
  ImportOptions options;
  options.max_fold_steps = 100;  // the transpose takes some 16 * 8 * 2
  const Graph g = import_onnx_bytes(m.bytes(), options);
  ASSERT_FALSE(g.value(g.value_id("wt")).is_constant());

  NDArray x(DataType::Float32(), {3, 8});
  x.fill_random(7);
  std::vector<NDArray> in;
  in.push_back(x.copy());
  const NDArray want = std::move(run_reference(folded, in)[0]);
  const std::vector<FusedGroup> groups = fuse_operators(g);
  const std::vector<Task> tasks = extract_tasks(g, groups);
  std::vector<PrimFunc> funcs;
  for (const Task& t : tasks) funcs.push_back(t.func);
  write_compiled_model(g, groups, tasks, funcs, Target::parse("llvm -num-cores=2"), dir_, 1);
  CompiledModel model = CompiledModel::load(dir_);
  // One call: the transpose, an index map, is read by the product's
  // function where it feeds it (graph/fuse.h).
  ASSERT_EQ(model.num_calls(), 1u);
  EXPECT_EQ(model.call_info(0).name, "Transpose+MatMul");
  ThreadPool pool(2);
  const std::vector<NDArray> out = model.run(in, pool);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_LT(max_rel_error(out[0], want), 1e-4);
}

// `kiln run --profile`: a profiled run times every call, names each by its
// group's operators, and computes what the plain run computes.
TEST_F(CompiledModelTest, AProfiledRunTimesEveryCallByItsOperators) {
  write_default_programs(dir_);
  CompiledModel model = CompiledModel::load(dir_);
  NDArray x(DataType::Float32(), {1, 4, 6, 6});
  x.fill_random(5);
  std::vector<NDArray> in;
  in.push_back(std::move(x));
  ThreadPool pool(2);
  const std::vector<NDArray> plain = model.run(in, pool);
  std::vector<double> seconds;
  for (int run = 0; run < 2; ++run) {
    const std::vector<NDArray> profiled = model.run(in, pool, &seconds);
    ASSERT_EQ(profiled.size(), 1u);
    EXPECT_EQ(max_rel_error(profiled[0], plain[0]), 0.0);
  }
  ASSERT_EQ(seconds.size(), model.num_calls());
  for (size_t k = 0; k < seconds.size(); ++k) EXPECT_GT(seconds[k], 0.0) << "call " << k;
  EXPECT_EQ(model.call_info(0).name, "Conv+Relu");
  EXPECT_EQ(model.call_info(0).kernel, "task0");
  EXPECT_EQ(model.call_info(model.num_calls() - 1).name, "Gemm");
}

TEST_F(CompiledModelTest, BadInputsAndDamagedFoldersAreRefusedByName) {
  write_default_programs(dir_);
  auto error_of = [](auto&& f) -> std::string {
    try {
      f();
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  {
    CompiledModel model = CompiledModel::load(dir_);
    ThreadPool pool(1);
    std::vector<NDArray> wrong;
    wrong.emplace_back(DataType::Float32(), std::vector<int64_t>{1, 4, 6, 7});
    EXPECT_NE(error_of([&] { model.run(wrong, pool); }).find("input 'x' must be float32 of shape [1,4,6,6]"),
              std::string::npos);
  }
  // A truncated weights file.
  std::filesystem::resize_file(std::filesystem::path(dir_) / "weights.bin", 100);
  EXPECT_NE(error_of([&] { CompiledModel::load(dir_); }).find("weights.bin: holds 100 bytes"), std::string::npos);
  // A plan that is not JSON.
  std::ofstream(std::filesystem::path(dir_) / "model.json") << "{ not json";
  EXPECT_NE(error_of([&] { CompiledModel::load(dir_); }).find("model.json: corrupt"), std::string::npos);
  EXPECT_NE(error_of([&] { CompiledModel::load(dir_ + "/nowhere"); }).find("not a compiled model"), std::string::npos);
}

}  // namespace
}  // namespace kiln::graph
