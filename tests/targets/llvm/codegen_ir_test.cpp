// The generated IR and assembly themselves, on explicit CPUs so the checks
// do not depend on the host; and the internal errors for IR outside the
// lowered contract.
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "core/error.h"
#include "targets/codegen/llvm/optimize.h"
#include "tests/targets/llvm/kernel_util.h"

namespace kiln {
namespace {

using namespace kiln::test;

PrimFunc vector_copy(int lanes, int n = 256) {
  Buffer A = flat("A", DataType::Float32(), n), C = flat("C", DataType::Float32(), n);
  Var io("io");
  Expr idx = vec(io * lanes, lanes);
  return PrimFunc("vcopy", {A, C}, loop(io, n / lanes, st(C, ld(A, idx) + broadcast(f32(1.0f), lanes), idx)));
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(CodegenIr, SixteenLaneRampIsOneVectorLoadOnAvx512) {
  Target t = Target::parse("llvm -mcpu=skylake-avx512");
  std::string ir = emit_llvm_ir(vector_copy(16), t);
  EXPECT_TRUE(contains(ir, "load <16 x float>")) << ir;
  EXPECT_TRUE(contains(ir, "store <16 x float>")) << ir;
  EXPECT_TRUE(contains(ir, "\"prefer-vector-width\"=\"512\"")) << ir;
  EXPECT_TRUE(contains(ir, "\"target-cpu\"=\"skylake-avx512\"")) << ir;
  EXPECT_TRUE(contains(ir, "i32 @vcopy(ptr")) << ir;
  std::string asm_text = emit_assembly(vector_copy(16), t);
  EXPECT_TRUE(contains(asm_text, "zmm")) << asm_text;
}

TEST(CodegenIr, NoWideVectorPreferenceWithoutAvx512) {
  std::string ir = emit_llvm_ir(vector_copy(8), Target::parse("llvm -mcpu=haswell"));
  EXPECT_TRUE(contains(ir, "load <8 x float>")) << ir;
  EXPECT_FALSE(contains(ir, "prefer-vector-width")) << ir;
}

TEST(CodegenIr, BuffersAreNoaliasAndAlignedToTheirElement) {
  std::string ir = emit_llvm_ir(vector_copy(16), Target::parse("llvm -mcpu=skylake-avx512"), /*optimize=*/false);
  EXPECT_TRUE(contains(ir, "ptr noalias nocapture %A")) << ir;
  EXPECT_TRUE(contains(ir, "ptr noalias nocapture %C")) << ir;
  EXPECT_TRUE(contains(ir, "load <16 x float>, ptr %")) << ir;
  EXPECT_TRUE(contains(ir, "align 4")) << ir;
  EXPECT_TRUE(contains(ir, "@vcopy__kiln_signature = constant")) << ir;
  EXPECT_TRUE(contains(ir, "c\"A:float32:256;C:float32:256\\00\"")) << ir;
}

TEST(CodegenIr, GathersUseMaskedIntrinsics) {
  const int n = 64;
  Buffer A = flat("A", DataType::Float32(), 2 * n), C = flat("C", DataType::Float32(), n);
  Var io("io");
  PrimFunc f("strided", {A, C}, loop(io, n / 8, st(C, ld(A, ramp(io * 16, Expr(2), 8)), vec(io * 8, 8))));
  std::string ir = emit_llvm_ir(f, Target::parse("llvm -mcpu=skylake-avx512"), /*optimize=*/false);
  EXPECT_TRUE(contains(ir, "@llvm.masked.gather.v8f32")) << ir;
}

TEST(CodegenIr, AnIndexOfTwoValuesIsTwoLoadsNotAGather) {
  // A[io*16 + floordiv(lane, 8)*8]: lanes 0-7 read one element, 8-15 the
  // one 8 further on.
  const int n = 64;
  Buffer A = flat("A", DataType::Float32(), n), C = flat("C", DataType::Float32(), n);
  Var io("io");
  Expr idx = broadcast(io * 16, 16) + floordiv(ramp(Expr(0), Expr(1), 16), broadcast(Expr(8), 16)) * broadcast(Expr(8), 16);
  PrimFunc f("grouped_lanes", {A, C}, loop(io, n / 16, st(C, ld(A, idx), vec(io * 16, 16))));
  std::string ir = emit_llvm_ir(f, Target::parse("llvm -mcpu=skylake-avx512"), /*optimize=*/false);
  EXPECT_FALSE(contains(ir, "@llvm.masked.gather")) << ir;
  EXPECT_TRUE(contains(ir, "<16 x i1> <i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, "
                           "i1 false, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true>"))
      << ir;
}

TEST(CodegenIr, ClampedRampIsAMaskedLoadNotAGather) {
  const int w = 30;
  Buffer A = flat("A", DataType::Float32(), 2 * w), C = flat("C", DataType::Float32(), 64);
  Var r("r"), o("o");
  Expr x = max(min(ramp(o * 16 - 1, Expr(1), 16), broadcast(Expr(w - 1), 16)), broadcast(Expr(0), 16));
  PrimFunc f("pad_row", {A, C},
             loop(r, 2, loop(o, 2, st(C, ld(A, broadcast(r * w, 16) + x), vec(r * 32 + o * 16, 16)))));
  std::string ir = emit_llvm_ir(f, Target::parse("llvm -mcpu=skylake-avx512"), /*optimize=*/false);
  EXPECT_TRUE(contains(ir, "@llvm.masked.load.v16f32")) << ir;
  EXPECT_FALSE(contains(ir, "@llvm.masked.gather")) << ir;
}

TEST(CodegenIr, ParallelLoopsAreOutlined) {
  Buffer C = flat("C", DataType::Int32(), 16);
  Var i("i");
  PrimFunc f("par", {C}, loop(i, 16, st(C, i, i), ForKind::kParallel));
  std::string ir = emit_llvm_ir(f, Target::parse("llvm -mcpu=haswell"), /*optimize=*/false);
  EXPECT_TRUE(contains(ir, "define internal i32 @par.par0.task(i64 %task, i64 %num_tasks, ptr %closure)")) << ir;
  EXPECT_TRUE(contains(ir, "define internal i32 @par.par0(ptr %rt")) << ir;
}

TEST(CodegenIr, MultiplyAddFusesUnlessFpContractIsOff) {
  const int n = 64;
  Buffer A = flat("A", DataType::Float32(), n), B = flat("B", DataType::Float32(), n), C = flat("C", DataType::Float32(), n);
  Var io("io");
  Expr idx = vec(io * 8, 8);
  PrimFunc f("muladd", {A, B, C}, loop(io, n / 8, st(C, ld(A, idx) * ld(B, idx) + ld(C, idx), idx)));
  Target fused = Target::parse("llvm -mcpu=haswell");
  EXPECT_TRUE(fused.fp_contract());
  EXPECT_TRUE(contains(emit_llvm_ir(f, fused), "fmul contract <8 x float>"));
  EXPECT_TRUE(contains(emit_assembly(f, fused), "vfmadd"));
  Target exact = Target::parse("llvm -mcpu=haswell -fp-contract=off");
  EXPECT_FALSE(contains(emit_llvm_ir(f, exact), "contract"));
  EXPECT_FALSE(contains(emit_assembly(f, exact), "vfmadd"));
}

TEST(CodegenIr, CrossCompilesAssembly) {
  std::string asm_text = emit_assembly(vector_copy(4), Target::parse("llvm -mtriple=aarch64-linux-gnu -mcpu=neoverse-v1"));
  EXPECT_TRUE(contains(asm_text, "vcopy:")) << asm_text;
  EXPECT_TRUE(contains(asm_text, "ret")) << asm_text;
  // ... but it cannot run here.
  EXPECT_THROW(build_llvm(vector_copy(4), Target::parse("llvm -mtriple=aarch64-linux-gnu")), Error);
}

// WebAssembly has no fused multiply-add but relaxed SIMD's, which may fuse
// (as -fp-contract=on allows): a 4-lane multiply feeding an add becomes
// f32x4.relaxed_madd with +relaxed-simd, and stays two instructions without
// it or with -fp-contract=off.
TEST(CodegenIr, WasmMultiplyAddsAreRelaxedMaddsWithRelaxedSimd) {
  Buffer A = flat("A", DataType::Float32(), 16), B = flat("B", DataType::Float32(), 16),
         C = flat("C", DataType::Float32(), 16);
  Var io("io");
  Expr idx = vec(io * 4, 4);
  PrimFunc f("axpy", {A, B, C}, loop(io, 4, st(C, ld(A, idx) * ld(B, idx) + ld(C, idx), idx)));
  EXPECT_TRUE(contains(emit_assembly(f, Target::parse("wasm32 -mattr=+simd128,+relaxed-simd")), "f32x4.relaxed_madd"));
  std::string plain = emit_assembly(f, Target::parse("wasm32 -mattr=+simd128"));
  EXPECT_FALSE(contains(plain, "relaxed_madd"));
  EXPECT_TRUE(contains(plain, "f32x4.mul")) << plain;
  EXPECT_FALSE(contains(emit_assembly(f, Target::parse("wasm32 -mattr=+simd128,+relaxed-simd -fp-contract=off")),
                        "relaxed_madd"));
}

// NEON moves 128 bits at a time; SVE built for 256 bits (-vscale=2) tells
// LLVM the length (vscale_range), which then moves the schedule's 8-lane
// vectors in one SVE register each, under a predicate.
TEST(CodegenIr, Aarch64VectorsAreNeonOrSveOfTheTargetsLength) {
  std::string neon = emit_assembly(vector_copy(8), Target::parse("llvm -mtriple=aarch64-linux-gnu -mattr=+neon"));
  EXPECT_TRUE(contains(neon, "q0")) << neon;
  EXPECT_FALSE(contains(neon, "z0")) << neon;
  Target sve = Target::parse("llvm -mtriple=aarch64-linux-gnu -mattr=+sve -vscale=2");
  EXPECT_TRUE(contains(emit_llvm_ir(vector_copy(8), sve), "vscale_range(2,2)"));
  std::string sve_asm = emit_assembly(vector_copy(8), sve);
  EXPECT_TRUE(contains(sve_asm, "ptrue")) << sve_asm;
  EXPECT_TRUE(contains(sve_asm, "z0")) << sve_asm;
}

std::string internal_error_of(const PrimFunc& f) {
  try {
    emit_llvm_ir(f, Target::parse("llvm -mcpu=haswell"));
  } catch (const InternalError& e) {
    return e.what();
  }
  return "";
}

TEST(CodegenIr, GpuThreadAxisIsAUserErrorOnTheCpu) {
  // A schedule that binds GPU thread axes does not fit a CPU target: the
  // user's to fix (another schedule, or a GPU target), not a compiler bug.
  Buffer C = flat("C", DataType::Int32(), 16);
  Var i("i");
  PrimFunc bound("bound", {C}, for_loop(i, Expr(0), Expr(16), ForKind::kThreadBinding, st(C, i, i), "threadIdx.x"));
  try {
    emit_llvm_ir(bound, Target::parse("llvm -mcpu=haswell"));
    FAIL() << "expected an error";
  } catch (const InternalError& e) {
    FAIL() << "an internal error: " << e.what();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "loop 'i' of bound is bound to threadIdx.x: the llvm target runs on the CPU and has no GPU "
                           "thread axes");
  }
}

TEST(CodegenIr, IrOutsideTheLoweredContractIsAnInternalError) {
  Buffer C = flat("C", DataType::Int32(), 16);
  Var i("i");
  std::string e = internal_error_of(PrimFunc("vectorized", {C}, loop(i, 16, st(C, i, i), ForKind::kVectorized)));
  EXPECT_TRUE(contains(e, "vectorized loop 'i'")) << e;
  Var free_var("n");
  e = internal_error_of(PrimFunc("unbound", {C}, st(C, free_var, Expr(0))));
  EXPECT_TRUE(contains(e, "unbound variable 'n' in unbound")) << e;
  Buffer Other = flat("Other", DataType::Int32(), 16);
  e = internal_error_of(PrimFunc("stray", {C}, st(Other, Expr(1), Expr(0))));
  EXPECT_TRUE(contains(e, "buffer 'Other'")) << e;
  Stmt blk = block({.name = "b", .body = st(C, Expr(1), Expr(0))});
  e = internal_error_of(PrimFunc("blocky", {C}, block_realize({}, Expr(), blk)));
  EXPECT_TRUE(contains(e, "not lowered")) << e;
}

TEST(CodegenIr, UserErrors) {
  Buffer C = flat("C", DataType::Int32(), 16);
  EXPECT_THROW(emit_llvm_ir(PrimFunc("my-kernel", {C}, st(C, Expr(1), Expr(0))), Target::host()), Error);
  EXPECT_THROW(emit_llvm_ir(PrimFunc("k", {C, C}, st(C, Expr(1), Expr(0))), Target::host()), Error);
  EXPECT_THROW(build_llvm(PrimFunc("k", {C}, st(C, Expr(1), Expr(0))), Target::parse("cuda -arch=sm_90")), Error);
}

TEST(CodegenIr, VerifierFailuresNameTheFunction) {
  llvm::LLVMContext ctx;
  llvm::Module m("broken", ctx);
  auto* fn = llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getInt32Ty(ctx), false),
                                    llvm::Function::ExternalLinkage, "broken", m);
  llvm::BasicBlock::Create(ctx, "entry", fn);  // no terminator
  try {
    llvm_backend::verify_module(m, "my_kernel");
    FAIL() << "verifier accepted a block without terminator";
  } catch (const InternalError& e) {
    EXPECT_TRUE(contains(e.what(), "'my_kernel'")) << e.what();
  }
}

