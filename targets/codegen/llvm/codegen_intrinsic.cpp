// Intrinsic calls. Most map to an LLVM intrinsic (which the back end turns
// into an instruction or a libm call; round ties to even, as the reference
// interpreter does); rsqrt, and sigmoid of float64, are expanded here;
// exp, sigmoid, erf and tanh of float32 are inline polynomials that
// vectorize (vector_math.h);
// the trigonometric functions other than sin and cos, and erf and tanh of
// float64, call libm lane by lane (atanf, erf, ...), which resolves from
// libm in the JIT and in shared libraries alike.
#include <llvm/IR/Intrinsics.h>

#include "targets/codegen/llvm/codegen_impl.h"
#include "targets/codegen/llvm/vector_math.h"

namespace kiln::llvm_backend {

llvm::Value* CodeGen::emit_libm_call(const char* f32_name, const char* f64_name, llvm::Value* x) {
  llvm::Type* elem = x->getType()->getScalarType();
  const char* name = elem->isDoubleTy() ? f64_name : f32_name;
  llvm::FunctionCallee f = module_.getOrInsertFunction(name, llvm::FunctionType::get(elem, {elem}, false));
  if (auto* fn = llvm::dyn_cast<llvm::Function>(f.getCallee())) {
    fn->setDoesNotThrow();
    fn->setDoesNotAccessMemory();
  }
  auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(x->getType());
  if (!vt) return b_.CreateCall(f, {x});
  llvm::Value* out = llvm::PoisonValue::get(vt);
  for (unsigned i = 0; i < vt->getNumElements(); ++i) {
    llvm::Value* lane = b_.CreateCall(f, {b_.CreateExtractElement(x, i)});
    out = b_.CreateInsertElement(out, lane, i);
  }
  return out;
}

llvm::Value* CodeGen::emit_call(const CallNode* op) {
  DataType t = op->dtype;
  std::vector<llvm::Value*> args;
  for (const Expr& a : op->args) args.push_back(emit(a));
  llvm::Value* x = args[0];

  if (!t.is_float()) {
    // Integer arguments: only the intrinsics that make sense for integers.
    switch (op->op) {
      case Intrinsic::abs:
        if (!t.is_int()) return x;
        return b_.CreateBinaryIntrinsic(llvm::Intrinsic::abs, x, b_.getFalse());
      case Intrinsic::floor:
      case Intrinsic::ceil:
      case Intrinsic::round: return x;
      case Intrinsic::fma: return b_.CreateAdd(b_.CreateMul(x, args[1]), args[2]);
      default:
        KILN_ICHECK(false) << intrinsic_name(op->op) << " of integer type " << t.str() << " in " << symbol_;
    }
  }

  llvm::Value* r = nullptr;
  auto one = [&] { return llvm::ConstantFP::get(x->getType(), 1.0); };
  const bool f32 = x->getType()->getScalarType()->isFloatTy();
  auto exp = [&](llvm::Value* v) { return f32 ? emit_exp_f32(b_, v) : b_.CreateUnaryIntrinsic(llvm::Intrinsic::exp, v); };
  switch (op->op) {
    case Intrinsic::exp: r = exp(x); break;
    case Intrinsic::log: r = b_.CreateUnaryIntrinsic(llvm::Intrinsic::log, x); break;
    case Intrinsic::sqrt: r = b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x); break;
    case Intrinsic::rsqrt: r = b_.CreateFDiv(one(), b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x)); break;
    case Intrinsic::tanh: r = f32 ? emit_tanh_f32(b_, x) : emit_libm_call("tanhf", "tanh", x); break;
    case Intrinsic::sigmoid:
      r = f32 ? emit_sigmoid_f32(b_, x) : b_.CreateFDiv(one(), b_.CreateFAdd(one(), exp(b_.CreateFNeg(x))));
      break;
    case Intrinsic::erf: r = f32 ? emit_erf_f32(b_, x) : emit_libm_call("erff", "erf", x); break;
    case Intrinsic::abs: r = b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x); break;
    case Intrinsic::floor: r = b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, x); break;
    case Intrinsic::ceil: r = b_.CreateUnaryIntrinsic(llvm::Intrinsic::ceil, x); break;
    case Intrinsic::round: r = b_.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, x); break;  // ties to even
    case Intrinsic::sin: r = b_.CreateUnaryIntrinsic(llvm::Intrinsic::sin, x); break;
    case Intrinsic::cos: r = b_.CreateUnaryIntrinsic(llvm::Intrinsic::cos, x); break;
    case Intrinsic::tan: r = emit_libm_call("tanf", "tan", x); break;
    case Intrinsic::asin: r = emit_libm_call("asinf", "asin", x); break;
    case Intrinsic::acos: r = emit_libm_call("acosf", "acos", x); break;
    case Intrinsic::atan: r = emit_libm_call("atanf", "atan", x); break;
    case Intrinsic::sinh: r = emit_libm_call("sinhf", "sinh", x); break;
    case Intrinsic::cosh: r = emit_libm_call("coshf", "cosh", x); break;
    case Intrinsic::asinh: r = emit_libm_call("asinhf", "asinh", x); break;
    case Intrinsic::acosh: r = emit_libm_call("acoshf", "acosh", x); break;
    case Intrinsic::atanh: r = emit_libm_call("atanhf", "atanh", x); break;
    case Intrinsic::pow: r = b_.CreateBinaryIntrinsic(llvm::Intrinsic::pow, x, args[1]); break;
    case Intrinsic::fma:
      r = b_.CreateIntrinsic(llvm::Intrinsic::fma, {x->getType()}, {x, args[1], args[2]});
      break;
  }
  KILN_ICHECK(r) << "unhandled intrinsic " << intrinsic_name(op->op) << " in " << symbol_;
  return r;
}

}  // namespace kiln::llvm_backend
