// Expression dispatch: immediates, variables, vectors, lets, selects. The
// arithmetic lives in codegen_arith.cpp, intrinsics in codegen_intrinsic.cpp,
// loads in codegen_memory.cpp.
#include "targets/codegen/llvm/codegen_impl.h"
#include "targets/runtime/half.h"

namespace kiln::llvm_backend {

std::optional<int64_t> CodeGen::const_int(const Expr& e) {
  if (const int64_t* c = as_const_int(e)) return *c;
  if (const auto* bc = e.as<BroadcastNode>())
    if (const int64_t* c = as_const_int(bc->value)) return *c;
  return std::nullopt;
}

llvm::Value* CodeGen::emit(const Expr& e) {
  KILN_ICHECK(e.defined()) << "undefined expression in " << symbol_;
  switch (e.kind()) {
    case ExprKind::IntImm: {
      const auto* op = e.as<IntImmNode>();
      return llvm::ConstantInt::get(reg_type(e.dtype()), static_cast<uint64_t>(op->value), e.dtype().is_int());
    }
    case ExprKind::FloatImm: {
      double v = e.as<FloatImmNode>()->value;
      DataType t = e.dtype();
      if (t.code() == DataType::kBFloat) v = bfloat16_to_float(float_to_bfloat16(static_cast<float>(v)));
      if (t.code() == DataType::kFloat && t.bits() == 16) v = half_to_float(float_to_half(static_cast<float>(v)));
      return llvm::ConstantFP::get(reg_type(t), v);
    }
    case ExprKind::StringImm:
      KILN_ICHECK(false) << "string constant in an expression of " << symbol_;
      return nullptr;
    case ExprKind::Var: {
      auto it = vars_.find(e.as<VarNode>());
      KILN_ICHECK(it != vars_.end()) << "unbound variable '" << e.as<VarNode>()->name << "' in " << symbol_;
      return it->second;
    }
    case ExprKind::Not: {
      llvm::Value* a = emit(e.as<NotNode>()->a);
      return b_.CreateNot(a);
    }
    case ExprKind::Select: {
      const auto* op = e.as<SelectNode>();
      llvm::Value* c = emit(op->cond);
      llvm::Value* t = emit(op->true_value);
      llvm::Value* f = emit(op->false_value);
      return b_.CreateSelect(c, t, f);
    }
    case ExprKind::Cast: {
      const auto* op = e.as<CastNode>();
      return emit_cast(e.dtype(), op->value.dtype(), emit(op->value));
    }
    case ExprKind::Ramp: {
      const auto* op = e.as<RampNode>();
      auto lanes = static_cast<unsigned>(op->lanes);
      llvm::Value* base = b_.CreateVectorSplat(lanes, emit(op->base));
      llvm::Value* stride = b_.CreateVectorSplat(lanes, emit(op->stride));
      if (e.dtype().is_float()) {
        llvm::Value* step = b_.CreateStepVector(llvm::FixedVectorType::get(b_.getInt32Ty(), lanes));
        return b_.CreateFAdd(base, b_.CreateFMul(b_.CreateUIToFP(step, base->getType()), stride));
      }
      llvm::Value* step = b_.CreateStepVector(base->getType());
      return b_.CreateAdd(base, b_.CreateMul(step, stride));
    }
    case ExprKind::Broadcast: {
      const auto* op = e.as<BroadcastNode>();
      return b_.CreateVectorSplat(static_cast<unsigned>(op->lanes), emit(op->value));
    }
    case ExprKind::Let: {
      const auto* op = e.as<LetNode>();
      llvm::Value* v = emit(op->value);
      if (llvm::isa<llvm::Instruction>(v)) v->setName(op->var->name);
      auto [it, inserted] = vars_.emplace(&*op->var, v);
      KILN_ICHECK(inserted) << "variable '" << op->var->name << "' bound twice in " << symbol_;
      llvm::Value* body = emit(op->body);
      vars_.erase(&*op->var);
      return body;
    }
    case ExprKind::Call: return emit_call(e.as<CallNode>());
    case ExprKind::BufferLoad: return emit_load(e.as<BufferLoadNode>());
    case ExprKind::Reduce:
      KILN_ICHECK(false) << "reduce expression reached the code generator in " << symbol_;
      return nullptr;
    case ExprKind::EQ:
    case ExprKind::NE:
    case ExprKind::LT:
    case ExprKind::LE:
    case ExprKind::GT:
    case ExprKind::GE: return emit_compare(e);
    default: return emit_binary(e);
  }
}

}  // namespace kiln::llvm_backend
