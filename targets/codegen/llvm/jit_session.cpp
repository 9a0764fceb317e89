#include "targets/codegen/llvm/jit_session.h"

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <map>
#include <mutex>

#include "core/error.h"
#include "targets/codegen/llvm/cpu_info.h"
#include "targets/codegen/llvm/llvm_init.h"

namespace kiln::llvm_backend {
namespace {

[[noreturn]] void fail(const std::string& what, llvm::Error err) {
  throw InternalError(what + ": " + llvm::toString(std::move(err)));
}

std::unique_ptr<llvm::orc::LLJIT> make_jit(const Target& t) {
  llvm::orc::JITTargetMachineBuilder jtmb{llvm::Triple(t.mtriple())};
  jtmb.setCPU(t.mcpu());
  jtmb.addFeatures(t.mattr());
  jtmb.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  auto jit = llvm::orc::LLJITBuilder()
                 .setJITTargetMachineBuilder(std::move(jtmb))
                 .setSupportConcurrentCompilation(true)  // one TargetMachine per compile: builds may overlap
                 .create();
  if (!jit) fail("cannot create a JIT for " + t.str(), jit.takeError());
  auto gen = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess((*jit)->getDataLayout().getGlobalPrefix());
  if (!gen) fail("cannot search the process for symbols", gen.takeError());
  (*jit)->getMainJITDylib().addGenerator(std::move(*gen));
  return std::move(*jit);
}

}  // namespace

JitSession::JitSession(std::unique_ptr<llvm::orc::LLJIT> jit) : jit_(std::move(jit)) {}
JitSession::~JitSession() = default;

std::shared_ptr<JitSession> JitSession::for_target(const Target& t) {
  if (!t.is_cpu()) KILN_USER_ERROR() << "the llvm back end cannot compile for target kind " << t.kind();
  if (t.mtriple() != process_triple())
    KILN_USER_ERROR() << "cannot run code for " << t.mtriple() << " in this " << process_triple() << " process";
  ensure_llvm_initialized();
  // Sessions live until the process exits: never destroyed, so no kernel
  // can outlive its JIT through static destruction order.
  static std::mutex mu;
  static auto* sessions = new std::map<std::string, std::shared_ptr<JitSession>>();
  const std::string key = t.mtriple() + " " + t.mcpu() + " " + t.llvm_features();
  std::lock_guard<std::mutex> lock(mu);
  auto it = sessions->find(key);
  if (it != sessions->end()) return it->second;
  std::shared_ptr<JitSession> s(new JitSession(make_jit(t)));
  sessions->emplace(key, s);
  return s;
}

std::string JitSession::unique_symbol(const std::string& name) {
  return name + ".k" + std::to_string(next_id_.fetch_add(1));
}

std::unique_ptr<CompiledKernel> JitSession::add(std::unique_ptr<llvm::Module> module,
                                                std::unique_ptr<llvm::LLVMContext> ctx, const std::string& symbol,
                                                const std::string& name, std::vector<KernelParam> params) {
  llvm::orc::ResourceTrackerSP tracker = jit_->getMainJITDylib().createResourceTracker();
  // Frees the kernel's code; keeps the session alive while the kernel lives.
  std::shared_ptr<void> owner(tracker.get(), [self = shared_from_this(), tracker](void*) {
    if (llvm::Error e = tracker->remove()) llvm::consumeError(std::move(e));
  });
  if (llvm::Error e = jit_->addIRModule(tracker, llvm::orc::ThreadSafeModule(std::move(module), std::move(ctx))))
    fail("cannot add the code of '" + name + "' to the JIT", std::move(e));
  auto addr = jit_->lookup(symbol);
  if (!addr) fail("cannot compile '" + name + "'", addr.takeError());
  return std::make_unique<CompiledKernel>(name, addr->toPtr<KilnKernelFn>(), std::move(params), std::move(owner));
}

}  // namespace kiln::llvm_backend
