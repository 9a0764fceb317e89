#include "core/version.h"

namespace kiln {

// KILN_VERSION is defined for this file alone (core/CMakeLists.txt), so a
// version bump recompiles one file.
const char* kiln_version() { return KILN_VERSION; }

}  // namespace kiln
