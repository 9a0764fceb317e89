// Hand-written text for each statement kind, loop kind and block part: it
// parses into the IR it names and prints back to the same text.
#include "round_trip.h"

namespace kiln {
namespace {

// Parses a function and checks that it prints back as written.
PrimFunc parse_exact(const std::string& text) {
  PrimFunc f = parse_prim_func(text);
  EXPECT_EQ(to_string(f), text);
  return f;
}

const ForNode* as_for(const Stmt& s) { return s.as<ForNode>(); }

std::vector<Stmt> items(const Stmt& s) {
  if (const auto* q = s.as<SeqStmtNode>()) return q->seq;
  return {s};
}

TEST(ParseStmt, LoopKindsRangesAndAnnotations) {
  PrimFunc f = parse_exact(R"(@T.prim_func
def loops(A: T.Buffer((64, 64), "float32")):
    for i in T.parallel(64):
        for j in T.vectorized(8):
            A[i, j] = A[i, j] + T.float32(1)
    for i_1 in T.unroll(4):
        for j_1 in range(2, 66):
            A[i_1, j_1 - 2] = T.float32(0)
    for tx in T.thread_binding(32, thread="threadIdx.x"):
        for j_2 in T.serial(64, annotations={"pragma_auto_unroll_max_step": 16, "pragma_unroll_explicit": 0}):
            A[tx, j_2] = T.float32(0.5)
        for j_3 in T.parallel(tx * 4, tx * 4 + 4):
            T.evaluate(j_3)
    for n in T.serial(16, dtype="int64"):
        T.evaluate(n)
    for i_2, j_4 in T.grid(4, 8):
        for k in range(i_2 + 1):
            T.evaluate(i_2 + j_4 + k)
)");
  std::vector<Stmt> loops = items(f->body);
  ASSERT_EQ(loops.size(), 5u);
  EXPECT_EQ(as_for(loops[0])->for_kind, ForKind::kParallel);
  EXPECT_EQ(as_for(as_for(loops[0])->body)->for_kind, ForKind::kVectorized);
  EXPECT_EQ(as_for(loops[1])->for_kind, ForKind::kUnrolled);
  const ForNode* shifted = as_for(as_for(loops[1])->body);
  EXPECT_TRUE(is_const_int(shifted->min, 2));
  EXPECT_TRUE(is_const_int(shifted->extent, 64));
  EXPECT_EQ(as_for(loops[2])->thread_tag, "threadIdx.x");
  std::vector<Stmt> threaded = items(as_for(loops[2])->body);
  EXPECT_EQ(as_for(threaded[0])->annotations.size(), 2u);
  // `tx * 4 + 4` is read as start `tx * 4` plus extent 4.
  EXPECT_TRUE(is_const_int(as_for(threaded[1])->extent, 4));
  EXPECT_EQ(as_for(loops[3])->loop_var.dtype(), DataType::Int64());
  EXPECT_EQ(as_for(loops[3])->extent.dtype(), DataType::Int32());
  // T.grid is two nested serial loops.
  EXPECT_EQ(as_for(as_for(loops[4])->body)->for_kind, ForKind::kSerial);
  EXPECT_TRUE(as_for(as_for(as_for(loops[4])->body)->body));
}

TEST(ParseStmt, BlocksWithEveryPart) {
  PrimFunc f = parse_exact(R"(@T.prim_func
def blocks(A: T.Buffer((64, 40), "float32"), C: T.Buffer((64,), "float32")):
    with T.block("root", no_realize=True):
        T.reads()
        T.writes()
        C_local = T.alloc_buffer((64,), "float32", scope="local")
        S = T.alloc_buffer((8, 128), "float32", scope="shared", align_axis=0, align_factor=16, align_offset=1)
        for i, k in T.grid(64, 32):
            with T.block("C"):
                vi = T.axis.spatial(64, i)
                vk = T.axis.reduce((8, 40), k + 8)
                T.where(i < 60)
                T.reads(A[vi, vk], C_local[vi])
                T.writes(C_local[vi])
                T.block_attr({"meta_schedule.unroll": 16})
                with T.init():
                    C_local[vi] = T.float32(0)
                C_local[vi] = C_local[vi] + A[vi, vk]
        for i_1 in range(16):
            with T.block("copy"):
                vi_1 = T.axis.spatial(16, i_1)
                T.reads(C_local[vi_1 * 4:vi_1 * 4 + 4], S[0, 0:128])
                T.writes(C[vi_1 * 4:vi_1 * 4 + 4])
                for j in range(4):
                    C[vi_1 * 4 + j] = C_local[vi_1 * 4 + j]
)");
  const auto* root = f->body.as<BlockNode>();
  ASSERT_TRUE(root);
  ASSERT_EQ(root->alloc_buffers.size(), 2u);
  EXPECT_EQ(root->alloc_buffers[0]->scope, "local");
  EXPECT_EQ(root->alloc_buffers[1]->align_factor, 16);
  EXPECT_EQ(root->alloc_buffers[1]->align_offset, 1);
  const auto* realize = as_for(as_for(items(root->body)[0])->body)->body.as<BlockRealizeNode>();
  ASSERT_TRUE(realize);
  EXPECT_EQ(realize->predicate.kind(), ExprKind::LT);
  const auto* c = realize->block.as<BlockNode>();
  ASSERT_EQ(c->iter_vars.size(), 2u);
  EXPECT_TRUE(c->iter_vars[1].is_reduce());
  EXPECT_TRUE(is_const_int(c->iter_vars[1].dom()->min, 8));
  EXPECT_TRUE(is_const_int(c->iter_vars[1].dom()->extent, 32));
  EXPECT_TRUE(c->init.defined());
  EXPECT_EQ(c->annotations.count("meta_schedule.unroll"), 1u);
  // The region's buffer is the block's own allocation, one object.
  EXPECT_TRUE(c->writes[0].buffer().same_as(root->alloc_buffers[0]));
}

TEST(ParseStmt, ExpressionsLetsAllocationsAndTheTailRule) {
  PrimFunc f = parse_exact(R"(@T.prim_func
def misc(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "int32")):
    for i in range(8):
        with T.LetStmt(i * 8) as base:
            A[T.Ramp(base, 1, 8)] = T.Broadcast(T.float32(1), 8)
            B[base] = T.Cast("int32", A[base])
        if i < 4 and not i == 2:
            A[i] = T.Select(i % 2 == 0, T.exp(A[i]), T.fma(A[i], T.float32(2), T.float32(-0.5)))
        else:
            T.evaluate(T.Let(t, i + 1, t * t))
        with T.allocate((16,), "float32", scope="local") as A_local:
            A_local[0] = T.sqrt(A[i])
        A[i] = T.max(A[i], T.float32("-inf")) / T.float32(3)
    w: T.int64 = T.Cast("int64", B[0])
    B_local = T.allocate((4,), "int32", scope="local")
    B_local[0] = T.truncdiv(B[1], 3) + T.truncmod(B[2], -3) + T.min(B[3] // 2, B[4] % 5)
    T.evaluate(w)
)");
  std::vector<Stmt> top = items(f->body);
  ASSERT_EQ(top.size(), 2u);
  const auto* let = top[1].as<LetStmtNode>();
  ASSERT_TRUE(let);
  EXPECT_EQ(let->var.dtype(), DataType::Int64());
  const auto* alloc = let->body.as<AllocateNode>();
  ASSERT_TRUE(alloc);  // the declaration's body is the rest of the suite
  EXPECT_EQ(items(alloc->body).size(), 2u);
  std::vector<Stmt> loop = items(as_for(top[0])->body);
  ASSERT_EQ(loop.size(), 4u);
  const auto* vec = items(loop[0].as<LetStmtNode>()->body)[0].as<BufferStoreNode>();
  EXPECT_EQ(vec->indices[0].kind(), ExprKind::Ramp);
  EXPECT_EQ(vec->value.kind(), ExprKind::Broadcast);
  EXPECT_EQ(vec->value.dtype(), DataType::Float32().with_lanes(8));
  const auto* branch = loop[1].as<IfThenElseNode>();
  ASSERT_TRUE(branch && branch->else_case.defined());
  EXPECT_EQ(branch->then_case.as<BufferStoreNode>()->value.kind(), ExprKind::Select);
}

TEST(ParseStmt, FreeVariablesFreeBuffersAttrsAndTheFunctionName) {
  PrimFunc f = parse_exact(R"(@T.prim_func(name="my.kernel")
def my_kernel(A: T.Buffer((n,), "float32"), B: T.Buffer((m,), "float32")):
    T.func_attr({"global_symbol": "my.kernel", "tir.noalias": True})
    n = T.int32()
    m = T.int64()
    W = T.Buffer((4,), "float32")
    for i in range(n):
        A[i] = W[i % 4]
)");
  EXPECT_EQ(f->name, "my.kernel");
  EXPECT_EQ(f->attrs.size(), 2u);
  EXPECT_EQ(f->params[1]->shape[0].dtype(), DataType::Int64());
  // The loop's extent is the shape variable of A.
  EXPECT_TRUE(as_for(f->body)->extent.same_as(f->params[0]->shape[0]));
}

TEST(ParseStmt, EmptyBodiesAndNoOps) {
  PrimFunc f = parse_exact(R"(@T.prim_func
def empty(A: T.Buffer((), "float32")):
    for i in range(4):
        pass
    A[()] = T.float32(0)
    T.evaluate(0)
)");
  std::vector<Stmt> top = items(f->body);
  ASSERT_EQ(top.size(), 3u);  // the written no-op stays
  EXPECT_TRUE(as_for(top[0])->body.as<SeqStmtNode>()->seq.empty());
}

TEST(ParseStmt, APrefetchNamesOneElement) {
  PrimFunc f = parse_exact(R"(@T.prim_func
def fetch(W: T.Buffer((4096,), "float32")):
    for i in range(64):
        T.prefetch(W[i * 64])
)");
  const auto* p = as_for(f->body)->body.as<PrefetchNode>();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->buffer->name, "W");
  EXPECT_EQ(p->indices.size(), 1u);
}

TEST(ParseStmt, SiblingBindingsOfOneNameAreOneVariable) {
  // Unrolling copies a loop nest, so one variable is bound in each copy; the
  // printer names it once, and the parser gives back one variable.
  PrimFunc f = parse_prim_func(R"(@T.prim_func
def copies(A: T.Buffer((8,), "float32")):
    for j in range(4):
        A[j] = T.float32(0)
    for j in range(4):
        A[j + 4] = T.float32(0)
)");
  std::vector<Stmt> top = items(f->body);
  EXPECT_TRUE(as_for(top[0])->loop_var.same_as(as_for(top[1])->loop_var));
  EXPECT_TRUE(testing::prints_and_parses_back(f));
}

TEST(ParseStmt, IndentedTextAndComments) {
  PrimFunc f = parse_prim_func(R"(
      # the whole text may be indented, as in a C++ raw string
      @T.prim_func
      def add(A: T.Buffer((4,), "float32"),
              B: T.Buffer((4,), "float32")):
          for i in range(4):  # one loop

              B[i] = A[i] + T.float32(1)
  )");
  EXPECT_EQ(to_string(f), R"(@T.prim_func
def add(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
        B[i] = A[i] + T.float32(1)
)");
}

TEST(ParseStmt, Modules) {
  const std::string text = R"(@I.ir_module
class Module:
    @T.prim_func(name="two")
    def main(B: T.Buffer((4,), "float32")):
        B[1] = T.float32(2)

    @T.prim_func
    def one(A: T.Buffer((4,), "float32")):
        A[0] = T.float32(1)
)";
  IRModule m = parse_module(text);
  EXPECT_EQ(to_string(m), text);
  EXPECT_EQ(m.lookup("main")->name, "two");
  EXPECT_EQ(to_string(parse_module("@I.ir_module\nclass Module:\n    pass\n")), "@I.ir_module\nclass Module:\n    pass\n");
}

TEST(ParseStmt, ModuleKeysThatAreNotIdentifiers) {
  auto func = [](const std::string& name) {
    Buffer A("A", DataType::Float32(), {4});
    return PrimFunc(name, {A}, buffer_store(A, float_imm(DataType::Float32(), 1), {Expr(0)}));
  };
  IRModule m({{"my.kernel", func("my.kernel")}, {"x.y", func("two")}, {"main", func("main")}});
  std::string text = to_string(m);
  EXPECT_NE(text.find("@T.prim_func(name=\"two\", key=\"x.y\")\n    def x_y("), std::string::npos) << text;
  IRModule back = parse_module(text);
  EXPECT_TRUE(structural_equal(back, m)) << text;
  EXPECT_EQ(to_string(back), text);
}

TEST(ParseStmt, LoneStatementsUseTheEnvironment) {
  Buffer A("A", DataType::Float32(), {64, 64});
  Var i("i"), k("k");
  Stmt s = for_loop(Var("j"), 0, 64, ForKind::kSerial, buffer_store(A, buffer_load(A, {i, k}), {i, Expr(0)}));
  // k is unbound: an int32 free variable prints as its name.
  std::string text = to_string(s);
  Stmt back = parse_stmt(text, {.vars = {i, k}, .buffers = {A}});
  EXPECT_EQ(to_string(back), text);
  EXPECT_TRUE(back.as<ForNode>()->body.as<BufferStoreNode>()->buffer.same_as(A));
}

}  // namespace
}  // namespace kiln
