#include "targets/codegen/llvm/build_llvm.h"

#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "targets/codegen/llvm/codegen.h"
#include "targets/codegen/llvm/cpu_info.h"
#include "targets/codegen/llvm/jit_session.h"
#include "targets/codegen/llvm/linker.h"
#include "targets/codegen/llvm/optimize.h"
#include "targets/codegen/llvm/target_machine.h"
#include "targets/codegen/llvm/wasm_runtime.h"
#include "targets/runtime/thread_pool.h"
#include "tir/functor.h"

namespace kiln {
namespace {

// Exported kernels are C functions: their names must be C identifiers.
void check_kernel_name(const PrimFunc& f) {
  const std::string& n = f->name;
  bool ok = !n.empty() && !std::isdigit(static_cast<unsigned char>(n[0]));
  for (char c : n) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  if (!ok) KILN_USER_ERROR() << "kernel name '" << n << "' is not a C identifier";
}

// A loop bound to a GPU thread axis (Schedule::bind) is for the GPU back ends;
// on a CPU it is a schedule that does not fit the target, which the user can
// fix, so it is a user error here rather than a code generator check.
void check_no_thread_bindings(const PrimFunc& f) {
  post_order_visit(f.body(), [&](const Stmt& s) {
    const auto* op = s.as<ForNode>();
    if (op && op->for_kind == ForKind::kThreadBinding)
      KILN_USER_ERROR() << "loop '" << op->loop_var->name << "' of " << f->name << " is bound to " << op->thread_tag
                        << ": the llvm target runs on the CPU and has no GPU thread axes";
  });
}

struct CompiledModule {
  std::unique_ptr<llvm::LLVMContext> ctx;  // declared first: outlives the module
  std::unique_ptr<llvm::TargetMachine> tm;
  std::unique_ptr<llvm::Module> module;
};

CompiledModule compile(const PrimFunc& f, const Target& t, const std::string& symbol, bool optimize) {
  check_kernel_name(f);
  check_no_thread_bindings(f);
  CompiledModule c;
  c.ctx = std::make_unique<llvm::LLVMContext>();
  c.tm = llvm_backend::create_target_machine(t);
  c.module = llvm_backend::generate_module(f, t, *c.tm, *c.ctx, symbol);
  llvm_backend::verify_module(*c.module, f->name);
  if (optimize) llvm_backend::optimize_module(*c.module, *c.tm);
  return c;
}

// The WebAssembly support module (wasm_runtime.h), as compile() makes a
// kernel's: its own context and target machine.
CompiledModule compile_wasm_runtime(const Target& t) {
  CompiledModule c;
  c.ctx = std::make_unique<llvm::LLVMContext>();
  c.tm = llvm_backend::create_target_machine(t);
  c.module = llvm_backend::wasm_runtime_module(t, *c.tm, *c.ctx);
  return c;
}

std::string emit_file(CompiledModule& c, llvm::CodeGenFileType type, const std::string& name) {
  llvm::SmallVector<char, 0> buf;
  llvm::raw_svector_ostream os(buf);
  llvm::legacy::PassManager pm;
  if (c.tm->addPassesToEmitFile(pm, os, nullptr, type))
    throw InternalError("llvm cannot emit code for '" + name + "' on this target");
  pm.run(*c.module);
  return std::string(buf.begin(), buf.end());
}

}  // namespace

std::unique_ptr<CompiledKernel> build_llvm(const PrimFunc& lowered, const Target& target) {
  auto session = llvm_backend::JitSession::for_target(target);
  std::string symbol = session->unique_symbol(lowered->name);
  CompiledModule c = compile(lowered, target, symbol, true);
  return session->add(std::move(c.module), std::move(c.ctx), symbol, lowered->name,
                      CompiledKernel::parse_signature(llvm_backend::kernel_signature(lowered)));
}

void export_shared_library(const PrimFunc& lowered, const Target& target, const std::string& path) {
  export_shared_library(std::vector<PrimFunc>{lowered}, target, path);
}

void export_shared_library(const std::vector<PrimFunc>& lowered, const Target& target, const std::string& path,
                           int threads) {
  if (!target.is_cpu()) KILN_USER_ERROR() << "the llvm back end cannot compile for target kind " << target.kind();
  llvm_backend::linker_for(target.mtriple());  // refuses a triple it cannot link before compiling
  std::set<std::string> names;
  for (const PrimFunc& f : lowered)
    if (!names.insert(f->name).second) KILN_USER_ERROR() << "two kernels called '" << f->name << "' in " << path;
  // One object per function, compiled in parallel (each in its own
  // LLVMContext), linked together.
  struct Objects {
    std::vector<std::string> paths;
    ~Objects() {
      for (const std::string& p : paths) std::filesystem::remove(p);
    }
  } objects;
  for (size_t i = 0; i < lowered.size(); ++i) objects.paths.push_back(path + ".kiln-tmp" + std::to_string(i) + ".o");
  ThreadPool pool(std::max(1, std::min(threads, static_cast<int>(lowered.size()))));
  auto write_object = [](CompiledModule& c, const std::string& name, const std::string& object_path) {
    const std::string object = emit_file(c, llvm::CodeGenFileType::ObjectFile, name);
    std::ofstream out(object_path, std::ios::binary);
    out.write(object.data(), static_cast<std::streamsize>(object.size()));
    if (!out) KILN_USER_ERROR() << "cannot write " << object_path;
  };
  pool.parallel_for_dynamic(static_cast<int64_t>(lowered.size()), [&](int64_t i) {
    const PrimFunc& f = lowered[static_cast<size_t>(i)];
    CompiledModule c = compile(f, target, f->name, true);
    write_object(c, f->name, objects.paths[static_cast<size_t>(i)]);
  });
  if (llvm_backend::is_wasm(target.mtriple())) {
    objects.paths.push_back(path + ".kiln-tmp-runtime.o");
    CompiledModule c = compile_wasm_runtime(target);
    write_object(c, "the WebAssembly runtime", objects.paths.back());
  }
  llvm_backend::link_shared_library(objects.paths, path, target.mtriple(),
                                    llvm_backend::is_wasm(target.mtriple()) && target.num_cores() > 1);
}

std::string emit_llvm_ir(const PrimFunc& lowered, const Target& target, bool optimize) {
  CompiledModule c = compile(lowered, target, lowered->name, optimize);
  std::string s;
  llvm::raw_string_ostream os(s);
  c.module->print(os, nullptr);
  os.flush();
  return s;
}

std::string emit_assembly(const PrimFunc& lowered, const Target& target) {
  CompiledModule c = compile(lowered, target, lowered->name, true);
  return emit_file(c, llvm::CodeGenFileType::AssemblyFile, lowered->name);
}

}  // namespace kiln
