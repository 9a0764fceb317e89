// Register and memory forms of kiln data types, and the conversions between
// them. The only place that knows float16/bfloat16 live in float32 registers.
#include "targets/codegen/llvm/codegen_impl.h"

namespace kiln::llvm_backend {

llvm::Type* CodeGen::reg_type(DataType t) {
  llvm::Type* s = nullptr;
  switch (t.code()) {
    case DataType::kInt:
    case DataType::kUInt: s = b_.getIntNTy(t.bits()); break;
    case DataType::kFloat:
      if (t.bits() == 16 || t.bits() == 32) s = b_.getFloatTy();
      else if (t.bits() == 64) s = b_.getDoubleTy();
      break;
    case DataType::kBFloat: s = b_.getFloatTy(); break;
    case DataType::kHandle:
      if (t.bits() != 0) s = b_.getPtrTy();
      break;
  }
  KILN_ICHECK(s) << "no llvm type for " << t.str() << " in " << symbol_;
  return t.lanes() > 1 ? llvm::FixedVectorType::get(s, t.lanes()) : s;
}

llvm::Type* CodeGen::mem_type(DataType elem) {
  KILN_ICHECK(elem.lanes() == 1) << "memory type of " << elem.str();
  if (elem.is_bool()) return b_.getInt8Ty();
  if (elem.code() == DataType::kBFloat) return b_.getInt16Ty();
  if (elem.code() == DataType::kFloat && elem.bits() == 16) return b_.getHalfTy();
  return reg_type(elem);
}

namespace {

// The same type shape (scalar or vector of the same lanes) with another element.
llvm::Type* like(llvm::Type* shape, llvm::Type* elem) {
  if (auto* v = llvm::dyn_cast<llvm::FixedVectorType>(shape)) return llvm::FixedVectorType::get(elem, v->getNumElements());
  return elem;
}

}  // namespace

llvm::Value* CodeGen::from_memory(llvm::Value* v, DataType t) {
  llvm::Type* shape = v->getType();
  if (t.is_bool()) return b_.CreateICmpNE(v, llvm::Constant::getNullValue(shape));
  if (t.code() == DataType::kBFloat) {
    llvm::Value* wide = b_.CreateShl(b_.CreateZExt(v, like(shape, b_.getInt32Ty())), 16);
    return b_.CreateBitCast(wide, like(shape, b_.getFloatTy()));
  }
  if (t.code() == DataType::kFloat && t.bits() == 16) return b_.CreateFPExt(v, like(shape, b_.getFloatTy()));
  return v;
}

llvm::Value* CodeGen::to_memory(llvm::Value* v, DataType t) {
  llvm::Type* shape = v->getType();
  if (t.is_bool()) return b_.CreateZExt(v, like(shape, b_.getInt8Ty()));
  if (t.code() == DataType::kBFloat) {
    // Round to nearest even on the 16 dropped bits; NaNs stay quiet NaNs.
    llvm::Type* i32 = like(shape, b_.getInt32Ty());
    llvm::Value* bits = b_.CreateBitCast(v, i32);
    llvm::Value* lsb = b_.CreateAnd(b_.CreateLShr(bits, 16), llvm::ConstantInt::get(i32, 1));
    llvm::Value* rounded = b_.CreateAdd(b_.CreateAdd(bits, llvm::ConstantInt::get(i32, 0x7fff)), lsb);
    llvm::Value* nan = b_.CreateFCmpUNO(v, v);
    llvm::Value* quiet = b_.CreateOr(bits, llvm::ConstantInt::get(i32, 0x400000));
    llvm::Value* result = b_.CreateSelect(nan, quiet, rounded);
    return b_.CreateTrunc(b_.CreateLShr(result, 16), like(shape, b_.getInt16Ty()));
  }
  if (t.code() == DataType::kFloat && t.bits() == 16) return b_.CreateFPTrunc(v, like(shape, b_.getHalfTy()));
  return v;
}

llvm::Value* CodeGen::round_to_storage_precision(llvm::Value* v, DataType t) {
  if (t.code() == DataType::kBFloat || (t.code() == DataType::kFloat && t.bits() == 16))
    return from_memory(to_memory(v, t), t);
  return v;
}

}  // namespace kiln::llvm_backend
