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

// From it on erf is 1 in float (1 - erf(3.92) is 3.0e-8, under half of
// float's last place below 1).
constexpr double kErfOne = 3.92;
// From it on tanh is 1 in float (1 - tanh(9.02) is 2.9e-8).
constexpr double kTanhOne = 9.02;

llvm::Value* abs(llvm::IRBuilder<>& b, llvm::Value* x) { return b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x); }

// v held at most at `hi`; a NaN lane stays NaN (the comparison is false
// for it), which minnum would not keep.
llvm::Value* at_most(llvm::IRBuilder<>& b, llvm::Value* v, double hi) {
  return b.CreateSelect(b.CreateFCmpOGT(v, c(v, hi)), c(v, hi), v);
}

llvm::Value* copysign(llvm::IRBuilder<>& b, llvm::Value* mag, llvm::Value* sign) {
  return b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, mag, sign);
}

// An odd function that is 1 in float from `one` on, as
// a P(a^2) / Q(a^2) for a = |x| held at `one` (so that a^2 stays finite,
// and a NaN stays NaN), 1 from `one` on, the sign of x put back.
llvm::Value* odd_rational(llvm::IRBuilder<>& b, llvm::Value* x, double one, const std::vector<double>& p,
                          const std::vector<double>& q) {
  llvm::Value* ax = abs(b, x);
  llvm::Value* a = at_most(b, ax, one);
  llvm::Value* t = b.CreateFMul(a, a);
  llvm::Value* y = b.CreateFDiv(b.CreateFMul(a, horner(b, t, p)), horner(b, t, q));
  y = b.CreateSelect(b.CreateFCmpOGE(ax, c(x, one)), c(x, 1.0), y);
  return copysign(b, y, x);
}

// e^r on [-ln 2 / 2, ln 2 / 2] with e^0 = 1, least-squares fits weighted
// toward relative error (scripts/fit_exp.py), their worst relative error
// evaluated in float as the kernel does. Degree 6, 9.6e-8 (2.2e-9 in exact
// arithmetic, under float's rounding), is exp's: Taylor needs degree 7
// for as little. Degree 5, 1.7e-7, is sigmoid's: 1 / (1 + e) carries at
// most e's relative error, and one multiply-add fewer counts there (SiLU,
// after every expand and depthwise layer of EfficientNet, is bound by its
// count of vector instructions).
const std::vector<double> kExpDegree6 = {1.0,
                                         1.0000000360960044,
                                         0.49999995350638315,
                                         0.1666642092745632,
                                         0.04166772434852645,
                                         0.008374765469363207,
                                         0.0013859293477952814};
const std::vector<double> kExpDegree5 = {1.0,
                                         0.9999995316248774,
                                         0.49999140958962124,
                                         0.16668114343606327,
                                         0.041898742099185995,
                                         0.008261531748656941};

// exp(sign * x), sign 1 or -1, for x already clamped (not NaN, and n
// below within what the float exponent holds): n = round(sign * x / ln 2),
// r = sign * x - n ln 2 with ln 2 in a part exact in float and the rest
// (so that n * hi loses nothing), e^r by `poly`, times 2^n built in the
// exponent bits. With `split_scale`, 2^n as 2^h * 2^(n-h), h = floor(n /
// 2), for n up to 128 (one past what the exponent bits hold), each half
// normal; else n must be within [-126, 127].
//
// The float adder rounds: sign * x / ln 2 + (1.5 * 2^23 + 127) is an
// integer whose low mantissa bits hold n + 127, so those bits shifted left
// by 23 are 2^n, and the constant taken back off leaves n exactly. Against
// floor(x / ln 2 + 0.5), a conversion to integer and the bias added there,
// that is three vector instructions fewer of a sigmoid's twenty-two; the
// sign in the constants saves the negation of exp(-x).
llvm::Value* exp_in_range(llvm::IRBuilder<>& b, llvm::Value* xc, bool split_scale, const std::vector<double>& poly,
                          double sign = 1.0) {
  constexpr double kShifter = 12582912.0 + 127.0;  // 1.5 * 2^23, and the exponent's bias
  llvm::Value* shifted = b.CreateFAdd(b.CreateFMul(xc, c(xc, sign * 1.4426950408889634)), c(xc, kShifter));
  llvm::Value* n = b.CreateFSub(shifted, c(xc, kShifter));
  constexpr double kLn2Hi = 0.693359375, kLn2Lo = 0.6931471805599453 - kLn2Hi;
  llvm::Value* signed_x = sign < 0 ? b.CreateFNeg(xc) : xc;
  llvm::Value* r = b.CreateFSub(b.CreateFSub(signed_x, b.CreateFMul(n, c(xc, kLn2Hi))), b.CreateFMul(n, c(xc, kLn2Lo)));
  llvm::Value* er = horner(b, r, poly);
  llvm::Type* int_type = b.getInt32Ty();
  if (auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(xc->getType()))
    int_type = llvm::FixedVectorType::get(int_type, vt->getNumElements());
  auto as_float = [&](llvm::Value* biased) { return b.CreateBitCast(b.CreateShl(biased, 23), xc->getType()); };
  llvm::Value* biased = b.CreateBitCast(shifted, int_type);  // n + 127 in the low bits, and the shifter's above them
  if (!split_scale) return b.CreateFMul(er, as_float(biased));
  // 2^h * 2^(n-h): the biased exponents h + 127 and n - h + 127.
  llvm::Value* bias = llvm::ConstantInt::get(int_type, 127);
  llvm::Value* ni = b.CreateSub(b.CreateAnd(biased, llvm::ConstantInt::get(int_type, 0x3ff)), bias);
  llvm::Value* h = b.CreateAShr(ni, 1);
  return b.CreateFMul(b.CreateFMul(er, as_float(b.CreateAdd(h, bias))), as_float(b.CreateAdd(b.CreateSub(ni, h), bias)));
}

