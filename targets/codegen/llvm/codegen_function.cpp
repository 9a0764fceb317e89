// Generated functions: the exported kernel, the internal bodies it calls,
// attributes, status returns and the runtime API table's layout.
#include <llvm/IR/MDBuilder.h>
#include <llvm/Target/TargetMachine.h>

#include <cstddef>

#include "targets/codegen/llvm/codegen.h"
#include "targets/codegen/llvm/codegen_impl.h"
#include "targets/codegen/llvm/cpu_info.h"
#include "targets/runtime/kernel_abi.h"
#include "tir/buffer_layout.h"

namespace kiln::llvm_backend {

// The LLVM struct below must match the C layout of KilnRuntimeApi.
static_assert(offsetof(KilnRuntimeApi, pool) == 8 && offsetof(KilnRuntimeApi, parallel_launch) == 16 &&
                  offsetof(KilnRuntimeApi, alloc_scratch) == 24 && offsetof(KilnRuntimeApi, free_scratch) == 32 &&
                  sizeof(KilnRuntimeApi) == 40,
              "KilnRuntimeApi layout changed: update RuntimeField and runtime_api_type_");

CodeGen::CodeGen(llvm::Module& module, const Target& target)
    : ctx_(module.getContext()), module_(module), target_(target), b_(module.getContext()) {
  runtime_api_type_ = llvm::StructType::create(
      ctx_, {b_.getInt32Ty(), b_.getInt32Ty(), b_.getPtrTy(), b_.getPtrTy(), b_.getPtrTy(), b_.getPtrTy()},
      "KilnRuntimeApi");
  if (target.fp_contract()) {
    // Every float operation may fuse with its neighbours into an FMA.
    llvm::FastMathFlags fmf;
    fmf.setAllowContract(true);
    b_.setFastMathFlags(fmf);
    relaxed_madd_ = is_wasm(target.mtriple()) && target.has_feature("relaxed-simd");
  }
}

void CodeGen::set_function_attributes(llvm::Function* fn) {
  fn->addFnAttr("target-cpu", target_.mcpu());
  std::string features = target_.llvm_features();
  if (!features.empty()) fn->addFnAttr("target-features", features);
  // LLVM's cost model may otherwise cap vectors at 256 bits on AVX-512 CPUs.
  if (target_.has_feature("avx512f")) fn->addFnAttr("prefer-vector-width", "512");
  // SVE at a fixed length: LLVM then lowers the fixed-width vectors the
  // schedule asks for (say <8 x float> at -vscale=2) onto SVE registers.
  if (target_.vscale() > 0)
    fn->addFnAttr(llvm::Attribute::getWithVScaleRangeArgs(ctx_, target_.vscale(), target_.vscale()));
  fn->addFnAttr(llvm::Attribute::NoUnwind);
}

llvm::AllocaInst* CodeGen::entry_alloca(llvm::Type* type, uint64_t count, uint64_t align, const std::string& name) {
  llvm::IRBuilder<> eb(fs_.entry);
  llvm::AllocaInst* a = eb.CreateAlloca(type, count == 1 ? nullptr : eb.getInt64(count), name);
  a->setAlignment(llvm::Align(align));
  return a;
}

llvm::Value* CodeGen::runtime_field(RuntimeField field) {
  llvm::Value* p = b_.CreateStructGEP(runtime_api_type_, fs_.rt, static_cast<unsigned>(field));
  return b_.CreateLoad(runtime_api_type_->getElementType(static_cast<unsigned>(field)), p);
}

void CodeGen::emit_status_check(llvm::Value* status) {
  auto* fail = llvm::BasicBlock::Create(ctx_, "fail", fs_.fn);
  auto* ok = llvm::BasicBlock::Create(ctx_, "ok", fs_.fn);
  llvm::MDBuilder md(ctx_);
  b_.CreateCondBr(b_.CreateICmpNE(status, b_.getInt32(KILN_STATUS_OK)), fail, ok, md.createBranchWeights(1, 1 << 20));
  b_.SetInsertPoint(fail);
  auto* free_ty = llvm::FunctionType::get(b_.getVoidTy(), {b_.getPtrTy(), b_.getPtrTy()}, false);
  for (auto it = fs_.live_scratch.rbegin(); it != fs_.live_scratch.rend(); ++it)
    b_.CreateCall(free_ty, runtime_field(kRtFreeScratch), {runtime_field(kRtPool), *it});
  b_.CreateRet(status);
  b_.SetInsertPoint(ok);
}

llvm::Function* CodeGen::emit_function(const std::string& name, const std::vector<llvm::Type*>& extra,
                                       const std::vector<Capture>& captures,
                                       const std::function<void(llvm::Function*)>& body) {
  std::vector<llvm::Type*> params = {b_.getPtrTy()};
  params.insert(params.end(), extra.begin(), extra.end());
  for (const Capture& c : captures) params.push_back(c.type);
  auto* fn = llvm::Function::Create(llvm::FunctionType::get(b_.getInt32Ty(), params, false),
                                    llvm::Function::InternalLinkage, name, module_);
  set_function_attributes(fn);

  FunctionState saved_fs = std::move(fs_);
  auto saved_vars = std::move(vars_);
  auto saved_buffers = std::move(buffers_);
  llvm::IRBuilderBase::InsertPoint saved_ip = b_.saveIP();
  fs_ = FunctionState();
  vars_.clear();
  buffers_.clear();

  fs_.fn = fn;
  fs_.rt = fn->getArg(0);
  fs_.rt->setName("rt");
  fs_.entry = llvm::BasicBlock::Create(ctx_, "entry", fn);
  auto* start = llvm::BasicBlock::Create(ctx_, "start", fn);
  const unsigned first = 1 + static_cast<unsigned>(extra.size());
  for (size_t i = 0; i < captures.size(); ++i) {
    const Capture& c = captures[i];
    llvm::Argument* arg = fn->getArg(first + static_cast<unsigned>(i));
    arg->setName(c.name);
    if (c.buffer) {
      arg->addAttr(llvm::Attribute::NoAlias);
      arg->addAttr(llvm::Attribute::NoCapture);
      buffers_.emplace(c.buffer, arg);
    } else {
      vars_.emplace(c.var, arg);
    }
  }
  b_.SetInsertPoint(start);
  body(fn);
  b_.CreateRet(b_.getInt32(KILN_STATUS_OK));
  llvm::IRBuilder<>(fs_.entry).CreateBr(start);

  fs_ = std::move(saved_fs);
  vars_ = std::move(saved_vars);
  buffers_ = std::move(saved_buffers);
  b_.restoreIP(saved_ip);
  return fn;
}

void CodeGen::emit_kernel(const PrimFunc& f, const std::string& symbol) {
  symbol_ = symbol;
  std::vector<Capture> params;
  for (const Buffer& p : f->params) {
    for (const Capture& c : params)
      if (c.buffer == &*p) KILN_USER_ERROR() << "buffer " << p->name << " is passed twice to " << f->name;
    params.push_back({nullptr, &*p, b_.getPtrTy(), p->name});
  }
  llvm::Function* body = emit_function(symbol + ".body", {}, params, [&](llvm::Function*) { emit(f->body); });

  auto* kernel_ty = llvm::FunctionType::get(b_.getInt32Ty(), {b_.getPtrTy(), b_.getPtrTy()}, false);
  auto* kernel = llvm::Function::Create(kernel_ty, llvm::Function::ExternalLinkage, symbol, module_);
  set_function_attributes(kernel);
  llvm::Argument* args = kernel->getArg(0);
  llvm::Argument* rt = kernel->getArg(1);
  args->setName("args");
  rt->setName("rt");
  for (llvm::Argument* a : {args, rt}) {
    a->addAttr(llvm::Attribute::NoCapture);
    a->addAttr(llvm::Attribute::ReadOnly);
  }
  llvm::IRBuilder<> kb(llvm::BasicBlock::Create(ctx_, "entry", kernel));
  std::vector<llvm::Value*> call_args = {rt};
  for (size_t i = 0; i < f->params.size(); ++i) {
    llvm::Value* slot = kb.CreateConstInBoundsGEP1_64(kb.getPtrTy(), args, i);
    call_args.push_back(kb.CreateLoad(kb.getPtrTy(), slot, f->params[i]->name));
  }
  kb.CreateRet(kb.CreateCall(body, call_args));
}

std::string kernel_signature(const PrimFunc& f) {
  std::string s;
  for (const Buffer& p : f->params) {
    std::string name = p->name;
    for (char& c : name)
      if (c == ':' || c == ';') c = '_';
    s += (s.empty() ? "" : ";") + name + ":" + p->dtype.str() + ":" + std::to_string(constant_numel(p));
  }
  return s;
}

std::unique_ptr<llvm::Module> generate_module(const PrimFunc& f, const Target& target, llvm::TargetMachine& tm,
                                              llvm::LLVMContext& ctx, const std::string& symbol) {
  auto module = std::make_unique<llvm::Module>(symbol, ctx);
  module->setTargetTriple(tm.getTargetTriple().str());
  module->setDataLayout(tm.createDataLayout());
  CodeGen cg(*module, target);
  cg.emit_kernel(f, symbol);

  llvm::Constant* sig = llvm::ConstantDataArray::getString(ctx, kernel_signature(f));
  auto* g = new llvm::GlobalVariable(*module, sig->getType(), true, llvm::GlobalValue::ExternalLinkage, sig,
                                     symbol + "__kiln_signature");
  g->setAlignment(llvm::Align(1));
  return module;
}

}  // namespace kiln::llvm_backend
