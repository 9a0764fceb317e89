// The main() of every bench program: runs it, and turns a kiln::Error (a bad
// workload, a missing file) into one line on stderr and exit status 2.
#pragma once

#include <iostream>

#include "core/error.h"

namespace kiln::bench {

inline int guarded_main(const char* program, int (*run)(int, char**), int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const kiln::Error& e) {
    std::cerr << program << ": error: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace kiln::bench
