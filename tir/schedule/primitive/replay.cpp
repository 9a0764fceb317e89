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

const nlohmann::json& attr(const nlohmann::json& attrs, size_t i) {
  if (!attrs.is_array() || i >= attrs.size()) fail("missing attribute " + std::to_string(i));
  return attrs[i];
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

int64_t attr_int(const nlohmann::json& attrs, size_t i) {
  const nlohmann::json& a = attr(attrs, i);
  if (!a.is_number_integer()) fail("attribute " + std::to_string(i) + " must be an integer, got " + a.dump());
  return a.get<int64_t>();
}

double attr_double(const nlohmann::json& attrs, size_t i) {
  const nlohmann::json& a = attr(attrs, i);
  if (!a.is_number()) fail("attribute " + std::to_string(i) + " must be a number, got " + a.dump());
  return a.get<double>();
}

std::string attr_string(const nlohmann::json& attrs, size_t i) {
  const nlohmann::json& a = attr(attrs, i);
  if (!a.is_string()) fail("attribute " + std::to_string(i) + " must be a string, got " + a.dump());
  return a.get<std::string>();
}

std::vector<int64_t> int_list(const nlohmann::json& j, const char* what) {
  if (!j.is_array()) fail(std::string(what) + " must be a list of integers, got " + j.dump());
  std::vector<int64_t> out;
  for (const auto& e : j) {
    if (!e.is_number_integer()) fail(std::string(what) + " must be a list of integers, got " + j.dump());
    out.push_back(e.get<int64_t>());
  }
  return out;
}

std::vector<double> double_list(const nlohmann::json& j, const char* what) {
  if (!j.is_array()) fail(std::string(what) + " must be a list of numbers, got " + j.dump());
  std::vector<double> out;
  for (const auto& e : j) {
    if (!e.is_number()) fail(std::string(what) + " must be a list of numbers, got " + j.dump());
    out.push_back(e.get<double>());
  }
  return out;
}

AnnValue ann_value(const nlohmann::json& j) {
  if (j.is_number_integer()) return j.get<int64_t>();
  if (j.is_string()) return j.get<std::string>();
  fail("an annotation value must be an integer or a string, got " + j.dump());
}

nlohmann::json ann_json(const AnnValue& v) {
  if (const int64_t* i = std::get_if<int64_t>(&v)) return *i;
  return std::get<std::string>(v);
}

}  // namespace kiln::replay
