#include "synthetic.h"

#include <algorithm>
#include <random>

namespace kiln::costmodel {

SyntheticSet synthetic_set(int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(0, 1);
  std::uniform_int_distribution<int> num_rows(1, 4);
  SyntheticSet s;
  for (int i = 0; i < n; ++i) {
    ProgramFeatures p;
    p.length = kSyntheticLength;
    double cost = 0;
    int rows = num_rows(rng);
    for (int r = 0; r < rows; ++r) {
      for (int k = 0; k + 1 < kSyntheticLength; ++k) p.rows.push_back(uniform(rng));
      p.rows.push_back(static_cast<float>(rows));
      const float* row = &p.rows[p.rows.size() - kSyntheticLength];
      cost += 0.5 + 3 * row[0] + 2 * row[1] * row[1];
    }
    s.programs.push_back(std::move(p));
    s.throughput.push_back(1 / cost);
  }
  double best = *std::max_element(s.throughput.begin(), s.throughput.end());
  for (double& t : s.throughput) t /= best;
  return s;
}

double pairwise_accuracy(const std::vector<double>& scores, const std::vector<double>& truth) {
  int64_t pairs = 0, right = 0;
  for (size_t i = 0; i < truth.size(); ++i)
    for (size_t j = i + 1; j < truth.size(); ++j) {
      if (truth[i] == truth[j]) continue;
      ++pairs;
      if ((scores[i] - scores[j]) * (truth[i] - truth[j]) > 0) ++right;
    }
  return static_cast<double>(right) / pairs;
}

}  // namespace kiln::costmodel
