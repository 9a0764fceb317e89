// The LLVM code generator's working state, shared by the codegen_*.cpp files
// (one per concern: types, arithmetic, intrinsics, memory, statements,
// parallel outlining, functions). Private to targets/codegen/llvm.
//
// Shape of the generated code, for a PrimFunc `f` with buffers A, B:
//
//   i32 @f(ptr %args, ptr %rt)            exported, the kernel ABI
//     -> i32 @f.body(ptr %rt, ptr noalias %A, ptr noalias %B)
//   each parallel loop becomes
//     i32 @f.task<N>(i64 task, i64 num_tasks, ptr closure)   run by rt->parallel_launch
//       -> i32 @f.par<N>(ptr %rt, lo, hi, captured values..., ptr noalias buffers...)
//
// Pointers reach the bodies as noalias parameters (the inliner turns them
// into scoped alias metadata), which a pointer loaded from memory could not
// carry. Every generated function returns a KILN_STATUS_* code; a failure
// (scratch allocation, a failed task) frees the scratch buffers live at that
// point and returns the code.
//
// float16 and bfloat16 values live in float32 registers: a load widens, a
// store narrows (to nearest even), a Cast to them rounds, arithmetic in
// between runs at float32 precision.
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "targets/target.h"
#include "tir/stmt.h"

namespace kiln::llvm_backend {

// Fields of KilnRuntimeApi (targets/runtime/kernel_abi.h), by position.
enum RuntimeField : int { kRtVersion = 0, kRtReserved, kRtPool, kRtParallelLaunch, kRtAllocScratch, kRtFreeScratch };

class CodeGen {
 public:
  CodeGen(llvm::Module& module, const Target& target);
  // Emits the exported kernel `symbol` for f and everything it calls.
  void emit_kernel(const PrimFunc& f, const std::string& symbol);

  // --- types (codegen_types.cpp)
  // The register type of values of type t (float16/bfloat16 -> float, bool -> i1).
  llvm::Type* reg_type(DataType t);
  // The in-memory type of one element of type t (bool -> i8, bfloat16 -> i16).
  llvm::Type* mem_type(DataType elem);
  // Converts between a loaded/stored memory value and its register form.
  llvm::Value* from_memory(llvm::Value* v, DataType t);
  llvm::Value* to_memory(llvm::Value* v, DataType t);
  // Rounds a float32 register value to float16/bfloat16 precision.
  llvm::Value* round_to_storage_precision(llvm::Value* v, DataType t);

  // --- expressions (codegen_expr.cpp, codegen_arith.cpp, codegen_intrinsic.cpp)
  llvm::Value* emit(const Expr& e);
  llvm::Value* emit_binary(const Expr& e);
  llvm::Value* emit_compare(const Expr& e);
  llvm::Value* emit_floordiv(llvm::Value* a, llvm::Value* b, const Expr& divisor, DataType t);
  llvm::Value* emit_floormod(llvm::Value* a, llvm::Value* b, const Expr& divisor, DataType t);
  llvm::Value* emit_cast(DataType to, DataType from, llvm::Value* v);
  llvm::Value* emit_call(const CallNode* op);
  // Calls a one-argument libm function lane by lane ("tanhf" / "tanh").
  llvm::Value* emit_libm_call(const char* f32_name, const char* f64_name, llvm::Value* x);

  // --- memory (codegen_memory.cpp)
  llvm::Value* emit_load(const BufferLoadNode* op);
  void emit_prefetch(const PrefetchNode* op);
  // offset + clamp(Ramp(ramp_base, 1, lanes), lo, hi) as a masked contiguous
  // load (lo or hi may be undefined; min_inside: max(min(x, hi), lo)); see
  // codegen_memory.cpp.
  llvm::Value* emit_clamped_load(llvm::Type* mt, llvm::Value* base, llvm::Align align, const Expr& offset,
                                 const Expr& ramp_base, const Expr& lo, const Expr& hi, bool min_inside,
                                 int64_t lanes);
  // A vector index of at most a quarter as many distinct values as lanes,
  // each a constant offset from one scalar, as that many scalar loads
  // broadcast into their lanes; null where `index` is not one.
  llvm::Value* emit_few_element_load(llvm::Type* mt, llvm::Value* base, llvm::Align align, const Expr& index,
                                     const std::string& name);
  // A vector index whose lanes read a few contiguous runs at constant
  // offsets from one scalar, as one load per run and shuffles; null where
  // `index` is not one (codegen_memory.cpp).
  llvm::Value* emit_runs_load(llvm::Type* mt, llvm::Value* base, llvm::Align align, const Expr& index,
                              const std::string& name);
  void emit_store(const BufferStoreNode* op);
  void emit_allocate(const AllocateNode* op);
  llvm::Value* buffer_ptr(const Buffer& b);

