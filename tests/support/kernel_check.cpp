#include "support/kernel_check.h"

#include <gtest/gtest.h>

#include "targets/build.h"
#include "targets/lower.h"
#include "targets/runtime/arguments.h"
#include "targets/runtime/check.h"
#include "targets/runtime/thread_pool.h"
#include "targets/runtime/timing.h"
#include "tir/printer.h"

namespace kiln::testing {

void expect_same_results(const PrimFunc& original, const PrimFunc& scheduled) {
  const std::vector<NDArray> inputs = make_arguments(original, 7);
  const NDArray want = reference_outputs(original, inputs).back().copy();
  const double tol = 1e-5;
  EXPECT_LE(max_relative_error(reference_outputs(scheduled, inputs).back(), want), tol)
      << "interpreter, scheduled:\n" << scheduled;

  Target target = Target::parse("llvm -num-cores=2");
  PrimFunc lowered = lower(scheduled, target);
  auto kernel = build(lowered, target);
  for (int threads : {1, 2}) {
    ThreadPool pool(threads);
    std::vector<NDArray> args = make_arguments(original, 7);
    run_kernel(*kernel, args, pool);
    EXPECT_LE(max_relative_error(args.back(), want), tol)
        << "LLVM on " << threads << " threads, lowered:\n" << lowered;
  }
}

}  // namespace kiln::testing
