#include "tir/schedule/auto_bind.h"

#include <algorithm>

#include "tir/functor.h"
#include "tir/schedule/block_util.h"
#include "tir/schedule/locate.h"

namespace kiln {
namespace {

bool has_binding(const Stmt& s) {
  bool bound = false;
  post_order_visit(s, [&](const Stmt& x) {
    if (const auto* f = x.as<ForNode>(); f && f->for_kind == ForKind::kThreadBinding) bound = true;
  });
  return bound;
}

// The first block of each top-level loop nest that has no bound loop.
std::vector<std::string> unbound_nests(const PrimFunc& f) {
  std::vector<std::string> out;
  const auto* root = f.body().as<BlockRealizeNode>();
  const Stmt& body = root ? block_of(f.body())->body : f.body();
  std::vector<Stmt> nests;
  if (const auto* q = body.as<SeqStmtNode>())
    nests = q->seq;
  else
    nests = {body};
  for (const Stmt& n : nests) {
    if (!n.as<ForNode>() || has_binding(n)) continue;
    std::vector<Stmt> blocks = child_block_realizes(n);
    if (!blocks.empty()) out.push_back(block_of(blocks.front())->name);
  }
  return out;
}

}  // namespace

void auto_bind(Schedule& sch, int64_t threads) {
  for (const std::string& name : unbound_nests(sch.func())) {
    std::vector<LoopRV> loops = sch.get_loops(sch.get_block(name));
    std::vector<LoopRV> lead;
    int64_t extent = 1;
    for (const LoopRV& l : loops) {
      const Stmt s = sch.loop_stmt(l, "auto_bind");
      const int64_t* e = as_const_int(s.as<ForNode>()->extent);
      if (!e || !is_data_parallel(s)) break;
      lead.push_back(l);
      extent *= *e;
    }
    if (lead.empty()) continue;
    LoopRV fused = lead.size() == 1 ? lead[0] : sch.fuse(lead);
    const int64_t t = std::max<int64_t>(1, std::min(threads, extent));
    std::vector<LoopRV> parts = sch.split(fused, {kInfer, t});
    sch.bind(parts[0], "blockIdx.x");
    sch.bind(parts[1], "threadIdx.x");
  }
}

PrimFunc default_gpu_program(const PrimFunc& f, int64_t threads) {
  Schedule sch(f);
  auto_bind(sch, threads);
  return sch.func();
}

}  // namespace kiln
