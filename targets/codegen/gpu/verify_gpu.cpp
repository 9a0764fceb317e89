#include "targets/codegen/gpu/verify_gpu.h"

#include <set>

#include "core/error.h"
#include "core/functor.h"
#include "tir/buffer_layout.h"
#include "tir/functor.h"
#include "tir/printer.h"
#include "tir/thread_axes.h"
#include "tir/transform/insert_barriers.h"

namespace kiln {
namespace {

const char* kAxis[3] = {"x", "y", "z"};

void check_launch(const GpuKernel& k, const GpuLimits& l) {
  const LaunchDims& d = k.launch;
  for (int i = 0; i < 3; ++i) {
    if (l.max_threads_per_dim[i] > 0 && d.block[i] > l.max_threads_per_dim[i])
      KILN_USER_ERROR() << "kernel " << k.name << ": threadIdx." << kAxis[i] << " has extent " << d.block[i]
                        << ", over the target's " << l.max_threads_per_dim[i];
    if (l.max_blocks_per_dim[i] > 0 && d.grid[i] > l.max_blocks_per_dim[i])
      KILN_USER_ERROR() << "kernel " << k.name << ": blockIdx." << kAxis[i] << " has extent " << d.grid[i]
                        << ", over the target's " << l.max_blocks_per_dim[i];
  }
  if (l.max_threads_per_block > 0 && d.threads_per_block() > l.max_threads_per_block)
    KILN_USER_ERROR() << "kernel " << k.name << " has " << d.threads_per_block() << " threads per block ("
                      << d.block[0] << " x " << d.block[1] << " x " << d.block[2] << "), over the target's "
                      << l.max_threads_per_block;
}

void check_memory(const GpuKernel& k, const GpuLimits& l) {
  const int64_t shared = allocated_bytes(k.body, "shared");
  if (shared < 0) KILN_USER_ERROR() << "kernel " << k.name << " has a shared buffer without a constant size";
  if (l.max_shared_memory_per_block > 0 && shared > l.max_shared_memory_per_block)
    KILN_USER_ERROR() << "kernel " << k.name << " uses " << shared << " bytes of shared memory per block, over the target's "
                      << l.max_shared_memory_per_block;
  const int64_t local = allocated_bytes(k.body, "local");
  if (local < 0) KILN_USER_ERROR() << "kernel " << k.name << " has a local buffer without a constant size";
  if (l.max_registers_per_thread > 0 && local > int64_t{4} * l.max_registers_per_thread)
    KILN_USER_ERROR() << "kernel " << k.name << " keeps " << local << " bytes of local buffers per thread, over the "
                      << l.max_registers_per_thread << " registers (" << 4 * l.max_registers_per_thread
                      << " bytes) a thread has";
}

// Barriers every thread of the block reaches: the walk knows which values
// may differ between the block's threads (thread indices, what is computed
// from them, what is loaded from a thread's own memory or at a thread's own
// index) and fails at a barrier that only some could reach.
class BarrierPlacement {
 public:
  explicit BarrierPlacement(const std::string& kernel) : kernel_(kernel) {}

  void visit(const Stmt& s, const std::string& divergent_because) {
    switch (s.kind()) {
      case StmtKind::Barrier:
        if (!divergent_because.empty())
          KILN_USER_ERROR() << "kernel " << kernel_ << ": a barrier " << divergent_because
                            << "; threads that do not reach it would wait forever on those that do";
        return;
      case StmtKind::For: {
        const auto* f = s.as<ForNode>();
        if (f->for_kind == ForKind::kParallel)
          KILN_USER_ERROR() << "kernel " << kernel_ << ": loop " << f->loop_var.name()
                            << " is parallel; on a GPU bind it to blockIdx or threadIdx instead";
        std::string why = divergent_because;
        if (f->for_kind == ForKind::kThreadBinding && is_thread_index_tag(f->thread_tag)) {
          varying_.insert(f->loop_var.get());
        } else if (varies(f->min) || varies(f->extent)) {
          varying_.insert(f->loop_var.get());
          if (why.empty()) why = "is in loop " + f->loop_var.name() + ", whose bounds differ between threads";
        }
        return visit(f->body, why);
      }
      case StmtKind::IfThenElse: {
        const auto* op = s.as<IfThenElseNode>();
        std::string why = divergent_because;
        if (why.empty() && varies(op->condition))
          why = "is under `if " + to_string(op->condition) + "`, which differs between threads";
        visit(op->then_case, why);
        if (op->else_case.defined()) visit(op->else_case, why);
        return;
      }
      case StmtKind::LetStmt: {
        const auto* op = s.as<LetStmtNode>();
        if (varies(op->value)) varying_.insert(op->var.get());
        return visit(op->body, divergent_because);
      }
      case StmtKind::SeqStmt:
        for (const Stmt& c : s.as<SeqStmtNode>()->seq) visit(c, divergent_because);
        return;
      case StmtKind::Allocate: return visit(s.as<AllocateNode>()->body, divergent_because);
      default: return;
    }
  }

 private:
  bool varies(const Expr& e) const {
    bool v = false;
    post_order_visit(e, [&](const Expr& x) {
      if (const auto* var = x.as<VarNode>(); var && varying_.count(var)) v = true;
      if (const auto* ld = x.as<BufferLoadNode>(); ld && ld->buffer->scope == "local") v = true;
    });
    return v;
  }

  const std::string& kernel_;
  std::set<const Object*> varying_;
};

void check_barriers(const GpuKernel& k) {
  BarrierPlacement(k.name).visit(k.body, "");
  std::vector<MissingBarrier> missing = missing_barriers(k.body);
  if (missing.empty()) return;
  const MissingBarrier& m = missing.front();
  const std::string text = first_line(m.stmt);
  if (m.end_of_loop)
    KILN_USER_ERROR() << "kernel " << k.name << ": shared buffer " << m.buffer.name()
                      << " is accessed by one iteration of `" << text
                      << "` and overwritten or read by the next with no barrier between";
  KILN_USER_ERROR() << "kernel " << k.name << ": shared buffer " << m.buffer.name()
                    << " is written by some threads and accessed by others with no barrier before `" << text << "`";
}

}  // namespace

int64_t allocated_bytes(const Stmt& kernel, const std::string& scope) {
  int64_t total = 0;
  post_order_visit(kernel, [&](const Stmt& s) {
    const auto* a = s.as<AllocateNode>();
    if (!a || a->buffer->scope != scope || total < 0) return;
    const int64_t n = constant_numel(a->buffer);
    total = n < 0 ? -1 : total + n * a->buffer.dtype().bytes() * a->buffer.dtype().lanes();
  });
  return total;
}

void verify_gpu(const GpuProgram& p, const GpuLimits& limits) {
  for (const GpuKernel& k : p.kernels) {
    check_launch(k, limits);
    check_memory(k, limits);
    check_barriers(k);
  }
}

}  // namespace kiln
