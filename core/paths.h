// Where kiln finds what it runs besides itself: its files that are not
// code (the WebAssembly loader and engine, targets/wasm/) in share/kiln/
// beside the bin/ folder of the kiln executable, which is how the build tree
// and an installed prefix are laid out alike; and other programs (node,
// qemu-aarch64) on PATH.
#pragma once

#include <string>

namespace kiln {

// $KILN_SHARE_DIR if set; else share/kiln beside the folder of $KILN_BINARY
// (a program run from elsewhere, such as Python) or of this executable.
std::string kiln_share_dir();

// The file `name` there; throws kiln::Error naming the path when it is
// missing (a kiln built without it, or moved apart from it).
std::string kiln_share_file(const std::string& name);

// The executable `name` in the first folder of $PATH that has it; empty
// when none does.
std::string find_on_path(const std::string& name);

}  // namespace kiln
