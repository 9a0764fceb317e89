// Reusing a tuning database: the best schedule it holds for a function on a
// target, the way `kiln bench-op --db` and `kiln print --db` compile it.
#pragma once

#include <optional>
#include <string>

#include "tuning_logs/database.h"
#include "tir/stmt.h"

namespace kiln::tuning {

// The fastest valid record of f's workload (by workload key) on exactly
// `target` (a canonical target string); nullopt when there is none.
std::optional<TuningRecord> best_record(Database& db, const PrimFunc& f, const std::string& target);

// What to tell a user who got nothing: "the database holds no record of
// WORKLOAD; ..." naming the targets it does hold for it, if any.
std::string no_record_message(Database& db, const PrimFunc& f, const std::string& target);

}  // namespace kiln::tuning
