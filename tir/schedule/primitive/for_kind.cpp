// parallel, vectorize, unroll, bind: how a loop's iterations run.
//
// Running iterations at once (parallel, vectorized, thread-bound) is legal
// only when they are independent: every block directly inside the loop may
// use the loop only in the bindings of its spatial axes. A loop that feeds a
// reduction axis carries the accumulator from one iteration to the next.
// Unrolling keeps the order, so it is always legal.
#include <set>

#include "tir/functor.h"
#include "tir/schedule/block_util.h"
#include "tir/schedule/locate.h"
#include "tir/schedule/primitive/replay.h"

namespace kiln {
namespace {

void check_data_parallel(const char* primitive, const Stmt& loop) {
  std::string why;
  if (!is_data_parallel(loop, &why)) throw NotDataParallelError(primitive, why);
}

PrimFunc set_kind(const PrimFunc& f, const Stmt& loop, ForKind kind, const std::string& thread = "") {
  const auto* op = loop.as<ForNode>();
  Stmt l = for_loop(op->loop_var, op->min, op->extent, kind, op->body, thread, op->annotations);
  return f.with_body(replace_stmt(f.body(), loop, l));
}

const std::set<std::string>& thread_tags() {
  static const std::set<std::string> tags{"blockIdx.x",  "blockIdx.y",  "blockIdx.z", "threadIdx.x",
                                          "threadIdx.y", "threadIdx.z", "vthread"};
  return tags;
}

}  // namespace

void Schedule::parallel(LoopRV loop) {
  Stmt l = loop_stmt(loop, "parallel");
  check_data_parallel("parallel", l);
  update(set_kind(func_, l, ForKind::kParallel), "parallel");
  record(inst::parallel, {loop.rv()}, NoAttrs{}, {});
}

void Schedule::vectorize(LoopRV loop) {
  Stmt l = loop_stmt(loop, "vectorize");
  check_data_parallel("vectorize", l);
  update(set_kind(func_, l, ForKind::kVectorized), "vectorize");
  record(inst::vectorize, {loop.rv()}, NoAttrs{}, {});
}

void Schedule::unroll(LoopRV loop) {
  Stmt l = loop_stmt(loop, "unroll");
  update(set_kind(func_, l, ForKind::kUnrolled), "unroll");
  record(inst::unroll, {loop.rv()}, NoAttrs{}, {});
}

void Schedule::bind(LoopRV loop, const std::string& thread) {
  Stmt l = loop_stmt(loop, "bind");
  if (!thread_tags().count(thread))
    throw BadArgumentError("bind", "unknown thread axis '" + thread +
                                       "' (expected blockIdx.x/y/z, threadIdx.x/y/z or vthread)");
  check_data_parallel("bind", l);
  update(set_kind(func_, l, ForKind::kThreadBinding, thread), "bind");
  record(inst::bind, {loop.rv()}, BindAttrs{thread}, {});
}

namespace inst {
namespace {
template <void (Schedule::*Method)(LoopRV)>
std::vector<RV> apply_kind(Schedule& sch, const std::vector<InstInput>& in, const InstAttrs&,
                           const Decision&) {
  replay::expect_inputs(in, 1);
  (sch.*Method)(replay::loop(in, 0));
  return {};
}
}  // namespace

const InstructionKind parallel{"parallel", false, apply_kind<&Schedule::parallel>};
const InstructionKind vectorize{"vectorize", false, apply_kind<&Schedule::vectorize>};
const InstructionKind unroll{"unroll", false, apply_kind<&Schedule::unroll>};
const InstructionKind bind{
    .name = "bind",
    .is_sampling = false,
    .apply = [](Schedule& sch, const std::vector<InstInput>& in, const InstAttrs& attrs, const Decision&) {
      replay::expect_inputs(in, 1);
      sch.bind(replay::loop(in, 0), replay::attrs<BindAttrs>(attrs, "bind").thread);
      return std::vector<RV>{};
    },
    .read_attrs = attrs_from_json<BindAttrs>};
}  // namespace inst
}  // namespace kiln
