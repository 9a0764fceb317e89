// The baseline: a model that learns nothing. Search guided by it is random
// search, so comparing a learned model against it shows what learning buys,
// and a test that a learned model must pass shows it can fail.
//
// A program's score is a hash of the seed and its features, mapped to
// [0, 1): unrelated to speed, but a pure function, so predict() is
// reproducible and the same program always scores the same.
#pragma once

#include <cstdint>
#include <memory>

#include <nlohmann/json_fwd.hpp>

#include "costmodel/cost_model.h"

namespace kiln::costmodel {

std::unique_ptr<CostModel> make_random_model(uint64_t seed);

// The model saved in `doc` (a file of kind "random"). Throws kiln::Error,
// without the file name, when a field is missing or of the wrong type.
std::unique_ptr<CostModel> random_model_from_json(const nlohmann::json& doc);

}  // namespace kiln::costmodel
