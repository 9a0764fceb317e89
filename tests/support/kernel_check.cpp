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
  SameResults(original).expect(scheduled);
}

SameResults::SameResults(const PrimFunc& original)
    : original_(original),
      inputs_(make_arguments(original, 7)),
      want_(reference_outputs(original, inputs_).back().copy()) {}

void SameResults::expect(const PrimFunc& scheduled) const {
  const double tol = 1e-5;
  EXPECT_LE(max_relative_error(reference_outputs(scheduled, inputs_).back(), want_), tol)
      << "interpreter, scheduled:\n" << scheduled;

  Target target = Target::parse("llvm -num-cores=2");
  PrimFunc lowered = lower(scheduled, target);
  auto kernel = build(lowered, target);
  for (int threads : {1, 2}) {
    ThreadPool pool(threads);
    std::vector<NDArray> args = make_arguments(original_, 7);
    run_kernel(*kernel, args, pool);
    EXPECT_LE(max_relative_error(args.back(), want_), tol)
        << "LLVM on " << threads << " threads, lowered:\n" << lowered;
  }
}

}  // namespace kiln::testing
