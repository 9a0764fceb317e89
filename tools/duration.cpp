#include "tools/duration.h"

#include <cmath>
#include <cstdlib>

#include "core/error.h"

namespace kiln::cli {

double parse_duration(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  const std::string unit = end ? std::string(end) : "";
  double scale = 0;
  if (unit.empty() || unit == "s") scale = 1;
  else if (unit == "m") scale = 60;
  else if (unit == "h") scale = 3600;
  if (end == text.c_str() || scale == 0 || !std::isfinite(v) || v <= 0)
    KILN_USER_ERROR() << "'" << text << "' is not a duration (e.g. 90s, 10m, 1.5h)";
  return v * scale;
}

}  // namespace kiln::cli
