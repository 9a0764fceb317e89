// The file a cost model is saved to: one JSON object, so that a saved model
// can be read, diffed and checked with ordinary tools. Every kind writes the
// fields {"kiln_cost_model": kModelFileVersion, "kind": ...}; the rest
// belongs to the kind.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace kiln::costmodel {

inline constexpr int kModelFileVersion = 1;

// Writes `doc` to a temporary file beside `path` and renames it over `path`,
// so that a crash while saving leaves the previous model whole. Throws
// kiln::Error naming the file.
void write_model_file(const std::string& path, const nlohmann::json& doc);

// Reads the JSON object at `path` and checks the "kiln_cost_model" version.
// Throws kiln::Error naming the file when it is missing, not JSON, or not a
// kiln cost model of this format version.
nlohmann::json read_model_file(const std::string& path);

}  // namespace kiln::costmodel
