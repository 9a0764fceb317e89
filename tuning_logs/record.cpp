#include "tuning_logs/record.h"

#include <algorithm>
#include <numeric>

namespace kiln::tuning {

double TuningRecord::mean_secs() const {
  if (run_secs.empty()) return 0;
  return std::accumulate(run_secs.begin(), run_secs.end(), 0.0) / static_cast<double>(run_secs.size());
}

namespace {

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

double TuningRecord::median_secs() const { return median_of(run_secs); }

double TuningRecord::rank_secs() const { return final_secs.empty() ? median_secs() : median_of(final_secs); }

}  // namespace kiln::tuning
