// Tensorized loop nests (tir/tensor_intrin.h): the nest under a loop
// annotated kiln.tensorize becomes the intrinsic's instructions.
//
// The lowered nest is matched against the intrinsic's description once
// more, which gives each operand's buffer and the flat offset of its
// element at the nest's origin; the schedule checked the same match on the
// block form, so a mismatch here is a compiler bug. A target without the
// instructions is the user's error (a record tuned for another CPU).
//
// The int8 dot products, per 32-bit lane i of C, A four unsigned bytes
// broadcast to every lane, B four signed bytes per lane:
//
//   C[i] += A[0] * B[i, 0] + A[1] * B[i, 1] + A[2] * B[i, 2] + A[3] * B[i, 3]
//
//   x86_vnni_u8s8s32_16x4   vpdpbusd zmm (llvm.x86.avx512.vpdpbusd.512)
//   x86_vnni_u8s8s32_8x4    vpdpbusd ymm, EVEX or VEX as the target has it
//   x86_avx2_u8s7s32_8x4    vpmaddubsw sums pairs into int16 (weights of 7
//                           bits: no saturation), vpmaddwd by ones into int32
//   x86_avx2_u8s8s32_8x4    bytes widened to int16, vpmaddwd sums pairs
//                           into int32 (exact; vpmaddubsw would saturate),
//                           then the pairs of each lane added
//   arm_neon_usdot_u8s8s32_4x4  usdot v.4s (llvm.aarch64.neon.usdot)
//   arm_neon_udot_u8s8s32_4x4   udot of A by B xor 0x80 (B as b + 128), less
//                               128 times udot of A by ones
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsAArch64.h>
#include <llvm/IR/IntrinsicsX86.h>

#include "core/error.h"
#include "targets/codegen/llvm/codegen_impl.h"
#include "tir/tensor_intrin.h"

