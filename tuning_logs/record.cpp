#include "tuning_logs/record.h"

#include <algorithm>
#include <cstdio>
#include <numeric>

#include "core/error.h"

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

ErrorKind stored_error_kind(const std::string& name, int64_t record_id) {
  std::optional<ErrorKind> k = parse_error_kind(name);
  if (!k) {
    if (record_id > 0) KILN_USER_ERROR() << "record " << record_id << " has an unknown error kind '" << name << "'";
    KILN_USER_ERROR() << "record with an unknown error kind '" << name << "'";
  }
  return *k;
}

std::string trace_hash(const std::string& trace_json) {
  uint64_t h = 1469598103934665603ULL;  // FNV-1a
  for (char c : trace_json) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace kiln::tuning
