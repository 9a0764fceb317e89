// Programs whose speed is a known function of their features, so that a
// test can tell whether a model learned it.
#pragma once

#include <cstdint>
#include <vector>

#include "costmodel/cost_model.h"

namespace kiln::costmodel {

inline constexpr int kSyntheticLength = 8;

struct SyntheticSet {
  std::vector<ProgramFeatures> programs;
  std::vector<double> throughput;
};

// `n` programs of 1 to 4 rows. A row holds uniform floats in [0, 1) and, as
// its last feature, the program's row count (real rows carry the program's
// store count too: summing row scores cannot rank programs otherwise). A
// row costs 0.5 + 3 x0 + 2 x1^2 (the other floats are noise), a program the
// sum over its rows, and its throughput is 1 / cost, scaled so that the
// fastest of the set has 1.
SyntheticSet synthetic_set(int n, uint64_t seed);

// The fraction of pairs with different true throughputs that `scores` put in
// the right order: 1 is a perfect ranking, 0.5 a random one.
double pairwise_accuracy(const std::vector<double>& scores, const std::vector<double>& truth);

}  // namespace kiln::costmodel
