// kiln's version (CMake's project version), as runners report it and
// tuning records store it.
#pragma once

namespace kiln {

const char* kiln_version();

}  // namespace kiln
