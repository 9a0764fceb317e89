// create_prim_func: the TensorIR block form of compute definitions.
#include <gtest/gtest.h>

#include "support/error_of.h"

#include <cmath>
#include <functional>

#include "core/functor.h"
#include "core/structural.h"
#include "te_test_util.h"
#include "tir/analysis/verify.h"
#include "tir/printer.h"
#include "tir/te/create_prim_func.h"

namespace kiln {
namespace {

using test::find_block;
using test::find_realize;
using test::point_range;

const DataType kF32 = DataType::Float32();

PrimFunc make_matmul(int M, int N, int K) {
  te::Tensor A = te::placeholder({Expr(M), Expr(K)}, kF32, "A");
  te::Tensor B = te::placeholder({Expr(K), Expr(N)}, kF32, "B");
  IterVar k = te::reduce_axis(Range(Expr(0), Expr(K)), "k");
  te::Tensor C = te::compute({Expr(M), Expr(N)}, [&](Var i, Var j) { return te::sum(A(i, k) * B(k, j), {k}); }, "C");
  return te::create_prim_func({A, B, C}, "matmul");
}

// Vars of the loops around a realize, outermost first.
std::vector<const ForNode*> loops_of(const PrimFunc& f, const std::string& block) {
  std::vector<const ForNode*> loops;
  std::function<bool(const Stmt&)> walk = [&](const Stmt& s) -> bool {
    if (const auto* r = s.as<BlockRealizeNode>()) {
      if (r->block.as<BlockNode>()->name == block) return true;
      return walk(r->block.as<BlockNode>()->body);
    }
    if (const auto* loop = s.as<ForNode>()) {
      loops.push_back(loop);
      if (walk(loop->body)) return true;
      loops.pop_back();
      return false;
    }
    if (const auto* q = s.as<SeqStmtNode>()) {
      for (const Stmt& x : q->seq)
        if (walk(x)) return true;
    }
    return false;
  };
  walk(f.body());
  return loops;
}

TEST(CreatePrimFunc, MatmulHasRootBlockAndOneReductionBlock) {
  PrimFunc f = make_matmul(8, 6, 5);
  verify(f);
  EXPECT_EQ(f.name(), "matmul");
  ASSERT_EQ(f.params().size(), 3u);
  EXPECT_EQ(f.params()[0].name(), "A");
  EXPECT_EQ(f.params()[2].name(), "C");

  const BlockNode* root = test::root_block(f);
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->name, "root");
  EXPECT_TRUE(root->iter_vars.empty());
  EXPECT_TRUE(root->alloc_buffers.empty());
  EXPECT_TRUE(root->reads.empty());
  EXPECT_TRUE(root->writes.empty());
  EXPECT_EQ(test::block_names(f), (std::vector<std::string>{"C", "root"}));

  // Loops: spatial i0, i1 then the reduction k, serial, over the full extents.
  std::vector<const ForNode*> loops = loops_of(f, "C");
  ASSERT_EQ(loops.size(), 3u);
  const int64_t extents[] = {8, 6, 5};
  for (size_t a = 0; a < 3; ++a) {
    EXPECT_TRUE(is_const_int(loops[a]->min, 0));
    EXPECT_TRUE(is_const_int(loops[a]->extent, extents[a]));
    EXPECT_EQ(loops[a]->for_kind, ForKind::kSerial);
    EXPECT_EQ(loops[a]->loop_var.dtype(), DataType::Int32());
  }
  EXPECT_EQ(loops[2]->loop_var.name(), "k");

  const BlockRealizeNode* realize = find_realize(f, "C");
  const BlockNode* c = realize->block.as<BlockNode>();
  ASSERT_EQ(c->iter_vars.size(), 3u);
  EXPECT_FALSE(c->iter_vars[0].is_reduce());
  EXPECT_FALSE(c->iter_vars[1].is_reduce());
  EXPECT_TRUE(c->iter_vars[2].is_reduce());
  for (size_t a = 0; a < 3; ++a) {
    EXPECT_TRUE(is_const_int(c->iter_vars[a].dom()->extent, extents[a]));
    EXPECT_TRUE(realize->iter_values[a].same_as(loops[a]->loop_var)) << "iter value " << a;
    EXPECT_FALSE(c->iter_vars[a].var().same_as(loops[a]->loop_var));
  }
  EXPECT_TRUE(is_one(realize->predicate));

