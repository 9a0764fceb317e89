// Tensor IR statements, blocks, functions and modules.
//
// A PrimFunc starts in block form (what tir/te's create_prim_func makes and
// what schedules transform): loops around BlockRealizes, each Block with its
// iteration variables (spatial or reduce), the regions it reads and writes,
// an optional init and its own allocations. Lowering (tir/transform) turns
// blocks into plain loops, flattens buffers to one dimension and leaves
// Allocate statements for the code generators.
//
//   for i in range(64):            # For(kind=serial)
//     for k in range(32):
//       with block("C"):           # BlockRealize(iter_values=[i, k])
//         vi = spatial(64, i)      #   Block(iter_vars=[vi: spatial, vk: reduce])
//         vk = reduce(32, k)
//         with init(): C[vi] = 0
//         C[vi] = C[vi] + A[vi, vk]
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/expr.h"

namespace kiln {

#define KILN_FOR_EACH_STMT(X) \
  X(BufferStore)              \
  X(For)                      \
  X(SeqStmt)                  \
  X(IfThenElse)               \
  X(LetStmt)                  \
  X(Allocate)                 \
  X(Evaluate)                 \
  X(Barrier)                  \
  X(Prefetch)                 \
  X(Block)                    \
  X(BlockRealize)

enum class StmtKind : uint8_t {
#define X(Name) Name,
  KILN_FOR_EACH_STMT(X)
#undef X
};
const char* stmt_kind_name(StmtKind k);

class StmtNode : public Object {
 public:
  explicit StmtNode(StmtKind k) : kind(k) {}
  const StmtKind kind;
  // The family, for as<StmtNode>() (core/object.h).
  static constexpr char kFamilyTag = 0;
  const void* family_tag() const override { return &kFamilyTag; }
};

class Stmt : public ObjectRef {
  KILN_REF(Stmt, ObjectRef, StmtNode)
  StmtKind kind() const { return (*this)->kind; }
};

#define KILN_STMT_NODE(Name, ...)                   \
 public:                                            \
  static constexpr StmtKind kKind = StmtKind::Name; \
  Name##Node() : StmtNode(StmtKind::Name) {}        \
  KILN_NODE(Name##Node, #Name, __VA_ARGS__)

// Annotations on loops and blocks: e.g. "pragma_auto_unroll_max_step" -> 16.
using Annotations = std::map<std::string, Expr>;

// Block annotation (a float): the largest relative error a correct program
// of the block may show, for an algorithm that rounds more than a reordered
// sum does (ops/winograd.h's F(4,3)); check_tolerance (targets/runtime/check.h)
// takes the largest over a function's blocks.
inline constexpr const char* kCheckToleranceAnn = "kiln.check_tolerance";

// Block annotations (integers): the block's body picks a row of a constant
// matrix by the position of some of its iter vars within a period (the
// iter vars whose bits kUnrollAxesAnn sets, position i % kUnrollPeriodAnn;
// ops/winograd.h's transforms). Postprocessing (search/postproc.h) splits
// those loops by the period and unrolls the pieces innermost, above the
// vector loop, so that each row is a constant and its selects fold away.
inline constexpr const char* kUnrollAxesAnn = "kiln.unroll_axes";
inline constexpr const char* kUnrollPeriodAnn = "kiln.unroll_period";

// buffer[indices] = value. A Ramp index makes it a vector store.
class BufferStoreNode : public StmtNode {
 public:
  Buffer buffer;
  Expr value;
  std::vector<Expr> indices;
  void validate() const override;
  KILN_STMT_NODE(BufferStore, buffer, value, indices)
};

enum class ForKind : uint8_t { kSerial = 0, kParallel = 1, kVectorized = 2, kUnrolled = 3, kThreadBinding = 4 };
const char* for_kind_name(ForKind k);
ForKind for_kind_from_name(const std::string& s);  // throws kiln::Error

class ForNode : public StmtNode {
 public:
  Var loop_var;
  Expr min, extent;
  ForKind for_kind = ForKind::kSerial;
  Stmt body;
  // For kThreadBinding: "blockIdx.x", "threadIdx.y", ...
  std::string thread_tag;
  Annotations annotations;
  void validate() const override;
  KILN_STMT_NODE(For, loop_var, min, extent, for_kind, body, thread_tag, annotations)
  KILN_DEFINES(loop_var)
};

class SeqStmtNode : public StmtNode {
 public:
  std::vector<Stmt> seq;
  KILN_STMT_NODE(SeqStmt, seq)
};

class IfThenElseNode : public StmtNode {
 public:
  Expr condition;
  Stmt then_case;
  Stmt else_case;  // may be undefined
  KILN_STMT_NODE(IfThenElse, condition, then_case, else_case)
};

class LetStmtNode : public StmtNode {
 public:
  Var var;
  Expr value;
  Stmt body;
  KILN_STMT_NODE(LetStmt, var, value, body)
  KILN_DEFINES(var)
};

// Storage for `buffer` (its scope says where) during `body`. Made by lowering
// from blocks' alloc_buffers.
class AllocateNode : public StmtNode {
 public:
  Buffer buffer;
  Stmt body;
  KILN_STMT_NODE(Allocate, buffer, body)
  KILN_DEFINES(buffer)
};

class EvaluateNode : public StmtNode {
 public:
  Expr value;
  KILN_STMT_NODE(Evaluate, value)
};

// Every thread of a GPU thread block waits here until all have arrived,
// and what each wrote to `scope` memory before is visible to all after
// (CUDA's __syncthreads(), OpenCL's barrier(CLK_LOCAL_MEM_FENCE)). Placed
// by tir/transform/insert_barriers.h; one thread running the code alone
// (the interpreter, a CPU) passes straight through.
class BarrierNode : public StmtNode {
 public:
  std::string scope = "shared";
  KILN_STMT_NODE(Barrier, scope)
};

// A hint: the cache line holding buffer[indices] is wanted soon; nothing
// is read or written. The code generator emits the CPU's prefetch into the
// level-2 cache (llvm.prefetch, locality 2), the interpreter nothing.
// Placed by tir/transform/prefetch_panels.h.
class PrefetchNode : public StmtNode {
 public:
  Buffer buffer;
  std::vector<Expr> indices;
  KILN_STMT_NODE(Prefetch, buffer, indices)
};

class BufferRegionNode : public Object {
 public:
  Buffer buffer;
  std::vector<Range> region;
  KILN_NODE(BufferRegionNode, "BufferRegion", buffer, region)
};

class BufferRegion : public ObjectRef {
  KILN_REF(BufferRegion, ObjectRef, BufferRegionNode)
  BufferRegion(Buffer buffer, std::vector<Range> region);
  // The whole buffer.
  static BufferRegion full(const Buffer& buffer);
  const Buffer& buffer() const { return (*this)->buffer; }
};

// The unit of computation that schedules move around. Its body refers only to
// its own iter_vars (and variables of enclosing lets), never to loop variables:
// the BlockRealize around it binds each iter var to an expression of the loops.
class BlockNode : public StmtNode {
 public:
  std::string name;
  std::vector<IterVar> iter_vars;
  std::vector<BufferRegion> reads;
  std::vector<BufferRegion> writes;
  Stmt init;  // runs before the first reduction step; may be undefined
  Stmt body;
  std::vector<Buffer> alloc_buffers;
  Annotations annotations;
  KILN_STMT_NODE(Block, name, iter_vars, reads, writes, init, body, alloc_buffers, annotations)
  KILN_DEFINES(iter_vars, alloc_buffers)
};

// Runs `block` with its iter vars bound to iter_values, when predicate holds.
class BlockRealizeNode : public StmtNode {
 public:
  std::vector<Expr> iter_values;
  Expr predicate;
  Stmt block;  // a Block
  void validate() const override;
  KILN_STMT_NODE(BlockRealize, iter_values, predicate, block)
};

// ---------------------------------------------------------------------------
// Constructors.

Stmt buffer_store(Buffer buffer, Expr value, std::vector<Expr> indices);
Stmt for_loop(Var v, Expr min, Expr extent, ForKind kind, Stmt body, std::string thread_tag = "",
              Annotations annotations = {});
// The loop `loop` (a For) with another body, and optionally another kind;
// `loop` itself when neither changes.
Stmt with_loop_body(const Stmt& loop, Stmt body);
Stmt with_loop_body(const Stmt& loop, ForKind kind, Stmt body);
// Flattens nested sequences and drops no-ops; one statement stays itself.
Stmt seq(std::vector<Stmt> stmts);
Stmt if_then_else(Expr cond, Stmt then_case, Stmt else_case = Stmt());
Stmt let_stmt(Var v, Expr value, Stmt body);
Stmt allocate(Buffer buffer, Stmt body);
Stmt evaluate(Expr value);
Stmt barrier(std::string scope = "shared");
Stmt prefetch(Buffer buffer, std::vector<Expr> indices);
// A no-op statement.
Stmt no_op();
bool is_no_op(const Stmt& s);

struct BlockFields {
  std::string name;
  std::vector<IterVar> iter_vars;
  std::vector<BufferRegion> reads, writes;
  Stmt init, body;
  std::vector<Buffer> alloc_buffers;
  Annotations annotations;
};
Stmt block(BlockFields f);
Stmt block_realize(std::vector<Expr> iter_values, Expr predicate, Stmt block);

// ---------------------------------------------------------------------------
// Functions and modules.

class PrimFuncNode : public Object {
 public:
  std::string name;
  std::vector<Buffer> params;  // inputs then outputs, in calling order
  Stmt body;
  Annotations attrs;
  KILN_NODE(PrimFuncNode, "PrimFunc", name, params, body, attrs)
  KILN_DEFINES(params)
};

class PrimFunc : public ObjectRef {
  KILN_REF(PrimFunc, ObjectRef, PrimFuncNode)
  PrimFunc(std::string name, std::vector<Buffer> params, Stmt body, Annotations attrs = {});
  const std::string& name() const { return (*this)->name; }
  const std::vector<Buffer>& params() const { return (*this)->params; }
  const Stmt& body() const { return (*this)->body; }
  // This function with another body; *this when `body` is the same node.
  PrimFunc with_body(Stmt body) const;
};

class IRModuleNode : public Object {
 public:
  std::map<std::string, PrimFunc> functions;
  KILN_NODE(IRModuleNode, "IRModule", functions)
};

class IRModule : public ObjectRef {
  KILN_REF(IRModule, ObjectRef, IRModuleNode)
  explicit IRModule(std::map<std::string, PrimFunc> functions);
  // The module's only function; throws if it has none or several.
  PrimFunc main() const;
  PrimFunc lookup(const std::string& name) const;  // throws if absent
  IRModule with_function(const PrimFunc& f) const;
};

}  // namespace kiln
