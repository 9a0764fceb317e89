// exp, sigmoid, erf and tanh of float32 values, scalars or vectors, as inline
// arithmetic: a polynomial after a range reduction, so that they
// vectorize. LLVM has no vector form of these without a vector math
// library, and lowers llvm.exp on a vector to one expf call per lane (erf
// and tanh have no intrinsic at all); in softmax, attention and GELU that
// made the exponentials cost more than the matrix products around them.
//
// Accuracy, against libm in double, the largest error relative to the
// result measured over 20,000 inputs each (tests/targets/llvm/
// vector_math_test.cpp asserts these with some margin):
//   exp   range reduction x = n ln2 + r, |r| <= ln2 / 2, ln2 in two parts
//         (Cody and Waite), then a least-squares polynomial of degree
//         6 (scripts/fit_exp.py; Taylor needs 7), times 2^n built in
//         the exponent bits: 9.5e-8 (1.6 ulp); 0 below -87.34, where
//         the result would be subnormal (flushed, as the CPU's
//         flush-to-zero would: a subnormal costs x86 a microcode assist
//         per instruction), +inf above 88.72, NaN kept
//   sigmoid  1 / (1 + exp(-x)), x held within [-87, 87] so that the
//         exp needs no edge cases, its polynomial of degree 5 and its
//         rounding done by the adder (19 instructions a vector, where the
//         general exp's edges made it 40; SiLU follows every convolution
//         of efficientnet_b0, whose expand layers it made 2x slower than
//         mobilenet_v2's with Clip): 2.0e-7; 1.7e-38 below -87, where the
//         true value is smaller still, NaN kept
//   silu  x * sigmoid(x) as x / (1 + exp(-x)) over the same denominator,
//         no NaN select (the quotient keeps a NaN): 16 instructions,
//         2.2e-7
//   erf   a P(a^2) / Q(a^2), a = min(|x|, 3.92), P of degree 6 and Q of
//         degree 5 in a^2, 1 from 3.92 on, the sign put back: 3.2e-7
//         (2.7 ulp)
//   tanh  the same form, a = min(|x|, 9.02), P and Q of degree 6: 3.7e-7
//         (3.1 ulp)
//   Both are rational least-squares fits (scripts/fit_rational.py makes
//   and checks them): one division and a dozen multiply-adds, where the
//   Taylor series near 0 and a form built on exp elsewhere, both computed
//   for every lane (1.8e-7 each), had made GELU twice as slow.
// None forms a subnormal on the way, for any input (the test reads the
// CPU's underflow flag).
// The reference interpreter computes with libm (tir/interp/semantics.h);
// the ONNX node tests compare at 1e-3 relative.
#pragma once

#include <llvm/IR/IRBuilder.h>

namespace kiln::llvm_backend {

llvm::Value* emit_exp_f32(llvm::IRBuilder<>& b, llvm::Value* x);
llvm::Value* emit_sigmoid_f32(llvm::IRBuilder<>& b, llvm::Value* x);
// x * sigmoid(x), as x / (1 + exp(-x)): sigmoid's form less its NaN select
// and the multiply, within 2.0e-7 of libm's as sigmoid's is.
llvm::Value* emit_silu_f32(llvm::IRBuilder<>& b, llvm::Value* x);
llvm::Value* emit_erf_f32(llvm::IRBuilder<>& b, llvm::Value* x);
llvm::Value* emit_tanh_f32(llvm::IRBuilder<>& b, llvm::Value* x);

}  // namespace kiln::llvm_backend
