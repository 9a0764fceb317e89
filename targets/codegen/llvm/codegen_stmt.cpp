// Statements: sequences, conditionals, lets and serial/unrolled loops.
// Every loop carries an llvm.loop ID (and the unroll request of an `unroll`
// loop), so later passes can attach their own loop metadata to it.
#include <llvm/IR/Metadata.h>

#include "targets/codegen/llvm/codegen_impl.h"
#include "tir/tensor_intrin.h"

namespace kiln::llvm_backend {
namespace {

llvm::MDNode* loop_metadata(llvm::LLVMContext& ctx, const ForNode* op) {
  llvm::SmallVector<llvm::Metadata*, 3> ops;
  ops.push_back(nullptr);  // self reference, filled below
  ops.push_back(llvm::MDNode::get(ctx, llvm::MDString::get(ctx, "llvm.loop.mustprogress")));
  if (op->for_kind == ForKind::kUnrolled) {
    const char* hint = as_const_int(op->extent) ? "llvm.loop.unroll.full" : "llvm.loop.unroll.enable";
    ops.push_back(llvm::MDNode::get(ctx, llvm::MDString::get(ctx, hint)));
  }
  llvm::MDNode* id = llvm::MDNode::getDistinct(ctx, ops);
  id->replaceOperandWith(0, id);
  return id;
}

}  // namespace

void CodeGen::emit(const Stmt& s) {
  KILN_ICHECK(s.defined()) << "undefined statement in " << symbol_;
  switch (s.kind()) {
    case StmtKind::BufferStore: emit_store(s.as<BufferStoreNode>()); return;
    case StmtKind::For:
      if (s.as<ForNode>()->annotations.count(kTensorizeAnn)) emit_tensorized(s);
      else emit_for(s.as<ForNode>());
      return;
    case StmtKind::SeqStmt:
      for (const Stmt& c : s.as<SeqStmtNode>()->seq) emit(c);
      return;
    case StmtKind::IfThenElse: {
      const auto* op = s.as<IfThenElseNode>();
      KILN_ICHECK(op->condition.dtype() == DataType::Bool())
          << "condition of type " << op->condition.dtype().str() << " in " << symbol_;
      llvm::Value* cond = emit(op->condition);
      llvm::Function* fn = fs_.fn;
      auto* then_bb = llvm::BasicBlock::Create(ctx_, "if.then", fn);
      auto* end_bb = llvm::BasicBlock::Create(ctx_, "if.end", fn);
      llvm::BasicBlock* else_bb = end_bb;
      if (op->else_case.defined()) else_bb = llvm::BasicBlock::Create(ctx_, "if.else", fn, end_bb);
      b_.CreateCondBr(cond, then_bb, else_bb);
      b_.SetInsertPoint(then_bb);
      emit(op->then_case);
      b_.CreateBr(end_bb);
      if (op->else_case.defined()) {
        b_.SetInsertPoint(else_bb);
        emit(op->else_case);
        b_.CreateBr(end_bb);
      }
      b_.SetInsertPoint(end_bb);
      return;
    }
    case StmtKind::LetStmt: {
      const auto* op = s.as<LetStmtNode>();
      llvm::Value* v = emit(op->value);
      if (llvm::isa<llvm::Instruction>(v)) v->setName(op->var->name);
      auto [it, inserted] = vars_.emplace(&*op->var, v);
      KILN_ICHECK(inserted) << "variable '" << op->var->name << "' bound twice in " << symbol_;
      emit(op->body);
      vars_.erase(&*op->var);
      return;
    }
    case StmtKind::Allocate: emit_allocate(s.as<AllocateNode>()); return;
    case StmtKind::Evaluate: {
      const Expr& v = s.as<EvaluateNode>()->value;
      if (!v.as<IntImmNode>()) emit(v);  // pure: kept only for its checks
      return;
    }
    case StmtKind::Barrier: return;  // one thread: nothing to wait for
    case StmtKind::Prefetch: emit_prefetch(s.as<PrefetchNode>()); return;
    case StmtKind::Block:
    case StmtKind::BlockRealize:
      KILN_ICHECK(false) << "block reached the code generator in " << symbol_ << " (the function is not lowered)";
      return;
  }
}

void CodeGen::emit_for(const ForNode* op) {
  switch (op->for_kind) {
    case ForKind::kSerial:
    case ForKind::kUnrolled: {
      llvm::Value* lo = emit(op->min);
      llvm::Value* hi = b_.CreateAdd(lo, emit(op->extent), "", false, true);
      emit_loop(op, lo, hi);
      return;
    }
    case ForKind::kParallel: emit_parallel_for(op); return;
    case ForKind::kVectorized:
      KILN_ICHECK(false) << "vectorized loop '" << op->loop_var->name << "' reached the code generator in " << symbol_;
      return;
    case ForKind::kThreadBinding:
      KILN_ICHECK(false) << "loop '" << op->loop_var->name << "' is bound to " << op->thread_tag
                         << ", which a CPU target cannot run, in " << symbol_;
      return;
  }
}

void CodeGen::emit_loop(const ForNode* op, llvm::Value* lo, llvm::Value* hi) {
  const std::string& name = op->loop_var->name;
  llvm::Function* fn = fs_.fn;
  llvm::BasicBlock* pre = b_.GetInsertBlock();
  auto* header = llvm::BasicBlock::Create(ctx_, "for." + name, fn);
  auto* body = llvm::BasicBlock::Create(ctx_, "for." + name + ".body", fn);
  auto* latch = llvm::BasicBlock::Create(ctx_, "for." + name + ".latch", fn);
  auto* exit = llvm::BasicBlock::Create(ctx_, "for." + name + ".end", fn);
  b_.CreateBr(header);

  b_.SetInsertPoint(header);
  llvm::PHINode* i = b_.CreatePHI(lo->getType(), 2, name);
  i->addIncoming(lo, pre);
  b_.CreateCondBr(b_.CreateICmpSLT(i, hi), body, exit);

  b_.SetInsertPoint(body);
  auto [it, inserted] = vars_.emplace(&*op->loop_var, i);
  KILN_ICHECK(inserted) << "loop variable '" << name << "' bound twice in " << symbol_;
  emit(op->body);
  vars_.erase(&*op->loop_var);
  b_.CreateBr(latch);

  b_.SetInsertPoint(latch);
  llvm::Value* next = b_.CreateAdd(i, llvm::ConstantInt::get(i->getType(), 1), name + ".next", false, true);
  llvm::BranchInst* back = b_.CreateBr(header);
  back->setMetadata(llvm::LLVMContext::MD_loop, loop_metadata(ctx_, op));
  i->addIncoming(next, latch);

  b_.SetInsertPoint(exit);
}

}  // namespace kiln::llvm_backend
