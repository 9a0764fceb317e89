// Golden tests of function and module text (docs/ir_text.md).
#include <gtest/gtest.h>

#include <sstream>

#include "tir/printer.h"

namespace kiln {
namespace {

DataType f32 = DataType::Float32();

Stmt region_block(const std::string& name, std::vector<IterVar> ivs, std::vector<BufferRegion> reads,
                  std::vector<BufferRegion> writes, Stmt body, Stmt init = Stmt()) {
  return block({.name = name,
                .iter_vars = std::move(ivs),
                .reads = std::move(reads),
                .writes = std::move(writes),
                .init = std::move(init),
                .body = std::move(body)});
}

Range point(Expr e) { return Range(std::move(e), 1); }

PrimFunc matmul() {
  Buffer A("A", f32, {64, 32}), B("B", f32, {32, 16}), C("C", f32, {64, 16});
  Var i("i"), j("j"), k("k"), vi("vi"), vj("vj"), vk("vk");
  Stmt c = region_block("C",
                        {IterVar(vi, Range(0, 64), IterType::kSpatial), IterVar(vj, Range(0, 16), IterType::kSpatial),
                         IterVar(vk, Range(0, 32), IterType::kReduce)},
                        {BufferRegion(A, {point(vi), point(vk)}), BufferRegion(B, {point(vk), point(vj)})},
                        {BufferRegion(C, {point(vi), point(vj)})},
                        buffer_store(C, buffer_load(C, {vi, vj}) + buffer_load(A, {vi, vk}) * buffer_load(B, {vk, vj}),
                                     {vi, vj}),
                        buffer_store(C, 0.0f, {vi, vj}));
  Stmt loops = for_loop(i, 0, 64, ForKind::kSerial,
                        for_loop(j, 0, 16, ForKind::kSerial,
                                 for_loop(k, 0, 32, ForKind::kSerial, block_realize({i, j, k}, Expr(), c))));
  return PrimFunc("matmul", {A, B, C}, loops);
}

TEST(FuncPrinter, Matmul) {
  EXPECT_EQ(to_string(matmul()),
            R"(@T.prim_func
def matmul(A: T.Buffer((64, 32), "float32"), B: T.Buffer((32, 16), "float32"), C: T.Buffer((64, 16), "float32")):
    for i, j, k in T.grid(64, 16, 32):
        with T.block("C"):
            vi = T.axis.spatial(64, i)
            vj = T.axis.spatial(16, j)
            vk = T.axis.reduce(32, k)
            T.reads(A[vi, vk], B[vk, vj])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)");
}

TEST(FuncPrinter, RootBlockScratchBufferAndAttrs) {
  Buffer A("A", f32, {128}), B("B", f32, {128});
  Buffer T_local("T_local", f32, {128}, "local");
  Var i("i"), vi("vi"), i2("i"), vi2("vi");
  Stmt first = for_loop(
      i, 0, 128, ForKind::kSerial,
      block_realize({i}, Expr(),
                    region_block("copy", {IterVar(vi, Range(0, 128), IterType::kSpatial)},
                                 {BufferRegion(A, {point(vi)})}, {BufferRegion(T_local, {point(vi)})},
                                 buffer_store(T_local, buffer_load(A, {vi}), {vi}))));
  Stmt second = for_loop(
      i2, 0, 128, ForKind::kSerial,
      block_realize({i2}, Expr(),
                    region_block("out", {IterVar(vi2, Range(0, 128), IterType::kSpatial)},
                                 {BufferRegion(T_local, {point(vi2)})}, {BufferRegion(B, {point(vi2)})},
                                 buffer_store(B, buffer_load(T_local, {vi2}) * 2.0f, {vi2}))));
  Stmt root = block({.name = "root", .body = seq({first, second}), .alloc_buffers = {T_local}});
  PrimFunc f("scale", {A, B}, block_realize({}, Expr(), root), {{"global_symbol", string_imm("scale")}});
  EXPECT_EQ(to_string(f),
            R"(@T.prim_func
def scale(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    T.func_attr({"global_symbol": "scale"})
    with T.block("root"):
        T.reads()
        T.writes()
        T_local = T.alloc_buffer((128,), "float32", scope="local")
        for i in range(128):
            with T.block("copy"):
                vi = T.axis.spatial(128, i)
                T.reads(A[vi])
                T.writes(T_local[vi])
                T_local[vi] = A[vi]
        for i_1 in range(128):
            with T.block("out"):
                vi_1 = T.axis.spatial(128, i_1)
                T.reads(T_local[vi_1])
                T.writes(B[vi_1])
                B[vi_1] = T_local[vi_1] * T.float32(2)
)");
}

TEST(FuncPrinter, SymbolicShapesAreDeclaredInTheBody) {
  Var n("n"), m("m", DataType::Int64());
  Buffer A("A", f32, {n}), B("B", f32, {m});
  Buffer W("W", f32, {4});  // used but neither a parameter nor allocated
  Var i("i");
  Stmt body = for_loop(i, 0, n, ForKind::kSerial, buffer_store(A, buffer_load(W, {floormod(i, 4)}), {i}));
  PrimFunc f("f", {A, B}, body);
  EXPECT_EQ(to_string(f),
            R"(@T.prim_func
def f(A: T.Buffer((n,), "float32"), B: T.Buffer((m,), "float32")):
    n = T.int32()
    m = T.int64()
    W = T.Buffer((4,), "float32")
    for i in range(n):
        A[i] = W[i % 4]
)");
}

TEST(FuncPrinter, NamesThatAreNotIdentifiers) {
  Buffer a("A", f32, {4}), a2("A", f32, {4});
  PrimFunc f("my.kernel", {a, a2}, buffer_store(a2, buffer_load(a, {Expr(0)}), {Expr(0)}));
  EXPECT_EQ(to_string(f),
            R"(@T.prim_func(name="my.kernel")
def my_kernel(A: T.Buffer((4,), "float32"), A_1: T.Buffer((4,), "float32")):
    A_1[0] = A[0]
)");
}

TEST(FuncPrinter, Module) {
  Buffer A("A", f32, {4});
  PrimFunc one("one", {A}, buffer_store(A, 1.0f, {Expr(0)}));
  Buffer B("B", f32, {4});
  PrimFunc two("two", {B}, buffer_store(B, 2.0f, {Expr(1)}));
  IRModule m({{"one", one}, {"main", two}});
  std::ostringstream os;
  os << m;
  EXPECT_EQ(os.str(),
            R"(@I.ir_module
class Module:
    @T.prim_func(name="two")
    def main(B: T.Buffer((4,), "float32")):
        B[1] = T.float32(2)

    @T.prim_func
    def one(A: T.Buffer((4,), "float32")):
        A[0] = T.float32(1)
)");
  EXPECT_EQ(to_string(IRModule(std::map<std::string, PrimFunc>{})), "@I.ir_module\nclass Module:\n    pass\n");
}

TEST(FuncPrinter, ModuleKeyThatIsNotAnIdentifier) {
  Buffer A("A", f32, {4});
  PrimFunc f("my.kernel", {A}, buffer_store(A, 1.0f, {Expr(0)}));
  PrimFunc g("g", {A}, buffer_store(A, 2.0f, {Expr(0)}));
  EXPECT_EQ(to_string(IRModule({{"my.kernel", f}, {"x.g", g}})),
            R"(@I.ir_module
class Module:
    @T.prim_func(name="my.kernel", key="my.kernel")
    def my_kernel(A: T.Buffer((4,), "float32")):
        A[0] = T.float32(1)

    @T.prim_func(name="g", key="x.g")
    def x_g(A: T.Buffer((4,), "float32")):
        A[0] = T.float32(2)
)");
}

TEST(FuncPrinter, EachFunctionHasItsOwnNames) {
  Buffer A("A", f32, {4});
  Var i("i");
  PrimFunc f("f", {A}, for_loop(i, 0, 4, ForKind::kSerial, buffer_store(A, 0.0f, {i})));
  // The same objects printed twice, or in two functions of one module, get
  // the same names each time.
  EXPECT_EQ(to_string(f), to_string(f));
  std::string text = to_string(IRModule({{"f", f}, {"g", PrimFunc("g", {A}, f.body())}}));
  EXPECT_EQ(text.find("A_1"), std::string::npos);
  EXPECT_EQ(text.find("i_1"), std::string::npos);
}

}  // namespace
}  // namespace kiln
