// The cost model ranks candidate programs before any of them is measured, so
// that the search spends measurements on the promising ones. The search sees
// only this interface; the models behind it are the XGBoost model
// (xgb_model.h), which learns from measurements, and the random model
// (random_model.h), the baseline that tells whether learning helps.
//
// A program is described by its features (features.h): one fixed-length row
// per buffer store, so programs of different shapes compare on equal terms.
// Scores are only comparable within one model: they rank, they do not predict
// seconds.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kiln::costmodel {

// The features of one candidate program: one row of `length` floats per
// buffer store, row-major.
struct ProgramFeatures {
  int length = 0;
  std::vector<float> rows;
  int num_rows() const { return length > 0 ? static_cast<int>(rows.size() / length) : 0; }
};

class CostModel {
 public:
  virtual ~CostModel() = default;
  // Learns from measured candidates, replacing what it learned before:
  // the caller passes the whole training set each time (every valid
  // measurement so far), since labels move with the best. throughput[i] is
  // the throughput of programs[i] normalised so that the best one is 1.
  // Failed candidates are never passed: a failure says nothing about speed.
  virtual void update(const std::vector<ProgramFeatures>& programs, const std::vector<double>& throughput) = 0;
  // One score per program, higher is predicted faster. Called on thousands of
  // candidates per search round, so it must stay cheap.
  virtual std::vector<double> predict(const std::vector<ProgramFeatures>& programs) const = 0;
  // Writes one JSON file (see README.md); throws kiln::Error naming the file.
  virtual void save(const std::string& path) const = 0;
  // "xgb" or "random": the "kind" field of the saved file.
  virtual std::string kind() const = 0;
  // How many programs the model's current state was learned from.
  virtual int64_t num_trained() const = 0;
  // Whether predict can tell programs apart. False for a model that has
  // learned nothing yet (XGBoost before its first training scores every
  // program 0): the search then skips lowering and featurizing the
  // candidates it would score, which costs as much as the rest of a round
  // on a space whose programs are large (a Winograd convolution's).
  virtual bool ranks() const { return true; }
};

// Reads a file written by CostModel::save. Throws kiln::Error naming the file
// when it is missing, not a kiln cost model, corrupt, or made for another
// feature version than `expected_feature_version` (-1 accepts any): a model
// must never score rows laid out differently from those it learned.
std::unique_ptr<CostModel> load_cost_model(const std::string& path, int expected_feature_version);

}  // namespace kiln::costmodel
