#include "tir/schedule/primitive/replay.h"

namespace kiln::replay {
namespace {

[[noreturn]] void fail(const std::string& what) { throw BadArgumentError("replay", what); }

RV handle(const std::vector<InstInput>& in, size_t i, RVKind kind, const char* what) {
  if (i >= in.size()) fail("missing input " + std::to_string(i));
  const RV* rv = std::get_if<RV>(&in[i]);
  if (!rv || rv->kind != kind) fail("input " + std::to_string(i) + " must be a " + what + " handle");
  return *rv;
}

}  // namespace

BlockRV block(const std::vector<InstInput>& in, size_t i) { return {handle(in, i, RVKind::kBlock, "block").id}; }
LoopRV loop(const std::vector<InstInput>& in, size_t i) { return {handle(in, i, RVKind::kLoop, "loop").id}; }

ExprRV expr(const std::vector<InstInput>& in, size_t i) { return {handle(in, i, RVKind::kExpr, "value").id}; }

std::vector<LoopRV> loops(const std::vector<InstInput>& in, size_t from) {
  std::vector<LoopRV> out;
  for (size_t i = from; i < in.size(); ++i) out.push_back(loop(in, i));
  return out;
}

Factor factor(const std::vector<InstInput>& in, size_t i) {
  if (i >= in.size()) fail("missing input " + std::to_string(i));
  if (std::holds_alternative<std::monostate>(in[i])) return kInfer;
  if (const int64_t* v = std::get_if<int64_t>(&in[i])) return Factor(*v);
  return Factor(ExprRV{handle(in, i, RVKind::kExpr, "value").id});
}

void expect_inputs(const std::vector<InstInput>& in, size_t n) {
  if (in.size() != n) fail("expected " + std::to_string(n) + " inputs, got " + std::to_string(in.size()));
}

}  // namespace kiln::replay
