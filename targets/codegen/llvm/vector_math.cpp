#include "targets/codegen/llvm/vector_math.h"

#include <cmath>
#include <vector>
#include <limits>

namespace kiln::llvm_backend {
namespace {

llvm::Value* c(llvm::Value* like, double v) { return llvm::ConstantFP::get(like->getType(), v); }

// coefficients[0] + y * (coefficients[1] + y * (...)), by Horner's rule.
llvm::Value* horner(llvm::IRBuilder<>& b, llvm::Value* y, const std::vector<double>& coefficients) {
  auto k = coefficients.rbegin();
  llvm::Value* acc = c(y, *k);
  for (++k; k != coefficients.rend(); ++k) acc = b.CreateFAdd(b.CreateFMul(acc, y), c(y, *k));
  return acc;
}

// erf's switch from its Taylor series to Abramowitz and Stegun's form.
constexpr double kErfSmall = 1.0;

llvm::Value* abs(llvm::IRBuilder<>& b, llvm::Value* x) { return b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x); }

llvm::Value* copysign(llvm::IRBuilder<>& b, llvm::Value* mag, llvm::Value* sign) {
  return b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, mag, sign);
}

}  // namespace

llvm::Value* emit_exp_f32(llvm::IRBuilder<>& b, llvm::Value* x) {
  // Below kLo exp(x) is under half the smallest subnormal float; above kHi
  // it is over FLT_MAX.
  constexpr double kLo = -104.0, kHi = 88.72283935546875;
  // The reduction works on x clamped into range, NaN made 0 (a NaN would
  // make the integer conversion poison); the selects at the end restore
  // what those lanes are.
  llvm::Value* is_nan = b.CreateFCmpUNO(x, x);
  llvm::Value* xc = b.CreateSelect(b.CreateFCmpOGT(x, c(x, kHi)), c(x, kHi), x);
  xc = b.CreateSelect(b.CreateFCmpOLT(xc, c(x, kLo)), c(x, kLo), xc);
  xc = b.CreateSelect(is_nan, c(x, 0), xc);
  // n = round(x / ln 2); r = x - n ln 2, ln 2 in a part exact in float
  // and the rest, so that n * hi loses nothing.
  llvm::Value* n = b.CreateUnaryIntrinsic(llvm::Intrinsic::floor,
                                          b.CreateFAdd(b.CreateFMul(xc, c(x, 1.4426950408889634)), c(x, 0.5)));
  constexpr double kLn2Hi = 0.693359375, kLn2Lo = 0.6931471805599453 - kLn2Hi;
  llvm::Value* r = b.CreateFSub(b.CreateFSub(xc, b.CreateFMul(n, c(x, kLn2Hi))), b.CreateFMul(n, c(x, kLn2Lo)));
  llvm::Value* er = horner(b, r, {1.0, 1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040});
  // 2^n as 2^h * 2^(n-h), h = floor(n / 2): n runs from -150 to 128,
  // past what one float's exponent bits hold at either end, and each half
  // stays in [-75, 64], normal; their product rounds to a subnormal where
  // exp(x) is one.
  llvm::Type* int_type = b.getInt32Ty();
  if (auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(x->getType()))
    int_type = llvm::FixedVectorType::get(int_type, vt->getNumElements());
  llvm::Value* ni = b.CreateFPToSI(n, int_type);
  llvm::Value* h = b.CreateAShr(ni, 1);
  auto pow2 = [&](llvm::Value* e) {
    return b.CreateBitCast(b.CreateShl(b.CreateAdd(e, llvm::ConstantInt::get(int_type, 127)), 23), x->getType());
  };
  llvm::Value* y = b.CreateFMul(b.CreateFMul(er, pow2(h)), pow2(b.CreateSub(ni, h)));
  y = b.CreateSelect(b.CreateFCmpOGT(x, c(x, kHi)), c(x, std::numeric_limits<double>::infinity()), y);
  y = b.CreateSelect(b.CreateFCmpOLT(x, c(x, kLo)), c(x, 0.0), y);
  return b.CreateSelect(is_nan, x, y);
}

llvm::Value* emit_erf_f32(llvm::IRBuilder<>& b, llvm::Value* x) {
  llvm::Value* ax = abs(b, x);
  llvm::Value* x2 = b.CreateFMul(x, x);
  // Below kSmall: the Taylor series, 2/sqrt(pi) * sum (-1)^k x^(2k+1) / (k! (2k+1)),
  // to k = 11 (the next term is under 1e-9 of the sum).
  std::vector<double> taylor;
  double fact = 1;
  for (int k = 0; k <= 11; ++k) {
    fact *= k > 0 ? k : 1;
    taylor.push_back((k % 2 ? -1 : 1) * 2 / std::sqrt(M_PI) / (fact * (2 * k + 1)));
  }
  llvm::Value* small = b.CreateFMul(x, horner(b, x2, taylor));
  // Elsewhere: Abramowitz and Stegun 7.1.26.
  llvm::Value* t = b.CreateFDiv(c(x, 1.0), b.CreateFAdd(c(x, 1.0), b.CreateFMul(ax, c(x, 0.3275911))));
  llvm::Value* p =
      b.CreateFMul(t, horner(b, t, {0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429}));
  llvm::Value* large = b.CreateFSub(c(x, 1.0), b.CreateFMul(p, emit_exp_f32(b, b.CreateFNeg(x2))));
  return b.CreateSelect(b.CreateFCmpOLT(ax, c(x, kErfSmall)), small, copysign(b, large, x));
}

llvm::Value* emit_tanh_f32(llvm::IRBuilder<>& b, llvm::Value* x) {
  llvm::Value* ax = abs(b, x);
  // Near 0: the Taylor series, where 1 - 2 / (e^2x + 1) would cancel.
  llvm::Value* small = b.CreateFMul(
      x, horner(b, b.CreateFMul(x, x),
                {1.0, -1.0 / 3, 2.0 / 15, -17.0 / 315, 62.0 / 2835, -1382.0 / 155925}));
  llvm::Value* e = emit_exp_f32(b, b.CreateFMul(ax, c(x, 2.0)));
  llvm::Value* large = b.CreateFSub(c(x, 1.0), b.CreateFDiv(c(x, 2.0), b.CreateFAdd(e, c(x, 1.0))));
  return b.CreateSelect(b.CreateFCmpOLT(ax, c(x, 0.3)), small, copysign(b, large, x));
}

}  // namespace kiln::llvm_backend
