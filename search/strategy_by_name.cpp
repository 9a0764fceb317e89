#include "search/strategy_by_name.h"

#include "costmodel/cost_model.h"
#include "costmodel/features.h"
#include "costmodel/random_model.h"
#include "costmodel/xgb_model.h"
#include "search/evolutionary.h"

namespace kiln::search {
namespace {

std::unique_ptr<costmodel::CostModel> make_model(const std::string& which, uint64_t seed) {
  if (which == "random") return costmodel::make_random_model(seed);
  if (which == "xgb")
    // One XGBoost thread, whatever the search's: an OpenMP team's idle
    // threads spin after each call, and the runner times kernels right
    // after the model learns (a job's final measurement follows its last
    // update). With two, a tuned conv2d 28² read 0.34 ms in its final
    // measurement and 0.28 ms in kiln bench-op; with OMP_WAIT_POLICY=active,
    // 0.74 ms; with one, 0.296 and 0.30 (Xeon, 2 vCPUs; docs/measurement.md).
    return costmodel::make_xgb_model({.feature_version = costmodel::kFeatureVersion,
                                      .feature_length = costmodel::kFeatureLength,
                                      .nthread = 1,
                                      .seed = seed});
  return costmodel::load_cost_model(which, costmodel::kFeatureVersion);
}

}  // namespace

std::unique_ptr<SearchStrategy> make_strategy(const std::string& strategy, const std::string& cost_model, uint64_t seed,
                                              int threads) {
  if (strategy == "random") return make_random_search(threads);
  return make_evolutionary_search(make_model(cost_model, seed), {.threads = threads});
}

}  // namespace kiln::search
