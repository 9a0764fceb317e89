// A tuning job's progress as JSON: what `kiln tune-op --curve` writes per
// round, and what a farm's job shows (`kiln job status --json`).
#pragma once

#include <nlohmann/json.hpp>

#include "search/tuner.h"

namespace kiln::search {

nlohmann::json progress_json(const TuneProgress& p);

}  // namespace kiln::search
