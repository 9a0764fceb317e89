#include "targets/codegen/llvm/optimize.h"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/IR/PassInstrumentation.h>
#include <llvm/IR/PassTimingInfo.h>
#include <llvm/Pass.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <optional>

#include "core/error.h"

namespace kiln::llvm_backend {

void verify_module(const llvm::Module& m, const std::string& function) {
  std::string msg;
  llvm::raw_string_ostream os(msg);
  if (llvm::verifyModule(m, &os)) {
    os.flush();
    throw InternalError("llvm verifier rejected the code generated for '" + function + "': " + msg);
  }
}

void optimize_module(llvm::Module& m, llvm::TargetMachine& tm, Pipeline pipeline) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  const bool o3 = pipeline == Pipeline::kO3;
  llvm::PipelineTuningOptions pto;
  pto.LoopVectorization = true;
  pto.SLPVectorization = true;
  pto.LoopUnrolling = true;
  llvm::PassInstrumentationCallbacks callbacks;
  if (!o3) {
    callbacks.registerShouldRunOptionalPassCallback([](llvm::StringRef pass, llvm::Any ir) {
      if (pass == "LoopIdiomRecognizePass" || pass == "LoopLoadEliminationPass") return false;
      if (pass == "IndVarSimplifyPass")
        if (const auto* loop = llvm::any_cast<const llvm::Loop*>(&ir))
          return (*loop)->getHeader()->getParent()->getInstructionCount() <= kIndVarsMaxFunctionInsts;
      if (pass == "LoopVectorizePass" || pass == "JumpThreadingPass")
        if (const auto* f = llvm::any_cast<const llvm::Function*>(&ir))
          return (*f)->getInstructionCount() <= kLargeFunctionInsts;
      return true;
    });
  }
  // -time-passes (kiln_build_bench --llvm-args): each pass's time, printed
  // to stderr when the module is done.
  std::optional<llvm::TimePassesHandler> timing;
  if (llvm::TimePassesIsEnabled) {
    timing.emplace(true, llvm::TimePassesPerRun);
    timing->registerCallbacks(callbacks);
  }
  llvm::PassBuilder pb(&tm, pto, std::nullopt, &callbacks);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  mpm.run(m, mam);
}

}  // namespace kiln::llvm_backend