// 1 + exp(-x) with x held within [-87, 87] (sigmoid's and SiLU's
// denominator; emit_sigmoid_f32 says why the bound). A UGT comparison is
// true for NaN, whose lanes take the bound; x is held, not -x: the sign
// goes into the reduction's constants, one negation fewer.
llvm::Value* one_plus_exp_minus(llvm::IRBuilder<>& b, llvm::Value* x) {
  constexpr double kBound = 87.0;
  llvm::Value* held = b.CreateSelect(b.CreateFCmpUGT(x, c(x, kBound)), c(x, kBound), x);
  held = b.CreateSelect(b.CreateFCmpOLT(held, c(x, -kBound)), c(x, -kBound), held);
  return b.CreateFAdd(c(x, 1.0), exp_in_range(b, held, /*split_scale=*/false, kExpDegree5, /*sign=*/-1.0));
}

}  // namespace

llvm::Value* emit_exp_f32(llvm::IRBuilder<>& b, llvm::Value* x) {
  // Below kLo, ln of the smallest normal float, exp(x) is flushed to 0:
  // a subnormal result (or one formed on the way) costs a microcode assist
  // per instruction on x86 without flush-to-zero, a hundred cycles or more,
  // and softmax's masked lanes (x - max near -1e38) would pay it on every
  // vector. Above kHi exp(x) is over FLT_MAX.
  constexpr double kLo = -87.33654475055310898657, kHi = 88.72283935546875;
  // The reduction works on x clamped into range, NaN made 0 (a NaN would
  // make the integer conversion poison); the selects at the end restore
  // what those lanes are.
  llvm::Value* is_nan = b.CreateFCmpUNO(x, x);
  llvm::Value* xc = at_most(b, x, kHi);
  xc = b.CreateSelect(b.CreateFCmpOLT(xc, c(x, kLo)), c(x, 0), xc);
  xc = b.CreateSelect(is_nan, c(x, 0), xc);
  llvm::Value* y = exp_in_range(b, xc, /*split_scale=*/true, kExpDegree6);
  y = b.CreateSelect(b.CreateFCmpOGT(x, c(x, kHi)), c(x, std::numeric_limits<double>::infinity()), y);
  y = b.CreateSelect(b.CreateFCmpOLT(x, c(x, kLo)), c(x, 0.0), y);
  return b.CreateSelect(is_nan, x, y);
}

llvm::Value* emit_sigmoid_f32(llvm::IRBuilder<>& b, llvm::Value* x) {
  // 1 / (1 + exp(-x)) with -x held within [-87, 87]: beyond, 1 + exp(-x) is
  // 1 in float on one side, and on the other the quotient is at most
  // 1.7e-38, which this keeps normal (the smallest normal float is
  // 1.18e-38; a subnormal costs a microcode assist, emit_exp_f32). So
  // the exponential needs none of exp's edges: one clamp each way, 2^n
  // in one step (n within [-126, 126]), NaN put back at the end.
  llvm::Value* y = b.CreateFDiv(c(x, 1.0), one_plus_exp_minus(b, x));
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, y);
}

llvm::Value* emit_silu_f32(llvm::IRBuilder<>& b, llvm::Value* x) {
  // x / (1 + exp(-x)): a NaN x is NaN through the quotient; +-inf stay
  // +-inf as x * sigmoid(x) leaves them.
  return b.CreateFDiv(x, one_plus_exp_minus(b, x));
}

llvm::Value* emit_erf_f32(llvm::IRBuilder<>& b, llvm::Value* x) {
  // erf(a) = a P(a^2) / Q(a^2) for a = |x| up to kErfOne, the sign put
  // back after; the fit and its error: scripts/fit_rational.py. One division
  // and eleven multiply-adds, where the Taylor series and Abramowitz and
  // Stegun's form with its exp, both computed for every lane and one
  // selected, made BERT's GELU on [128, 3072] take 0.33 ms against 0.165
  // now (2 threads, docs/targets.md).
  static const std::vector<double> kP = {1.128379225730896,     0.1851356029510498,     0.054243382066488266,
                                         0.003838552860543132,  0.00037673136102966964, 4.608485596691025e-06,
                                         -1.279593764280662e-08};
  static const std::vector<double> kQ = {1.0, 0.4974055588245392, 0.11387331783771515, 0.01542980968952179,
                                         0.0013014738215133548, 6.239210051717237e-05};
  return odd_rational(b, x, kErfOne, kP, kQ);
}

llvm::Value* emit_tanh_f32(llvm::IRBuilder<>& b, llvm::Value* x) {
  // As erf: a P(a^2) / Q(a^2) for a = |x| up to kTanhOne
  // (scripts/fit_rational.py), 1 from there, the sign put back; the
  // Taylor series below 0.3 and 1 - 2 / (exp(2|x|) + 1) above, both for
  // every lane, made GPT-2's GELU on [128, 3072] take 0.32-0.34 ms
  // against 0.19 now.
  static const std::vector<double> kP = {1.0,
                                         -0.15887373685836792,
                                         0.0314229354262352,
                                         0.00794998835772276,
                                         0.0002256583102280274,
                                         1.3361870969674783e-06,
                                         8.440933507714021e-10};
  static const std::vector<double> kQ = {1.0,
                                         0.17445942759513855,
                                         -0.04375685378909111,
                                         0.02407095953822136,
                                         0.001629592152312398,
                                         2.136965667887125e-05,
                                         4.990302571172833e-08};
  return odd_rational(b, x, kTanhOne, kP, kQ);
}

}  // namespace kiln::llvm_backend