TEST(CodegenIr, APrefetchIsLlvmsPrefetchOfTheElementsAddressIntoTheSecondLevel) {
  Buffer A = flat("A", DataType::Float32(), 256), C = flat("C", DataType::Float32(), 256);
  Var i("i");
  const PrimFunc f("fetch", {A, C}, loop(i, 256, seq({prefetch(A, {i + 64}), st(C, ld(A, i), i)})));
  const std::string ir = emit_llvm_ir(f, host());
  // Read (0), locality 2 (prefetcht1), data (1).
  EXPECT_TRUE(contains(ir, "call void @llvm.prefetch.p0(ptr")) << ir;
  EXPECT_TRUE(contains(ir, "i32 0, i32 2, i32 1)")) << ir;
}

// A scalar loop LLVM's loop vectoriser makes vector code of, after `prefix`
// statements of straight-line integer code (a load, a multiply, a store
// each: no float vector of their own).
PrimFunc scalar_loop_after(int prefix) {
  const int n = 256, m = 8192;
  Buffer A = flat("A", DataType::Float32(), n), C = flat("C", DataType::Float32(), n);
  Buffer B = flat("B", DataType::Int32(), m), D = flat("D", DataType::Int32(), m);
  std::vector<Stmt> body;
  for (int k = 0; k < prefix; ++k) body.push_back(st(D, ld(B, Expr((k * 37) % m)) * Expr(k + 3), Expr(k)));
  Var i("i");
  body.push_back(loop(i, n, st(C, ld(A, i) + f32(1.0f), i)));
  return PrimFunc("scalar_loop", {A, B, C, D}, seq(std::move(body)));
}

TEST(CodegenIr, AFunctionTooLargeForTheLoopVectoriserKeepsItsLoopsScalar) {
  // The loop vectoriser and jump threading take minutes on functions of
  // tens of thousands of instructions (a scalar candidate of 47,792 spent
  // 146 s in them), so above kLargeFunctionInsts they are skipped.
  Target t = Target::parse("llvm -mcpu=skylake-avx512");
  EXPECT_TRUE(contains(emit_llvm_ir(scalar_loop_after(16), t), "x float>"));
  const int large = static_cast<int>(llvm_backend::kLargeFunctionInsts) / 3 + 1000;
  EXPECT_FALSE(contains(emit_llvm_ir(scalar_loop_after(large), t), "x float>"));
}

}  // namespace
}  // namespace kiln
