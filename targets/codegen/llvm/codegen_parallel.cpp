// Parallel loops: the loop becomes a task function that the runtime calls
// once per thread through rt->parallel_launch.
//
//   parent:  closure = {rt, min, extent, captured values...}   (stack)
//            status = rt->parallel_launch(rt->pool, task, &closure, extent)
//   task(t, n, closure):
//            lo = extent * t / n, hi = extent * (t + 1) / n   (balanced, never empty)
//            return par(rt, min + lo, min + hi, captures...)
//   par:     for (i = lo; i < hi; ++i) body          (buffers arrive noalias)
//
// The captures are the variables and buffers the body uses that are bound
// outside it, in order of first use, so the generated IR is deterministic.
#include <unordered_set>

#include "targets/codegen/llvm/codegen_impl.h"
#include "tir/functor.h"

namespace kiln::llvm_backend {
namespace {

std::vector<CodeGen::Capture> collect_captures(CodeGen& cg, const Stmt& body) {
  std::vector<CodeGen::Capture> caps;
  std::unordered_set<const Object*> seen;
  auto buffer = [&](const Buffer& buf) {
    const BufferNode* b = &*buf;
    if (cg.buffers_.count(b) && seen.insert(b).second) caps.push_back({nullptr, b, nullptr, b->name});
  };
  auto on_expr = [&](const Expr& e) {
    if (const auto* v = e.as<VarNode>()) {
      if (cg.vars_.count(v) && seen.insert(v).second)
        caps.push_back({v, nullptr, cg.reg_type(v->dtype), v->name});
    } else if (const auto* load = e.as<BufferLoadNode>()) {
      buffer(load->buffer);
    }
  };
  post_order_visit(body, [&](const Stmt& s) {
    if (const auto* store = s.as<BufferStoreNode>()) {
      buffer(store->buffer);
    } else if (const auto* fetch = s.as<PrefetchNode>()) {
      buffer(fetch->buffer);
    } else if (const auto* alloc = s.as<AllocateNode>()) {
      // The allocated buffer is the body's own, but its size may use outer variables.
      for (const Expr& e : alloc->buffer->shape) post_order_visit(e, on_expr);
    }
  });
  visit_exprs(body, on_expr);
  for (CodeGen::Capture& c : caps)
    if (c.buffer) c.type = cg.b_.getPtrTy();
  return caps;
}

}  // namespace

void CodeGen::emit_parallel_for(const ForNode* op) {
  const std::string base = symbol_ + ".par" + std::to_string(outlined_count_++);
  std::vector<Capture> caps = collect_captures(*this, op->body);
  llvm::Type* lvt = reg_type(op->loop_var->dtype);

  llvm::Function* par = emit_function(base, {lvt, lvt}, caps, [&](llvm::Function* fn) {
    emit_loop(op, fn->getArg(1), fn->getArg(2));
  });

  std::vector<llvm::Type*> fields = {b_.getPtrTy(), lvt, lvt};
  for (const Capture& c : caps) fields.push_back(c.type);
  llvm::StructType* closure_ty = llvm::StructType::get(ctx_, fields);

  // The task function.
  auto* task_ty = llvm::FunctionType::get(b_.getInt32Ty(), {b_.getInt64Ty(), b_.getInt64Ty(), b_.getPtrTy()}, false);
  auto* task = llvm::Function::Create(task_ty, llvm::Function::InternalLinkage, base + ".task", module_);
  set_function_attributes(task);
  {
    llvm::IRBuilder<> tb(llvm::BasicBlock::Create(ctx_, "entry", task));
    llvm::Value* t = task->getArg(0);
    llvm::Value* n = task->getArg(1);
    llvm::Value* closure = task->getArg(2);
    t->setName("task");
    n->setName("num_tasks");
    closure->setName("closure");
    std::vector<llvm::Value*> loaded;
    for (unsigned i = 0; i < fields.size(); ++i)
      loaded.push_back(tb.CreateLoad(fields[i], tb.CreateStructGEP(closure_ty, closure, i)));
    llvm::Value* extent = tb.CreateSExt(loaded[2], tb.getInt64Ty());
    llvm::Value* lo = tb.CreateSDiv(tb.CreateMul(extent, t), n);
    llvm::Value* hi = tb.CreateSDiv(tb.CreateMul(extent, tb.CreateAdd(t, tb.getInt64(1))), n);
    lo = tb.CreateAdd(loaded[1], tb.CreateTrunc(lo, lvt), "lo");
    hi = tb.CreateAdd(loaded[1], tb.CreateTrunc(hi, lvt), "hi");
    std::vector<llvm::Value*> args = {loaded[0], lo, hi};
    args.insert(args.end(), loaded.begin() + 3, loaded.end());
    tb.CreateRet(tb.CreateCall(par, args));
  }

  // The launch, in the parent.
  llvm::Value* min = emit(op->min);
  llvm::Value* extent = emit(op->extent);
  llvm::AllocaInst* closure = entry_alloca(closure_ty, 1, 8, base + ".closure");
  std::vector<llvm::Value*> values = {fs_.rt, min, extent};
  for (const Capture& c : caps) values.push_back(c.var ? vars_.at(c.var) : buffers_.at(c.buffer));
  for (unsigned i = 0; i < values.size(); ++i) b_.CreateStore(values[i], b_.CreateStructGEP(closure_ty, closure, i));
  auto* launch_ty = llvm::FunctionType::get(
      b_.getInt32Ty(), {b_.getPtrTy(), b_.getPtrTy(), b_.getPtrTy(), b_.getInt64Ty()}, false);
  llvm::Value* status = b_.CreateCall(launch_ty, runtime_field(kRtParallelLaunch),
                                      {runtime_field(kRtPool), task, closure, b_.CreateSExt(extent, b_.getInt64Ty())});
  emit_status_check(status);
}

}  // namespace kiln::llvm_backend
