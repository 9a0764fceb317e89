#include "targets/codegen/gpu/gpu_program.h"

#include <map>

#include "core/error.h"
#include "tir/functor.h"
#include "tir/printer.h"
#include "tir/thread_axes.h"

namespace kiln {
namespace {

bool is_hardware_axis(const ForNode* f) {
  return f && f->for_kind == ForKind::kThreadBinding &&
         (is_block_index_tag(f->thread_tag) || is_thread_index_tag(f->thread_tag));
}

// The grid and block a kernel's bound loops ask for, outer loops first.
class LaunchOf : public StmtVisitor {
 public:
  explicit LaunchOf(const std::string& kernel) : kernel_(kernel) {}
  LaunchDims dims;

  void visit_For(const ForNode* f, const Stmt& s) override {
    if (is_hardware_axis(f)) add(f);
    StmtVisitor::visit_For(f, s);
  }

 private:
  void add(const ForNode* f) {
    const std::string& kernel = kernel_;
    const int64_t* ext = as_const_int(f->extent);
    if (!ext || *ext < 1)
      KILN_USER_ERROR() << "kernel " << kernel << ": loop " << f->loop_var.name() << " bound to " << f->thread_tag
                        << " has extent " << f->extent << "; a launch needs a positive constant";
    auto [it, fresh] = seen.emplace(f->thread_tag, *ext);
    if (!fresh && it->second != *ext)
      KILN_USER_ERROR() << "kernel " << kernel << ": " << f->thread_tag << " is bound to loops of extents "
                        << it->second << " and " << *ext << "; every loop on one axis must have the same extent";
    auto& axes = is_block_index_tag(f->thread_tag) ? dims.grid : dims.block;
    axes[static_cast<size_t>(thread_tag_dim(f->thread_tag))] = *ext;
  }

  const std::string& kernel_;
  std::map<std::string, int64_t> seen;
};

bool has_global_allocate(const Stmt& s, std::string* name) {
  bool found = false;
  post_order_visit(s, [&](const Stmt& x) {
    if (const auto* a = x.as<AllocateNode>(); a && a->buffer->scope == "global") {
      found = true;
      *name = a->buffer.name();
    }
  });
  return found;
}

class Splitter {
 public:
  explicit Splitter(GpuProgram& p) : p_(p) {}

  void top(const Stmt& s) {
    if (is_no_op(s)) return;
    if (const auto* a = s.as<AllocateNode>()) {
      if (a->buffer->scope != "global")
        KILN_USER_ERROR() << "function " << p_.name << ": " << a->buffer->scope << " buffer " << a->buffer.name()
                          << " is allocated outside every kernel; it must be inside the loops bound to blockIdx";
      p_.temps.push_back(a->buffer);
      return top(a->body);
    }
    if (const auto* q = s.as<SeqStmtNode>()) {
      for (const Stmt& c : q->seq) top(c);
      return;
    }
    if (!is_hardware_axis(s.as<ForNode>()))
      KILN_USER_ERROR() << "function " << p_.name << ": `" << first_line(s)
                        << "` is not inside a loop bound to blockIdx or threadIdx; on a GPU target every nest must "
                           "be bound (bind its outer loops, or let the auto-bind rule do it)";
    GpuKernel k;
    k.name = p_.name + "_kernel" + std::to_string(p_.kernels.size());
    std::string global;
    if (has_global_allocate(s, &global))
      KILN_USER_ERROR() << "kernel " << k.name << " allocates global buffer " << global
                        << "; a kernel can allocate only shared and local memory";
    k.body = s;
    LaunchOf launch(k.name);
    launch.visit(s);
    k.launch = launch.dims;
    p_.kernels.push_back(std::move(k));
  }

 private:
  GpuProgram& p_;
};

}  // namespace

std::vector<Buffer> GpuProgram::kernel_args() const {
  std::vector<Buffer> out = params;
  out.insert(out.end(), temps.begin(), temps.end());
  return out;
}

GpuProgram split_kernels(const PrimFunc& lowered) {
  GpuProgram p;
  p.name = lowered.name();
  p.params = lowered.params();
  Splitter(p).top(lowered.body());
  if (p.kernels.empty()) KILN_USER_ERROR() << "function " << p.name << " has no kernel to launch";
  return p;
}

}  // namespace kiln