namespace kiln::llvm_backend {
void CodeGen::emit_tensorized(const Stmt& loop) {
  const auto* op = loop.as<ForNode>();
  const auto* name = op->annotations.at(kTensorizeAnn).as<StringImmNode>();
  KILN_ICHECK(name) << "loop '" << op->loop_var->name << "' in " << symbol_ << " names no tensor intrinsic";
  const TensorIntrin* t = find_tensor_intrin(name->value);
  if (!t)
    KILN_USER_ERROR() << symbol_ << ": no tensor intrinsic '" << name->value
                      << "' (known: " << tensor_intrin_names() << ")";
  if (!available_with(*t, [&](const std::string& f) { return target_.has_feature(f); }))
    KILN_USER_ERROR() << symbol_ << ": tensor intrinsic " << t->name << " needs " << feature_text(*t)
                      << ", which the target " << target_.str() << " lacks";
  std::variant<TensorIntrinMatch, std::string> m = match_tensor_intrin(loop, *t);
  const auto* why = std::get_if<std::string>(&m);
  KILN_ICHECK(!why) << "tensorized loop '" << op->loop_var->name << "' in " << symbol_ << " is no longer "
                    << t->name << ": " << *why;
  const std::vector<TensorOperand>& ops = std::get<TensorIntrinMatch>(m).operands;
  // A partial tile's guard: the whole nest or nothing.
  llvm::BasicBlock* done = nullptr;
  if (const Expr& guard = std::get<TensorIntrinMatch>(m).guard; guard.defined()) {
    auto* then = llvm::BasicBlock::Create(ctx_, "tensorized", fs_.fn);
    done = llvm::BasicBlock::Create(ctx_, "tensorized.end", fs_.fn);
    b_.CreateCondBr(emit(guard), then, done);
    b_.SetInsertPoint(then);
  }
  auto address = [&](const TensorOperand& o) {
    return b_.CreateInBoundsGEP(mem_type(o.buffer->dtype), buffer_ptr(o.buffer), emit_index(o.offset));
  };
  // A, B, C: the descriptions' parameters (tir/tensor_intrin.cpp).
  llvm::Value* a_ptr = address(ops[0]);
  llvm::Value* b_ptr = address(ops[1]);
  llvm::Value* c_ptr = address(ops[2]);
  const unsigned lanes = static_cast<unsigned>(*as_const_int(t->desc.params()[2].shape()[0]));
  llvm::Type* i32 = b_.getInt32Ty();
  auto* acc_type = llvm::FixedVectorType::get(i32, lanes);
  llvm::Value* acc = b_.CreateAlignedLoad(acc_type, c_ptr, llvm::Align(4), "acc");
  // A's four bytes as one int32, in every lane; B's rows of four bytes.
  llvm::Value* a = b_.CreateVectorSplat(lanes, b_.CreateAlignedLoad(i32, a_ptr, llvm::Align(1), "a"));
  llvm::Value* b = b_.CreateAlignedLoad(acc_type, b_ptr, llvm::Align(1), "b");
  llvm::Value* r = nullptr;
  if (t->name == "x86_vnni_u8s8s32_16x4") {
    r = b_.CreateIntrinsic(llvm::Intrinsic::x86_avx512_vpdpbusd_512, {}, {acc, a, b});
  } else if (t->name == "x86_vnni_u8s8s32_8x4") {
    r = b_.CreateIntrinsic(llvm::Intrinsic::x86_avx512_vpdpbusd_256, {}, {acc, a, b});
  } else if (t->name == "x86_avx2_u8s7s32_8x4") {
    // Pairs of u8 x s8 products summed into int16 (exact for weights of 7
    // bits: the block's kSmallWeightsAnn), then pairs of those into int32.
    auto* bytes = llvm::FixedVectorType::get(b_.getInt8Ty(), 4 * lanes);
    llvm::Value* pairs = b_.CreateIntrinsic(llvm::Intrinsic::x86_avx2_pmadd_ub_sw, {},
                                            {b_.CreateBitCast(a, bytes), b_.CreateBitCast(b, bytes)});
    llvm::Value* ones = llvm::ConstantVector::getSplat(llvm::ElementCount::getFixed(2 * lanes), b_.getInt16(1));
    r = b_.CreateAdd(acc, b_.CreateIntrinsic(llvm::Intrinsic::x86_avx2_pmadd_wd, {}, {pairs, ones}));
  } else if (t->name == "x86_avx2_u8s8s32_8x4") {
    // Bytes to int16: A zero-extended, B sign-extended; each half of 16
    // holds four lanes' four bytes, which vpmaddwd turns into two int32
    // sums per lane.
    auto* bytes = llvm::FixedVectorType::get(b_.getInt8Ty(), 4 * lanes);
    auto* words = llvm::FixedVectorType::get(b_.getInt16Ty(), 4 * lanes);
    llvm::Value* aw = b_.CreateZExt(b_.CreateBitCast(a, bytes), words);
    llvm::Value* bw = b_.CreateSExt(b_.CreateBitCast(b, bytes), words);
    std::vector<int> lo, hi, even, odd;
    for (int i = 0; i < 16; ++i) lo.push_back(i), hi.push_back(16 + i);
    for (int i = 0; i < static_cast<int>(lanes); ++i) even.push_back(2 * i), odd.push_back(2 * i + 1);
    auto madd = [&](const std::vector<int>& half) {
      return b_.CreateIntrinsic(llvm::Intrinsic::x86_avx2_pmadd_wd, {},
                                {b_.CreateShuffleVector(aw, half), b_.CreateShuffleVector(bw, half)});
    };
    llvm::Value* pairs = b_.CreateShuffleVector(madd(lo), madd(hi), [&] {
      std::vector<int> all(2 * lanes);
      for (int i = 0; i < static_cast<int>(2 * lanes); ++i) all[static_cast<size_t>(i)] = i;
      return all;
    }());
    r = b_.CreateAdd(acc, b_.CreateAdd(b_.CreateShuffleVector(pairs, even), b_.CreateShuffleVector(pairs, odd)));
  } else if (t->name == "arm_neon_usdot_u8s8s32_4x4") {
    // Unsigned bytes first, signed second, as the instruction takes them.
    auto* bytes = llvm::FixedVectorType::get(b_.getInt8Ty(), 4 * lanes);
    r = b_.CreateIntrinsic(llvm::Intrinsic::aarch64_neon_usdot, {acc_type, bytes},
                           {acc, b_.CreateBitCast(a, bytes), b_.CreateBitCast(b, bytes)});
  } else if (t->name == "arm_neon_udot_u8s8s32_4x4") {
    auto* bytes = llvm::FixedVectorType::get(b_.getInt8Ty(), 4 * lanes);
    llvm::Value* au = b_.CreateBitCast(a, bytes);
    llvm::Value* bu = b_.CreateXor(b_.CreateBitCast(b, bytes), llvm::ConstantInt::get(bytes, 0x80));
    llvm::Value* ones = llvm::ConstantInt::get(bytes, 1);
    llvm::Value* shifted = b_.CreateIntrinsic(llvm::Intrinsic::aarch64_neon_udot, {acc_type, bytes}, {acc, au, bu});
    llvm::Value* sum_a = b_.CreateIntrinsic(llvm::Intrinsic::aarch64_neon_udot, {acc_type, bytes},
                                            {llvm::Constant::getNullValue(acc_type), au, ones});
    r = b_.CreateSub(shifted, b_.CreateShl(sum_a, llvm::ConstantInt::get(acc_type, 7)));
  } else {
    KILN_ICHECK(false) << "no LLVM implementation of tensor intrinsic " << t->name;
  }
  b_.CreateAlignedStore(r, c_ptr, llvm::Align(4));
  if (done) {
    b_.CreateBr(done);
    b_.SetInsertPoint(done);
  }
}

}  // namespace kiln::llvm_backend
