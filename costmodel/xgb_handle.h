// A thin RAII layer over libxgboost's C API for xgb_model.cpp: a dense
// matrix and a booster, with every failed call turned into kiln::Error
// carrying XGBoost's own message.
#pragma once

#include <xgboost/c_api.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::costmodel {

// Throws kiln::Error "<what>: <XGBoost's last error message>" unless rc is 0.
void xgb_check(int rc, const char* what);

// A copy of `num_rows` x `num_cols` floats, row-major, for training.
class XgbMatrix {
 public:
  XgbMatrix(const float* data, uint64_t num_rows, int num_cols, int nthread);
  ~XgbMatrix();
  XgbMatrix(const XgbMatrix&) = delete;
  XgbMatrix& operator=(const XgbMatrix&) = delete;

  DMatrixHandle get() const { return m_; }
  uint64_t num_rows() const { return num_rows_; }

 private:
  DMatrixHandle m_ = nullptr;
  uint64_t num_rows_;
};

class XgbBooster {
 public:
  // An empty booster; `train`, when given, is the matrix it will be trained
  // on, whose predictions XGBoost then caches between rounds.
  explicit XgbBooster(const XgbMatrix* train);
  ~XgbBooster();
  XgbBooster(const XgbBooster&) = delete;
  XgbBooster& operator=(const XgbBooster&) = delete;

  void set_param(const std::string& name, const std::string& value);
  // XGBoost's own JSON model format, which keeps every float exactly.
  void load_json(const std::string& model);
  std::string save_json() const;
  uint64_t num_features() const;

  // One round of boosting with a gradient and hessian per row of `train`.
  void boost(const XgbMatrix& train, std::vector<float>& grad, std::vector<float>& hess);
  // The raw per-row output (the sum over trees) for the training rows, as
  // the objective needs it between rounds.
  std::vector<float> predict_training(const XgbMatrix& train) const;
  // The raw per-row output for `num_rows` x `num_cols` floats, read in place
  // without a copy into a matrix.
  std::vector<float> predict(const float* data, uint64_t num_rows, int num_cols) const;

 private:
  BoosterHandle b_ = nullptr;
};

}  // namespace kiln::costmodel
