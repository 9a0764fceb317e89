// The check every integration test makes: a prepared program, compiled with
// LLVM and run on 1 and 2 threads, gives the reference interpreter's output
// for the same seeded inputs.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "driver/op_program.h"

namespace kiln::testing {

inline void expect_llvm_matches_interpreter(const OpProgram& p, const Target& target, const std::string& what) {
  auto kernel = build(p.lowered, target);
  std::vector<NDArray> want = reference_outputs(p.func, make_arguments(p.func, 3));
  for (int threads : {1, 2}) {
    ThreadPool pool(threads);
    std::vector<NDArray> args = make_arguments(p.func, 3);
    run_kernel(*kernel, args, pool);
    EXPECT_LE(max_relative_error(args.back(), want.back()), check_tolerance(p.workload.dtype))
        << what << " on " << threads << " threads";
  }
}

}  // namespace kiln::testing
