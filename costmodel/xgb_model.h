// The learned cost model: gradient-boosted trees (libxgboost) that score
// each buffer store of a program, the program's score being the sum over its
// stores ("pack-sum", as in Ansor and MetaSchedule, written anew). Summing
// lets one model compare programs with any number of stores, and a store's
// share of the sum stands for its share of the running time.
//
// Training minimises sum_p w_p (P_p - y_p)^2 over the programs p, where P_p
// is the summed prediction of p's k_p rows, y_p its normalised throughput
// and w_p = max(y_p, kMinWeight): weighting by throughput spends the model's
// accuracy on the fast programs, the only ones the search keeps (Ansor's
// choice). XGBoost has no such loss, so it is a custom objective: every row
// of p gets the gradient 2 w_p (P_p - y_p) and the hessian 2 w_p k_p. The
// exact hessian of P_p's rows is the k_p x k_p block 2 w_p 11^T, whose
// diagonal (2 w_p, Ansor's choice) understates it k_p times: a leaf holding
// all of p's rows then moves P_p k_p times too far, and with eta k_p >= 2
// training oscillates instead of converging (as measured on programs of 10
// stores). The block's row sums bound it from above, so each round lowers
// the loss.
//
// Each update() retrains from scratch on the programs it is given, which
// the caller passes whole (every valid measurement so far, relabelled
// against the best so far, as Ansor does), for at most `rounds` rounds,
// stopping early once the loss stops improving: the model is then a
// function of the data alone, not of the order of the batches it came in.
// Training is deterministic.
//
// Before any training predict() scores every program 0.
//
// num_trained() counts the programs the current booster learned from.
//
// Saving keeps the booster, not the training rows: those would dominate the
// file (a row per store of every measured program), and a tuning database
// already holds the measurements they came from. So a loaded model predicts
// as saved, and its first update() replaces the loaded booster with one
// trained on the programs given then; to build on earlier jobs, pass their
// records to update() with the new ones.
#pragma once

#include <cstdint>
#include <memory>

#include <nlohmann/json_fwd.hpp>

#include "costmodel/cost_model.h"

namespace kiln::costmodel {

struct XgbOptions {
  // The feature schema the rows follow (features.h); saved with the model.
  int feature_version = 0;
  int feature_length = 0;
  int nthread = 1;
  // At most this many boosting rounds per training ...
  int rounds = 300;
  // ... stopping once this many rounds have not improved the loss by 0.1%
  // (0: never stopping early).
  int early_stop_rounds = 20;
  // Tree parameters, as MetaSchedule sets them.
  int max_depth = 10;
  double eta = 0.2;
  double min_child_weight = 0;
  double gamma = 0.001;
  uint64_t seed = 0;
};

// The smallest weight of a program in the loss, so that slow programs still
// pull their predictions down a little.
inline constexpr double kMinWeight = 0.01;

std::unique_ptr<CostModel> make_xgb_model(const XgbOptions& o);

// The model saved in `doc` (a file of kind "xgb"). Throws kiln::Error,
// without the file name, when it is corrupt or made for another feature
// version than `expected_feature_version` (-1 accepts any).
std::unique_ptr<CostModel> xgb_model_from_json(const nlohmann::json& doc, int expected_feature_version);

}  // namespace kiln::costmodel
