// Durations on the command line: "90" or "90s", "10m", "1.5h".
#pragma once

#include <string>

namespace kiln::cli {

// Seconds; throws kiln::Error naming the text when it is not a duration.
double parse_duration(const std::string& text);

}  // namespace kiln::cli
