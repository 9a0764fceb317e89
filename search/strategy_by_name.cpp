#include "search/strategy_by_name.h"

#include "costmodel/cost_model.h"
#include "costmodel/features.h"
#include "costmodel/random_model.h"
#include "costmodel/xgb_model.h"
#include "search/evolutionary.h"

namespace kiln::search {
namespace {

std::unique_ptr<costmodel::CostModel> make_model(const std::string& which, uint64_t seed, int threads) {
  if (which == "random") return costmodel::make_random_model(seed);
  if (which == "xgb")
    return costmodel::make_xgb_model({.feature_version = costmodel::kFeatureVersion,
                                      .feature_length = costmodel::kFeatureLength,
                                      .nthread = threads,
                                      .seed = seed});
  return costmodel::load_cost_model(which, costmodel::kFeatureVersion);
}

}  // namespace

std::unique_ptr<SearchStrategy> make_strategy(const std::string& strategy, const std::string& cost_model, uint64_t seed,
                                              int threads) {
  if (strategy == "random") return make_random_search(threads);
  return make_evolutionary_search(make_model(cost_model, seed, threads), {.threads = threads});
}

}  // namespace kiln::search
