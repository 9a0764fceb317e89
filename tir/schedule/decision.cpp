#include "tir/schedule/decision.h"

#include "core/error.h"

namespace kiln {
namespace {

int64_t read_int(const nlohmann::json& j, const char* what) {
  if (!j.is_number_integer()) KILN_USER_ERROR() << what << " must be an integer, got " << j.dump();
  return j.get<int64_t>();
}

}  // namespace

nlohmann::json decision_json(const Decision& d) {
  if (const auto* t = std::get_if<TileDecision>(&d)) {
    nlohmann::json j = t->factors;
    if (!t->factors.empty() && t->factors[0] == TileDecision::kInferred) j[0] = nullptr;
    return j;
  }
  if (const auto* c = std::get_if<CategoricalDecision>(&d)) return c->index;
  if (const auto* l = std::get_if<LocationDecision>(&d)) return l->location;
  return nullptr;
}

Decision read_tile_decision(const nlohmann::json& j, bool outermost_may_be_null) {
  if (j.is_null()) return {};
  const char* what = outermost_may_be_null ? "a tile decision (integers, the first of them may be null)"
                                           : "a tile decision (integers)";
  if (!j.is_array()) KILN_USER_ERROR() << "expected " << what << ", got " << j.dump();
  TileDecision t;
  for (size_t k = 0; k < j.size(); ++k) {
    if (k == 0 && outermost_may_be_null && j[k].is_null()) {
      t.factors.push_back(TileDecision::kInferred);
    } else if (j[k].is_number_integer()) {
      t.factors.push_back(j[k].get<int64_t>());
    } else {
      KILN_USER_ERROR() << "expected " << what << ", got " << j.dump();
    }
  }
  return t;
}

Decision read_categorical_decision(const nlohmann::json& j) {
  if (j.is_null()) return {};
  return CategoricalDecision{read_int(j, "a categorical decision")};
}

Decision read_location_decision(const nlohmann::json& j) {
  if (j.is_null()) return {};
  return LocationDecision{read_int(j, "a compute location decision")};
}

}  // namespace kiln
