#include "costmodel/xgb_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "costmodel/model_file.h"
#include "costmodel/xgb_handle.h"

namespace kiln::costmodel {
namespace {

using nlohmann::json;

// A round improves the loss when it lowers the best loss so far by this fraction.
constexpr double kMinImprovement = 1e-3;

void configure(XgbBooster& b, const XgbOptions& o) {
  auto number = [](double v) { return json(v).dump(); };
  b.set_param("booster", "gbtree");
  b.set_param("tree_method", "hist");
  b.set_param("max_depth", std::to_string(o.max_depth));
  b.set_param("eta", number(o.eta));
  b.set_param("min_child_weight", number(o.min_child_weight));
  b.set_param("gamma", number(o.gamma));
  b.set_param("nthread", std::to_string(o.nthread));
  b.set_param("seed", std::to_string(o.seed));
  // Rows start from 0, so a program's score is the sum of what its trees say.
  b.set_param("base_score", "0");
  b.set_param("disable_default_eval_metric", "1");
  b.set_param("verbosity", "0");
}

json params_to_json(const XgbOptions& o) {
  return {{"nthread", o.nthread},     {"rounds", o.rounds}, {"early_stop_rounds", o.early_stop_rounds},
          {"max_depth", o.max_depth}, {"eta", o.eta},       {"min_child_weight", o.min_child_weight},
          {"gamma", o.gamma},         {"seed", o.seed}};
}

XgbOptions options_from_json(const json& doc) {
  XgbOptions o;
  o.feature_version = doc.at("feature_version").get<int>();
  o.feature_length = doc.at("feature_length").get<int>();
  const json& p = doc.at("params");
  o.nthread = p.at("nthread").get<int>();
  o.rounds = p.at("rounds").get<int>();
  o.early_stop_rounds = p.at("early_stop_rounds").get<int>();
  o.max_depth = p.at("max_depth").get<int>();
  o.eta = p.at("eta").get<double>();
  o.min_child_weight = p.at("min_child_weight").get<double>();
  o.gamma = p.at("gamma").get<double>();
  o.seed = p.at("seed").get<uint64_t>();
  return o;
}

class XgbModel final : public CostModel {
 public:
  explicit XgbModel(const XgbOptions& o) : o_(o) {
    KILN_ICHECK(o.feature_length > 0) << "feature length " << o.feature_length;
  }

  // Takes over a saved booster, as trained on `num_trained` programs.
  void adopt(const std::string& booster, int64_t num_trained) {
    auto b = std::make_unique<XgbBooster>(nullptr);
    b->load_json(booster);
    if (b->num_features() != static_cast<uint64_t>(o_.feature_length))
      KILN_USER_ERROR() << "corrupt XGBoost cost model: its booster takes " << b->num_features() << " features, not "
                        << o_.feature_length;
    configure(*b, o_);
    booster_ = std::move(b);
    num_trained_ = num_trained;
  }

  void update(const std::vector<ProgramFeatures>& programs, const std::vector<double>& throughput) override {
    KILN_ICHECK(programs.size() == throughput.size())
        << programs.size() << " programs, " << throughput.size() << " throughputs";
    rows_.clear();
    rows_per_program_.clear();
    labels_.clear();
    seen_ = 0;
    for (size_t i = 0; i < programs.size(); ++i) {
      KILN_ICHECK(std::isfinite(throughput[i]) && throughput[i] >= 0) << "throughput " << throughput[i];
      check_layout(programs[i]);
      ++seen_;
      // A program without stores has no row to learn from; it scores 0.
      if (programs[i].rows.empty()) continue;
      rows_.insert(rows_.end(), programs[i].rows.begin(), programs[i].rows.end());
      rows_per_program_.push_back(programs[i].num_rows());
      labels_.push_back(throughput[i]);
    }
    if (!labels_.empty()) train();
  }

  std::vector<double> predict(const std::vector<ProgramFeatures>& programs) const override {
    std::vector<double> scores(programs.size(), 0.0);
    if (!booster_) return scores;
    std::vector<float> rows;
    for (const ProgramFeatures& p : programs) {
      check_layout(p);
      rows.insert(rows.end(), p.rows.begin(), p.rows.end());
    }
    uint64_t num_rows = rows.size() / o_.feature_length;
    if (num_rows == 0) return scores;
    std::vector<float> out = booster_->predict(rows.data(), num_rows, o_.feature_length);
    size_t r = 0;
    for (size_t i = 0; i < programs.size(); ++i)
      for (int k = programs[i].num_rows(); k > 0; --k) scores[i] += out[r++];
    return scores;
  }

