// Whole files as bytes: models, traces, keys, artifacts, linker output.
#pragma once

#include <string>

namespace kiln {

// The bytes of the file at `path`. Throws kiln::Error ("cannot read WHAT
// 'PATH'") when it cannot be opened or read; `what` names the file for the
// user ("trace file", "the tokens file").
std::string read_file(const std::string& path, const std::string& what = "file");

}  // namespace kiln
