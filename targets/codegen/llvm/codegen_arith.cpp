// Arithmetic, comparisons and casts.
//
// Integer arithmetic wraps at the declared width, as the reference
// interpreter's does, with one exception: signed int32/int64 Add/Sub/Mul
// inside a buffer index are emitted `nsw`. An index that overflows is out of
// bounds anyway, and the flag lets LLVM widen and hoist address arithmetic.
// FloorDiv/FloorMod round toward negative infinity for every sign, with
// shift/mask fast paths for positive power-of-two constant divisors.
#include "core/structural.h"
#include "targets/codegen/llvm/codegen_impl.h"
#include "targets/codegen/llvm/vector_math.h"

#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsWebAssembly.h>

namespace kiln::llvm_backend {
namespace {

bool is_power_of_two(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

int log2_exact(int64_t v) {
  int n = 0;
  while ((int64_t{1} << n) != v) ++n;
  return n;
}

}  // namespace

// LLVM lowers a contractable multiply and add of WebAssembly vectors to two
// instructions; relaxed SIMD's madd may fuse them (V8 emits an FMA where
// the CPU has one, which -fp-contract=on allows), so it is asked for
// directly. Only whole f32x4 and f64x2 vectors: the intrinsic's types.
llvm::Value* CodeGen::emit_relaxed_madd(const Expr& e) {
  if (e.kind() != ExprKind::Add) return nullptr;
  auto [pa, pb] = binary_operands(e);
  const DataType t = pa->dtype();
  if (!t.is_float() || t.lanes() * t.bits() != 128 || (t.bits() != 32 && t.bits() != 64)) return nullptr;
  for (auto [mul, addend] : {std::pair{pa, pb}, std::pair{pb, pa}}) {
    if (mul->kind() != ExprKind::Mul) continue;
    auto [x, y] = binary_operands(*mul);
    llvm::Value* vx = emit(*x);
    llvm::Value* vy = emit(*y);
    llvm::Value* vz = emit(*addend);
    return b_.CreateIntrinsic(llvm::Intrinsic::wasm_relaxed_madd, {vx->getType()}, {vx, vy, vz});
  }
  return nullptr;
}

// SiLU (graph/recognize.h) lowers to x * sigmoid(x), the two x's
// structurally equal. As x / (1 + exp(-x)) it needs neither the multiply
// nor sigmoid's NaN select (a NaN x makes the quotient NaN by itself):
// three of a sigmoid's nineteen vector instructions, after every expand
// and depthwise convolution of EfficientNet (vector_math.h).
llvm::Value* CodeGen::emit_silu(const Expr& e) {
  if (e.kind() != ExprKind::Mul) return nullptr;
  auto [pa, pb] = binary_operands(e);
  const DataType t = pa->dtype();
  if (!t.is_float() || t.bits() != 32) return nullptr;
  for (auto [x, s] : {std::pair{pa, pb}, std::pair{pb, pa}}) {
    if (s->kind() != ExprKind::Call) continue;
    const CallNode* call = s->as<CallNode>();
    if (call->op != Intrinsic::sigmoid || !structural_equal(call->args[0], *x)) continue;
    return emit_silu_f32(b_, emit(*x));
  }
  return nullptr;
}

llvm::Value* CodeGen::emit_binary(const Expr& e) {
  if (relaxed_madd_)
    if (llvm::Value* fused = emit_relaxed_madd(e)) return fused;
  if (llvm::Value* silu = emit_silu(e)) return silu;
  auto [pa, pb] = binary_operands(e);
  KILN_ICHECK(pa && !is_comparison(e.kind()))
      << "not a binary expression: " << expr_kind_name(e.kind()) << " in " << symbol_;
  DataType t = pa->dtype();
  llvm::Value* a = emit(*pa);
  llvm::Value* b = emit(*pb);
  const bool is_float = t.is_float();
  const bool is_signed = t.is_int();
  const bool nsw = in_index_ && t.is_int() && t.bits() >= 32;
  switch (e.kind()) {
    case ExprKind::Add: return is_float ? b_.CreateFAdd(a, b) : b_.CreateAdd(a, b, "", false, nsw);
    case ExprKind::Sub: return is_float ? b_.CreateFSub(a, b) : b_.CreateSub(a, b, "", false, nsw);
    case ExprKind::Mul: return is_float ? b_.CreateFMul(a, b) : b_.CreateMul(a, b, "", false, nsw);
    case ExprKind::Div:
      if (is_float) return b_.CreateFDiv(a, b);
      return is_signed ? b_.CreateSDiv(a, b) : b_.CreateUDiv(a, b);
    case ExprKind::Mod:
      if (is_float) return b_.CreateFRem(a, b);
      return is_signed ? b_.CreateSRem(a, b) : b_.CreateURem(a, b);
    case ExprKind::FloorDiv: return emit_floordiv(a, b, *pb, t);
    case ExprKind::FloorMod: return emit_floormod(a, b, *pb, t);
    case ExprKind::Min:
      if (is_float) return b_.CreateSelect(b_.CreateFCmpOLT(a, b), a, b);
      return b_.CreateBinaryIntrinsic(is_signed ? llvm::Intrinsic::smin : llvm::Intrinsic::umin, a, b);
    case ExprKind::Max:
      if (is_float) return b_.CreateSelect(b_.CreateFCmpOGT(a, b), a, b);
      return b_.CreateBinaryIntrinsic(is_signed ? llvm::Intrinsic::smax : llvm::Intrinsic::umax, a, b);
    case ExprKind::And: return b_.CreateAnd(a, b);
    case ExprKind::Or: return b_.CreateOr(a, b);
    default: break;
  }
  KILN_ICHECK(false) << "unhandled binary expression " << expr_kind_name(e.kind()) << " in " << symbol_;
  return nullptr;
}

llvm::Value* CodeGen::emit_compare(const Expr& e) {
  auto [pa, pb] = binary_operands(e);
  KILN_ICHECK(pa && is_comparison(e.kind()))
      << "not a comparison: " << expr_kind_name(e.kind()) << " in " << symbol_;
  DataType t = pa->dtype();
  llvm::Value* a = emit(*pa);
  llvm::Value* b = emit(*pb);
  using P = llvm::CmpInst::Predicate;
  P p = P::BAD_ICMP_PREDICATE;
  if (t.is_float()) {
    switch (e.kind()) {
      case ExprKind::EQ: p = P::FCMP_OEQ; break;
      case ExprKind::NE: p = P::FCMP_UNE; break;
      case ExprKind::LT: p = P::FCMP_OLT; break;
      case ExprKind::LE: p = P::FCMP_OLE; break;
      case ExprKind::GT: p = P::FCMP_OGT; break;
      case ExprKind::GE: p = P::FCMP_OGE; break;
      default: break;
    }
    return b_.CreateFCmp(p, a, b);
  }
  const bool s = t.is_int();
  switch (e.kind()) {
    case ExprKind::EQ: p = P::ICMP_EQ; break;
    case ExprKind::NE: p = P::ICMP_NE; break;
    case ExprKind::LT: p = s ? P::ICMP_SLT : P::ICMP_ULT; break;
    case ExprKind::LE: p = s ? P::ICMP_SLE : P::ICMP_ULE; break;
    case ExprKind::GT: p = s ? P::ICMP_SGT : P::ICMP_UGT; break;
    case ExprKind::GE: p = s ? P::ICMP_SGE : P::ICMP_UGE; break;
    default: break;
  }
  return b_.CreateICmp(p, a, b);
}

llvm::Value* CodeGen::emit_floordiv(llvm::Value* a, llvm::Value* b, const Expr& divisor, DataType t) {
  if (t.is_float()) {
    llvm::Value* q = b_.CreateFDiv(a, b);
    return b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, q);
  }
  if (!t.is_int()) return b_.CreateUDiv(a, b);
  std::optional<int64_t> c = const_int(divisor);
  if (c && is_power_of_two(*c)) {
    if (*c == 1) return a;
    return b_.CreateAShr(a, llvm::ConstantInt::get(a->getType(), log2_exact(*c)));
  }
  llvm::Value* q = b_.CreateSDiv(a, b);
  llvm::Value* r = b_.CreateSRem(a, b);
  llvm::Value* zero = llvm::Constant::getNullValue(a->getType());
  llvm::Value* adjust;
  if (c && *c > 0) {
    adjust = b_.CreateICmpSLT(r, zero);
  } else {
    // The remainder is non-zero and its sign differs from the divisor's.
    llvm::Value* signs_differ = b_.CreateICmpSLT(b_.CreateXor(r, b), zero);
    adjust = b_.CreateAnd(b_.CreateICmpNE(r, zero), signs_differ);
  }
  return b_.CreateSub(q, b_.CreateZExt(adjust, a->getType()));
}

llvm::Value* CodeGen::emit_floormod(llvm::Value* a, llvm::Value* b, const Expr& divisor, DataType t) {
  if (t.is_float()) {
    llvm::Value* q = b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, b_.CreateFDiv(a, b));
    return b_.CreateFSub(a, b_.CreateFMul(q, b));
  }
  if (!t.is_int()) return b_.CreateURem(a, b);
  std::optional<int64_t> c = const_int(divisor);
  if (c && is_power_of_two(*c)) return b_.CreateAnd(a, llvm::ConstantInt::get(a->getType(), *c - 1));
  llvm::Value* r = b_.CreateSRem(a, b);
  llvm::Value* zero = llvm::Constant::getNullValue(a->getType());
  llvm::Value* adjust;
  if (c && *c > 0) {
    adjust = b_.CreateICmpSLT(r, zero);
  } else {
    llvm::Value* signs_differ = b_.CreateICmpSLT(b_.CreateXor(r, b), zero);
    adjust = b_.CreateAnd(b_.CreateICmpNE(r, zero), signs_differ);
  }
  return b_.CreateAdd(r, b_.CreateSelect(adjust, b, zero));
}

llvm::Value* CodeGen::emit_cast(DataType to, DataType from, llvm::Value* v) {
  KILN_ICHECK(to.lanes() == from.lanes()) << "cast from " << from.str() << " to " << to.str() << " in " << symbol_;
  if (to == from) return v;
  llvm::Type* dst = reg_type(to);
  if (to.is_bool()) {
    if (from.is_float()) return b_.CreateFCmpUNE(v, llvm::Constant::getNullValue(v->getType()));
    return b_.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
  }
  if (to.is_integral()) {
    if (from.is_float()) return to.is_int() ? b_.CreateFPToSI(v, dst) : b_.CreateFPToUI(v, dst);
    return b_.CreateIntCast(v, dst, from.is_int());
  }
  KILN_ICHECK(to.is_float()) << "cast to " << to.str() << " in " << symbol_;
  llvm::Value* r;
  if (from.is_float()) {
    r = b_.CreateFPCast(v, dst);
  } else {
    r = from.is_int() ? b_.CreateSIToFP(v, dst) : b_.CreateUIToFP(v, dst);
  }
  return round_to_storage_precision(r, to);
}

}  // namespace kiln::llvm_backend
