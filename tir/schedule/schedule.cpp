#include "tir/schedule/schedule.h"

#include "tir/analysis/verify.h"
#include "tir/schedule/locate.h"

namespace kiln {
namespace {
const char* mark_name(LocationMark m) { return m == LocationMark::kRoot ? "root" : "inline"; }
}  // namespace

Schedule::Schedule(PrimFunc func, ScheduleOptions options)
    : func_(std::move(func)), options_(options), rand_(options.seed) {
  if (options_.verify_each_step) verify(func_);
}

BlockRV Schedule::make_block_rv(std::string name) {
  symbols_.emplace_back(std::move(name));
  return BlockRV{static_cast<int32_t>(symbols_.size() - 1)};
}

LoopRV Schedule::make_loop_rv(Var v) {
  symbols_.emplace_back(std::in_place_index<1>, std::move(v));
  return LoopRV{static_cast<int32_t>(symbols_.size() - 1)};
}

LoopRV Schedule::make_location_rv(LocationMark mark) {
  symbols_.emplace_back(std::in_place_index<1>, mark);
  return LoopRV{static_cast<int32_t>(symbols_.size() - 1)};
}

ExprRV Schedule::make_expr_rv(int64_t value) {
  symbols_.emplace_back(value);
  return ExprRV{static_cast<int32_t>(symbols_.size() - 1)};
}

const Schedule::Symbol& Schedule::symbol(RV rv, RVKind kind) const {
  static const char* const names[] = {"block", "loop", "value"};
  if (rv.id < 0 || static_cast<size_t>(rv.id) >= symbols_.size())
    throw BadArgumentError("schedule", "no " + std::string(names[static_cast<int>(kind)]) + " handle " +
                                           std::to_string(rv.id));
  const Symbol& s = symbols_[rv.id];
  if (s.index() != static_cast<size_t>(kind))
    throw BadArgumentError("schedule", "handle " + std::to_string(rv.id) + " is not a " +
                                           names[static_cast<int>(kind)] + " handle");
  return s;
}

const std::string& Schedule::block_name(BlockRV rv) const {
  return std::get<std::string>(symbol(rv.rv(), RVKind::kBlock));
}
const Var& Schedule::loop_var(LoopRV rv) const {
  const auto& loop = std::get<1>(symbol(rv.rv(), RVKind::kLoop));
  if (const auto* mark = std::get_if<LocationMark>(&loop))
    throw BadArgumentError("schedule", "loop handle " + std::to_string(rv.id) + " names the location '" +
                                           mark_name(*mark) + "', not a loop");
  return std::get<Var>(loop);
}

std::optional<LocationMark> Schedule::location_mark(LoopRV rv) const {
  const auto& loop = std::get<1>(symbol(rv.rv(), RVKind::kLoop));
  if (const auto* mark = std::get_if<LocationMark>(&loop)) return *mark;
  return std::nullopt;
}
int64_t Schedule::value(ExprRV rv) const { return std::get<int64_t>(symbol(rv.rv(), RVKind::kExpr)); }

Located Schedule::block_location(BlockRV rv, const char* primitive) const {
  const std::string& name = block_name(rv);
  auto loc = locate_block(func_.body(), name);
  if (!loc) throw NotFoundError(primitive, "block '" + name + "' is no longer in the function");
  return std::move(*loc);
}

Located Schedule::loop_location(LoopRV rv, const char* primitive) const {
  if (auto mark = location_mark(rv))
    throw BadArgumentError(primitive, std::string("the handle names the location '") + mark_name(*mark) +
                                          "', not a loop");
  const Var& v = loop_var(rv);
  auto loc = locate_loop(func_.body(), v);
  if (!loc) throw NotFoundError(primitive, "loop '" + v.name() + "' is no longer in the function");
  return std::move(*loc);
}

Stmt Schedule::block_stmt(BlockRV rv, const char* primitive) const { return block_location(rv, primitive).stmt; }
Stmt Schedule::loop_stmt(LoopRV rv, const char* primitive) const { return loop_location(rv, primitive).stmt; }

void Schedule::update(PrimFunc f, const char* primitive) {
  if (options_.verify_each_step) {
    if (auto err = verify_error(f)) {
      KILN_ICHECK(false) << primitive << " produced an invalid function: " << *err;
    }
  }
  func_ = std::move(f);
}

void Schedule::record(const InstructionKind& kind, std::vector<InstInput> inputs, InstAttrs attrs,
                      std::vector<RV> outputs, Decision decision) {
  Instruction inst;
  inst.kind = &kind;
  inst.inputs = std::move(inputs);
  inst.attrs = std::move(attrs);
  inst.outputs = std::move(outputs);
  inst.decision = std::move(decision);
  trace_.append(std::move(inst));
}

Schedule apply_trace(const Trace& trace, const PrimFunc& func, ScheduleOptions options) {
  Schedule sch(func, options);
  trace.apply(sch);
  return sch;
}

std::optional<RV> replayed_handle(const Schedule& sch, const Trace& t, const RV& rv) {
  const std::vector<Instruction>& ran = sch.trace().instructions();
  for (size_t i = 0; i < ran.size() && i < t.size(); ++i)
    for (size_t k = 0; k < t.instructions()[i].outputs.size(); ++k)
      if (t.instructions()[i].outputs[k] == rv && k < ran[i].outputs.size()) return ran[i].outputs[k];
  return std::nullopt;
}

}  // namespace kiln