  // --- statements (codegen_stmt.cpp)
  void emit(const Stmt& s);
  void emit_for(const ForNode* op);
  // A counted loop over [lo, hi) of the loop variable's type; body gets the index.
  void emit_loop(const ForNode* op, llvm::Value* lo, llvm::Value* hi);
  // A loop annotated kiln.tensorize: its nest as the intrinsic's
  // instructions (codegen_tensorize.cpp).
  void emit_tensorized(const Stmt& loop);

  // --- parallel loops (codegen_parallel.cpp)
  void emit_parallel_for(const ForNode* op);

  // --- functions and status codes (codegen_function.cpp)
  // One value a generated function receives: a variable or a buffer pointer.
  struct Capture {
    const VarNode* var = nullptr;
    const BufferNode* buffer = nullptr;
    llvm::Type* type = nullptr;
    std::string name;
  };
  // Creates an internal function `i32 name(ptr rt, extra..., captures...)`,
  // binds the captures inside it, runs `body` with the builder in it, and
  // returns it; the caller's builder position and bindings are restored.
  llvm::Function* emit_function(const std::string& name, const std::vector<llvm::Type*>& extra,
                                const std::vector<Capture>& captures,
                                const std::function<void(llvm::Function*)>& body);
  // If status != 0: free live scratch buffers and return status.
  void emit_status_check(llvm::Value* status);
  // Loads a field of the KilnRuntimeApi that rt points to.
  llvm::Value* runtime_field(RuntimeField field);
  void set_function_attributes(llvm::Function* fn);
  llvm::AllocaInst* entry_alloca(llvm::Type* type, uint64_t count, uint64_t align, const std::string& name);

  // The scalar integer immediate in e, looking through a Broadcast.
  static std::optional<int64_t> const_int(const Expr& e);
  // The symbol currently being generated, for error messages.
  const std::string& symbol() const { return symbol_; }

  llvm::LLVMContext& ctx_;
  llvm::Module& module_;
  const Target& target_;
  llvm::IRBuilder<> b_;
  llvm::StructType* runtime_api_type_ = nullptr;
  std::string symbol_;
  int outlined_count_ = 0;

  // True while emitting a buffer index (see codegen_arith.cpp on nsw).
  bool in_index_ = false;
  // WebAssembly with relaxed SIMD and -fp-contract=on: a vector multiply
  // feeding an add is one f32x4/f64x2.relaxed_madd (codegen_arith.cpp).
  bool relaxed_madd_ = false;
  // a * b + c as that instruction, when `e` is such an add; nullptr otherwise.
  llvm::Value* emit_relaxed_madd(const Expr& e);
  // x * sigmoid(x) of float32 (SiLU) as one quotient, x / (1 + exp(-x)),
  // when `e` is such a product; nullptr otherwise (codegen_arith.cpp).
  llvm::Value* emit_silu(const Expr& e);
  llvm::Value* emit_index(const Expr& index);

  // Bindings in the function being generated.
  std::unordered_map<const VarNode*, llvm::Value*> vars_;
  std::unordered_map<const BufferNode*, llvm::Value*> buffers_;

  struct FunctionState {
    llvm::Function* fn = nullptr;
    llvm::Value* rt = nullptr;
    llvm::BasicBlock* entry = nullptr;
    std::vector<llvm::Value*> live_scratch;  // innermost last
  };
  FunctionState fs_;
};

}  // namespace kiln::llvm_backend