  void save(const std::string& path) const override {
    write_model_file(path, {{"kiln_cost_model", kModelFileVersion},
                            {"kind", kind()},
                            {"feature_version", o_.feature_version},
                            {"feature_length", o_.feature_length},
                            {"num_trained", num_trained_},
                            {"params", params_to_json(o_)},
                            {"booster", booster_ ? json(booster_->save_json()) : json(nullptr)}});
  }

  std::string kind() const override { return "xgb"; }
  int64_t num_trained() const override { return num_trained_; }
  bool ranks() const override { return booster_ != nullptr; }

 private:
  void check_layout(const ProgramFeatures& p) const {
    KILN_ICHECK(p.rows.empty() || p.length == o_.feature_length)
        << "rows of " << p.length << " features, the model takes " << o_.feature_length;
    KILN_ICHECK(p.rows.size() % o_.feature_length == 0) << p.rows.size() << " floats do not make whole rows";
  }

  // Fits a fresh booster to everything seen, with the pack-sum objective.
  void train() {
    XgbMatrix m(rows_.data(), rows_.size() / o_.feature_length, o_.feature_length, o_.nthread);
    auto b = std::make_unique<XgbBooster>(&m);
    configure(*b, o_);
    std::vector<float> grad(m.num_rows()), hess(m.num_rows());
    double best = std::numeric_limits<double>::infinity();
    for (int round = 0, stale = 0; round < o_.rounds; ++round) {
      std::vector<float> pred = b->predict_training(m);
      double loss = 0;
      size_t r = 0;
      for (size_t p = 0; p < labels_.size(); ++p) {
        double sum = 0;
        for (int k = 0; k < rows_per_program_[p]; ++k) sum += pred[r + k];
        double w = std::max(labels_[p], kMinWeight);
        double diff = sum - labels_[p];
        loss += w * diff * diff;
        std::fill_n(grad.begin() + r, rows_per_program_[p], static_cast<float>(2 * w * diff));
        std::fill_n(hess.begin() + r, rows_per_program_[p], static_cast<float>(2 * w * rows_per_program_[p]));
        r += rows_per_program_[p];
      }
      if (loss < best * (1 - kMinImprovement)) {
        best = loss;
        stale = 0;
      } else if (++stale == o_.early_stop_rounds) {
        break;
      }
      b->boost(m, grad, hess);
    }
    booster_ = std::move(b);
    num_trained_ = seen_;
  }

  XgbOptions o_;
  // Every program seen since the model was made or loaded: its rows, how
  // many rows each program has, and its throughput.
  std::vector<float> rows_;
  std::vector<int> rows_per_program_;
  std::vector<double> labels_;
  int64_t seen_ = 0;
  int64_t num_trained_ = 0;
  // Null until trained or loaded.
  std::unique_ptr<XgbBooster> booster_;
};

}  // namespace

std::unique_ptr<CostModel> make_xgb_model(const XgbOptions& o) { return std::make_unique<XgbModel>(o); }

std::unique_ptr<CostModel> xgb_model_from_json(const json& doc, int expected_feature_version) {
  XgbOptions o;
  int64_t num_trained = 0;
  const json* booster = nullptr;
  try {
    o = options_from_json(doc);
    num_trained = doc.at("num_trained").get<int64_t>();
    booster = &doc.at("booster");
    if (!booster->is_null() && !booster->is_string()) KILN_USER_ERROR() << "corrupt XGBoost model: not a string";
  } catch (const json::exception& e) {
    KILN_USER_ERROR() << "corrupt XGBoost cost model: " << e.what();
  }
  if (expected_feature_version >= 0 && o.feature_version != expected_feature_version)
    KILN_USER_ERROR() << "made for feature version " << o.feature_version << ", this kiln extracts version "
                      << expected_feature_version;
  if (o.feature_length <= 0) KILN_USER_ERROR() << "corrupt XGBoost cost model: feature length " << o.feature_length;
  auto m = std::make_unique<XgbModel>(o);
  if (!booster->is_null()) m->adopt(booster->get<std::string>(), num_trained);
  return m;
}

}  // namespace kiln::costmodel
