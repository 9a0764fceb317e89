// Tensor intrinsics: a few instructions that compute a small tensor
// operation at once (an int8 dot product of four pairs into each 32-bit
// lane), registered by name with a description of what they compute.
//
// The description is a function in block form: loops around one block
// whose body is the operation, element by element, as TVM's TensorIntrin
// describes it.
//
//   @T.prim_func
//   def x86_vnni_u8s8s32_16x4(A: T.Buffer((4,), "uint8"), B: T.Buffer((16, 4), "int8"),
//                             C: T.Buffer((16,), "int32")):
//       for i, k in T.grid(16, 4):
//           with T.block("update"):
//               C[v_i] = C[v_i] + T.Cast("int32", A[v_k]) * T.Cast("int32", B[v_i, v_k])
//
// A loop nest of a scheduled program matches it when it has as many loops,
// of the same extents, around one store whose value is the description's
// expression with other buffers in place of A, B and C, each read and
// written at the same element strides along the loops (C at stride 1 along
// i, B at 4 along i and 1 along k, ...) from some base offset. The
// schedule's tensorize primitive checks that and marks the nest's outer
// loop (kTensorizeAnn); the nest stays as it is, so the interpreter runs
// the description, and the code generator matches the lowered nest again
// to find the operands' addresses and emits the instructions instead.
//
// What the implementation is lives with each code generator
// (targets/codegen/llvm/codegen_tensorize.cpp); here are what the
// intrinsics compute and which CPU features they need.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tir/stmt.h"

namespace kiln {

// Loop annotation (a string): the name of the tensor intrinsic that
// computes the loop nest under this loop.
inline constexpr const char* kTensorizeAnn = "kiln.tensorize";

// Block annotation (any value): the block's int8 operand (its weights)
// holds values in [-64, 64] only, so that two of its products with uint8
// data, summed, fit an int16 (255 · 64 · 2 = 32640): what vpmaddubsw needs
// not to saturate. The graph sets it where the weights are constants of
// that range (a model quantized with 7-bit weights, onnxruntime's
// reduce_range, as quantization tools do for CPUs without VNNI); the
// workloads matmul_u8s7s32 and conv2d_nchwc_u8s7s32 say it by name.
inline constexpr const char* kSmallWeightsAnn = "kiln.weights_7bit";

// The description analysed once, at registration: its nest, its value's
// shape and each operand's strides (tensor_intrin.cpp), which every match
// compares with.
struct TensorIntrinPattern;

struct TensorIntrin {
  std::string name;
  std::string summary;
  PrimFunc desc;
  // The description's loops, which a matched nest has as many of.
  size_t num_loops = 0;
  // The CPU features (LLVM's names) of any one of these sets, all of it,
  // make the intrinsic available.
  std::vector<std::vector<std::string>> feature_sets;
  std::shared_ptr<const TensorIntrinPattern> pattern;
  // A block annotation the matched block must carry (empty: none): a
  // promise about its operands' values that the instructions rely on and
  // the description cannot say (kSmallWeightsAnn).
  std::string needs_annotation;
};

// Whether a CPU with the features `has_feature` says yes to has `t`'s
// instructions (any one of its feature sets, whole).
bool available_with(const TensorIntrin& t, const std::function<bool(const std::string&)>& has_feature);
// Its feature sets as text, "avx512vnni+avx512vl or avxvnni".
std::string feature_text(const TensorIntrin& t);

// Every registered intrinsic, in a fixed order.
const std::vector<TensorIntrin>& tensor_intrins();
// The intrinsic called `name`, or nullptr.
const TensorIntrin* find_tensor_intrin(std::string_view name);
// "a, b, c": the registered names, for error messages.
std::string tensor_intrin_names();

// One of the description's parameters in the matched program: the buffer
// that takes its place, and the flat element offset of its element at the
// nest's origin (every loop of the nest at 0), in the loops outside.
struct TensorOperand {
  Buffer buffer;
  Expr offset;
};

// The operands in the order of the description's parameters, and the
// condition of the loops outside under which the nest runs (a partial
// tile's predicate; undefined when it always runs).
struct TensorIntrinMatch {
  std::vector<TensorOperand> operands;
  Expr guard;
};

// Matches the loop nest under `loop` (a For) against `intrin`'s
// description. `loop` may be in block form (the loops' innermost body one
// BlockRealize of a block without init) or lowered (a BufferStore at flat
// indices). A predicate or condition that uses none of the nest's loops
// (a partial tile's, outside) is the match's guard. Returns the match, or
// a sentence saying what differs.
std::variant<TensorIntrinMatch, std::string> match_tensor_intrin(const Stmt& loop, const TensorIntrin& intrin);

}  // namespace kiln