  // Init: C[vi, vj] = 0. Body: C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj].
  const Var& vi = c->iter_vars[0].var();
  const Var& vj = c->iter_vars[1].var();
  const Var& vk = c->iter_vars[2].var();
  const auto* init = c->init.as<BufferStoreNode>();
  ASSERT_NE(init, nullptr);
  EXPECT_TRUE(is_zero(init->value));
  EXPECT_TRUE(init->indices[0].same_as(vi));
  const auto* body = c->body.as<BufferStoreNode>();
  ASSERT_NE(body, nullptr);
  EXPECT_EQ(body->buffer.name(), "C");
  const auto* add = body->value.as<AddNode>();
  ASSERT_NE(add, nullptr);
  const auto* acc = add->a.as<BufferLoadNode>();
  ASSERT_NE(acc, nullptr);
  EXPECT_TRUE(acc->buffer.same_as(body->buffer));
  EXPECT_NE(add->b.as<MulNode>(), nullptr);
  // The body names no loop variable.
  for (const ForNode* loop : loops) {
    EXPECT_FALSE(uses_var(body->value, Var(loop->loop_var)));
  }

  // Regions of one execution, in the block's own iter vars; the accumulator
  // is not listed as a read because the block has an init.
  ASSERT_EQ(c->reads.size(), 2u);
  EXPECT_EQ(c->reads[0].buffer().name(), "A");
  EXPECT_TRUE(point_range(c->reads[0]->region[0], vi));
  EXPECT_TRUE(point_range(c->reads[0]->region[1], vk));
  EXPECT_EQ(c->reads[1].buffer().name(), "B");
  EXPECT_TRUE(point_range(c->reads[1]->region[0], vk));
  EXPECT_TRUE(point_range(c->reads[1]->region[1], vj));
  ASSERT_EQ(c->writes.size(), 1u);
  EXPECT_TRUE(c->writes[0].buffer().same_as(f.params()[2]));
  EXPECT_TRUE(point_range(c->writes[0]->region[0], vi));
  EXPECT_TRUE(point_range(c->writes[0]->region[1], vj));
}

TEST(CreatePrimFunc, SameDefinitionGivesStructurallyEqualFunctions) {
  PrimFunc a = make_matmul(4, 4, 4), b = make_matmul(4, 4, 4), c = make_matmul(4, 4, 5);
  EXPECT_TRUE(structural_equal(a, b));
  EXPECT_EQ(structural_hash(a), structural_hash(b));
  EXPECT_EQ(to_string(a), to_string(b));
  EXPECT_FALSE(structural_equal(a, c));
}

// A zero-padded input followed by a 3x3 window reduction: two stages, the
// first an intermediate buffer of the root block.
struct PadConv {
  te::Tensor A, Wt, P, Out;
  PrimFunc f;
};

PadConv make_pad_conv(int H, int W) {
  PadConv r;
  r.A = te::placeholder({Expr(H), Expr(W)}, kF32, "A");
  r.Wt = te::placeholder({Expr(3), Expr(3)}, kF32, "Wt");
  r.P = te::compute(
      {Expr(H + 2), Expr(W + 2)},
      [&](Var i, Var j) {
        Expr inside = i >= Expr(1) && i < Expr(H + 1) && j >= Expr(1) && j < Expr(W + 1);
        Expr ci = min(max(i - Expr(1), Expr(0)), Expr(H - 1));
        Expr cj = min(max(j - Expr(1), Expr(0)), Expr(W - 1));
        return select(inside, r.A(ci, cj), Expr(0.0f));
      },
      "pad");
  IterVar rr = te::reduce_axis(Range(Expr(0), Expr(3)), "r");
  IterVar rs = te::reduce_axis(Range(Expr(0), Expr(3)), "s");
  r.Out = te::compute(
      {Expr(H), Expr(W)},
      [&](Var i, Var j) { return te::sum(r.P(i + rr.var(), j + rs.var()) * r.Wt(rr, rs), {rr, rs}); }, "conv");
  r.f = te::create_prim_func({r.A, r.Wt, r.Out}, "pad_conv");
  return r;
}

TEST(CreatePrimFunc, PadThenConvIsTwoStagesWithAnIntermediate) {
  PadConv pc = make_pad_conv(5, 4);
  verify(pc.f);
  const BlockNode* root = test::root_block(pc.f);
  ASSERT_EQ(root->alloc_buffers.size(), 1u);
  EXPECT_TRUE(root->alloc_buffers[0].same_as(pc.P.buffer()));
  ASSERT_EQ(pc.f.params().size(), 3u);
  EXPECT_TRUE(pc.f.params()[2].same_as(pc.Out.buffer()));

  // Producer before consumer, each in its own loop nest.
  const auto* stages = root->body.as<SeqStmtNode>();
  ASSERT_NE(stages, nullptr);
  ASSERT_EQ(stages->seq.size(), 2u);
  EXPECT_EQ(test::block_names(pc.f), (std::vector<std::string>{"pad", "conv", "root"}));

  const BlockNode* pad = find_block(pc.f, "pad");
  ASSERT_EQ(pad->iter_vars.size(), 2u);
  EXPECT_FALSE(pad->iter_vars[0].is_reduce());
  EXPECT_FALSE(pad->iter_vars[1].is_reduce());
  EXPECT_FALSE(pad->init.defined());
  EXPECT_TRUE(is_const_int(pad->iter_vars[0].dom()->extent, 7));
  ASSERT_EQ(pad->reads.size(), 1u);
  EXPECT_TRUE(pad->reads[0].buffer().same_as(pc.A.buffer()));
  // The clamped index is one element per execution.
  EXPECT_TRUE(is_const_int(pad->reads[0]->region[0]->extent, 1));
  EXPECT_NE(pad->reads[0]->region[0]->min.as<MinNode>(), nullptr);
  ASSERT_EQ(pad->writes.size(), 1u);
  EXPECT_TRUE(point_range(pad->writes[0]->region[0], pad->iter_vars[0].var()));

  const BlockNode* conv = find_block(pc.f, "conv");
  ASSERT_EQ(conv->iter_vars.size(), 4u);
  const IterType kinds[] = {IterType::kSpatial, IterType::kSpatial, IterType::kReduce, IterType::kReduce};
  for (size_t a = 0; a < 4; ++a) EXPECT_EQ(conv->iter_vars[a]->iter_type, kinds[a]);
  ASSERT_TRUE(conv->init.defined());
  ASSERT_EQ(conv->reads.size(), 2u);
  EXPECT_TRUE(conv->reads[0].buffer().same_as(pc.P.buffer()));
  // pad[vi + vr, vj + vs]: one element, at the sum.
  const Range& r0 = conv->reads[0]->region[0];
  EXPECT_TRUE(is_const_int(r0->extent, 1));
  const auto* sum0 = r0->min.as<AddNode>();
  ASSERT_NE(sum0, nullptr);
  EXPECT_TRUE(sum0->a.same_as(conv->iter_vars[0].var()));
  EXPECT_TRUE(sum0->b.same_as(conv->iter_vars[2].var()));
  EXPECT_TRUE(conv->reads[1].buffer().same_as(pc.Wt.buffer()));
  EXPECT_TRUE(point_range(conv->reads[1]->region[0], conv->iter_vars[2].var()));
  ASSERT_EQ(conv->writes.size(), 1u);
  EXPECT_TRUE(conv->writes[0].buffer().same_as(pc.Out.buffer()));
}

TEST(CreatePrimFunc, StagesWithOneNameGetUniqueBlockNames) {
  te::Tensor A = te::placeholder({Expr(4)}, kF32, "A");
  te::Tensor B = te::compute({Expr(4)}, [&](Var i) { return A(i) + Expr(1.0f); }, "T");
  te::Tensor C = te::compute({Expr(4)}, [&](Var i) { return B(i) * Expr(2.0f); }, "T");
  te::Tensor D = te::compute({Expr(4)}, [&](Var i) { return C(i) - Expr(3.0f); }, "root");
  PrimFunc f = te::create_prim_func({A, D}, "chain");
  verify(f);
  EXPECT_EQ(test::block_names(f), (std::vector<std::string>{"T", "T_1", "root_1", "root"}));
  EXPECT_EQ(test::root_block(f)->alloc_buffers.size(), 2u);
}

TEST(CreatePrimFunc, AnAnnotatedStageCarriesItsAnnotationsOnItsBlock) {
  te::Tensor A = te::placeholder({Expr(4)}, kF32, "A");
  te::Tensor B = te::compute({Expr(4)}, [&](Var i) { return A(i) + Expr(1.0f); }, "B");
  te::Tensor C = te::annotate(B, "kiln.note", Expr(7));
  PrimFunc f = te::create_prim_func({A, C}, "f");
  const BlockNode* b = find_block(f, "B");
  ASSERT_NE(b, nullptr);
  ASSERT_EQ(b->annotations.count("kiln.note"), 1u);
  EXPECT_EQ(*as_const_int(b->annotations.at("kiln.note")), 7);
  // The tensor annotated is a copy: B itself stays bare.
  EXPECT_TRUE(find_block(te::create_prim_func({A, B}, "g"), "B")->annotations.empty());
  EXPECT_THROW(te::annotate(A, "kiln.note", Expr(1)), Error);
}

TEST(CreatePrimFunc, MaxReductionInitialisesWithLowestValue) {
  te::Tensor A = te::placeholder({Expr(3), Expr(5)}, kF32, "A");
  IterVar k = te::reduce_axis(Range(Expr(0), Expr(5)), "k");
  te::Tensor M = te::compute({Expr(3)}, [&](Var i) { return te::max_reduce(A(i, k), {k}); }, "M");
  PrimFunc f = te::create_prim_func({A, M}, "rowmax");
  const BlockNode* b = find_block(f, "M");
  const auto* init = b->init.as<BufferStoreNode>();
  ASSERT_NE(init, nullptr);
  const double* v = as_const_float(init->value);
  ASSERT_NE(v, nullptr);
  EXPECT_TRUE(std::isinf(*v) && *v < 0);
  EXPECT_NE(b->body.as<BufferStoreNode>()->value.as<MaxNode>(), nullptr);
}

TEST(CreatePrimFunc, ReduceAxisWithOffsetLoopsOverItsDomain) {
  te::Tensor A = te::placeholder({Expr(10)}, kF32, "A");
  IterVar k = te::reduce_axis(Range(Expr(2), Expr(5)), "k");
  te::Tensor S = te::compute({Expr(1)}, [&](Var i) { return te::sum(A(i + k.var()), {k}); }, "S");
  PrimFunc f = te::create_prim_func({A, S}, "window");
  verify(f);
  std::vector<const ForNode*> loops = loops_of(f, "S");
  ASSERT_EQ(loops.size(), 2u);
  EXPECT_TRUE(is_const_int(loops[1]->min, 2));
  EXPECT_TRUE(is_const_int(loops[1]->extent, 5));
  EXPECT_TRUE(is_const_int(find_block(f, "S")->iter_vars[1].dom()->min, 2));
}

// ---------------------------------------------------------------------------
// Definition errors.

using testing::error_of;

TEST(CreatePrimFuncErrors, PlaceholderMustBeAnArgument) {
  te::Tensor A = te::placeholder({Expr(4)}, kF32, "A");
  te::Tensor B = te::compute({Expr(4)}, [&](Var i) { return A(i) * Expr(2.0f); }, "B");
  EXPECT_NE(error_of([&] { te::create_prim_func({B}, "f"); }).find("placeholder A"), std::string::npos);
}

TEST(CreatePrimFuncErrors, ArgumentTwice) {
  te::Tensor A = te::placeholder({Expr(4)}, kF32, "A");
  EXPECT_NE(error_of([&] { te::create_prim_func({A, A}, "f"); }).find("passed twice"), std::string::npos);
}

TEST(CreatePrimFuncErrors, ReductionMustBeTheWholeBody) {
  te::Tensor A = te::placeholder({Expr(4), Expr(4)}, kF32, "A");
  IterVar k = te::reduce_axis(Range(Expr(0), Expr(4)), "k");
  std::string msg = error_of([&] {
    te::compute({Expr(4)}, [&](Var i) { return te::sum(A(i, k), {k}) * Expr(2.0f); }, "B");
  });
  EXPECT_NE(msg.find("compute B has a reduction inside its body"), std::string::npos) << msg;
}

TEST(CreatePrimFuncErrors, IndexCountMustMatchRank) {
  te::Tensor A = te::placeholder({Expr(4), Expr(4)}, kF32, "A");
  std::string msg = error_of([&] { te::compute({Expr(4)}, [&](Var i) { return A(i); }, "B"); });
  EXPECT_NE(msg.find("tensor A has 2 dimensions but is indexed with 1"), std::string::npos) << msg;
}

TEST(CreatePrimFuncErrors, BodyArityMustMatchShape) {
  std::string msg = error_of([&] { te::compute({Expr(4), Expr(2)}, [&](Var i) { return Expr(1.0f) + Expr(0.0f); }, "B"); });
  EXPECT_NE(msg.find("compute B has 2 dimensions but its body takes 1"), std::string::npos) << msg;
}

TEST(CreatePrimFuncErrors, ElementLoadedOutsideTheBodyFunction) {
  te::Tensor A = te::placeholder({Expr(4)}, kF32, "A");
  Expr first = A(Expr(0));  // built outside any compute: not recorded
  std::string msg = error_of([&] { te::compute({Expr(4)}, [&](Var i) { return first; }, "B"); });
  EXPECT_NE(msg.find("compute B loads A outside its body function"), std::string::npos) << msg;
}

TEST(CreatePrimFuncErrors, ReductionOverASpatialAxis) {
  te::Tensor A = te::placeholder({Expr(4)}, kF32, "A");
  IterVar not_reduce(Var("x"), Range(Expr(0), Expr(4)), IterType::kSpatial);
  std::string msg = error_of([&] { te::compute({Expr(1)}, [&](Var i) { return te::sum(A(not_reduce), {not_reduce}); }, "B"); });
  EXPECT_NE(msg.find("is not a reduce axis"), std::string::npos) << msg;
}

}  // namespace
}  // namespace kiln
