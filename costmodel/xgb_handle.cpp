#include "costmodel/xgb_handle.h"

#include <cmath>

#include "core/error.h"

namespace kiln::costmodel {
namespace {

// XGBoost's message without its time stamp, source location and stack trace:
// "[03:07:04] ./src/learner.cc:1008: Invalid model format\nStack trace: ...".
std::string last_error() {
  std::string m = XGBGetLastError();
  m = m.substr(0, m.find('\n'));
  if (m.starts_with('[')) {
    size_t at = m.find(": ", m.find("] "));
    if (at != std::string::npos) m = m.substr(at + 2);
  }
  return m;
}

// Type 1 is the raw margin: the sum over trees, before the objective's
// transform, which the custom objective of xgb_model.cpp works with.
constexpr const char* kPredictTraining =
    R"({"type": 1, "training": true, "iteration_begin": 0, "iteration_end": 0, "strict_shape": false})";
constexpr const char* kPredict = R"({"type": 1, "training": false, "iteration_begin": 0, "iteration_end": 0,
                                     "strict_shape": false, "missing": NaN, "cache_id": 0})";

std::vector<float> copy_out(const bst_ulong* shape, bst_ulong dim, const float* result, uint64_t num_rows) {
  KILN_ICHECK(dim == 1 && shape[0] == num_rows) << "XGBoost returned " << dim << " dimensions";
  return std::vector<float>(result, result + num_rows);
}

}  // namespace

void xgb_check(int rc, const char* what) {
  if (rc != 0) KILN_USER_ERROR() << what << ": " << last_error();
}

XgbMatrix::XgbMatrix(const float* data, uint64_t num_rows, int num_cols, int nthread) : num_rows_(num_rows) {
  xgb_check(XGDMatrixCreateFromMat_omp(data, num_rows, num_cols, NAN, &m_, nthread), "cannot make an XGBoost matrix");
}

XgbMatrix::~XgbMatrix() { XGDMatrixFree(m_); }

XgbBooster::XgbBooster(const XgbMatrix* train) {
  DMatrixHandle cache[1] = {train ? train->get() : nullptr};
  xgb_check(XGBoosterCreate(cache, train ? 1 : 0, &b_), "cannot make an XGBoost booster");
}

XgbBooster::~XgbBooster() { XGBoosterFree(b_); }

void XgbBooster::set_param(const std::string& name, const std::string& value) {
  xgb_check(XGBoosterSetParam(b_, name.c_str(), value.c_str()), "bad XGBoost parameter");
}

void XgbBooster::load_json(const std::string& model) {
  xgb_check(XGBoosterLoadModelFromBuffer(b_, model.data(), model.size()), "corrupt XGBoost model");
}

std::string XgbBooster::save_json() const {
  bst_ulong len = 0;
  const char* data = nullptr;
  xgb_check(XGBoosterSaveModelToBuffer(b_, R"({"format": "json"})", &len, &data), "cannot save the XGBoost model");
  return std::string(data, len);
}

uint64_t XgbBooster::num_features() const {
  bst_ulong n = 0;
  xgb_check(XGBoosterGetNumFeature(b_, &n), "cannot read the XGBoost model");
  return n;
}

void XgbBooster::boost(const XgbMatrix& train, std::vector<float>& grad, std::vector<float>& hess) {
  KILN_ICHECK(grad.size() == train.num_rows() && hess.size() == train.num_rows());
  xgb_check(XGBoosterBoostOneIter(b_, train.get(), grad.data(), hess.data(), grad.size()), "XGBoost training failed");
}

std::vector<float> XgbBooster::predict_training(const XgbMatrix& train) const {
  const bst_ulong* shape = nullptr;
  bst_ulong dim = 0;
  const float* result = nullptr;
  xgb_check(XGBoosterPredictFromDMatrix(b_, train.get(), kPredictTraining, &shape, &dim, &result),
            "XGBoost prediction failed");
  return copy_out(shape, dim, result, train.num_rows());
}

std::vector<float> XgbBooster::predict(const float* data, uint64_t num_rows, int num_cols) const {
  // NumPy's array interface, which is how XGBoost takes a dense matrix in place.
  std::string values = R"({"data": [)" + std::to_string(reinterpret_cast<uintptr_t>(data)) +
                       R"(, true], "shape": [)" + std::to_string(num_rows) + ", " + std::to_string(num_cols) +
                       R"(], "typestr": "<f4", "version": 3})";
  const bst_ulong* shape = nullptr;
  bst_ulong dim = 0;
  const float* result = nullptr;
  xgb_check(XGBoosterPredictFromDense(b_, values.c_str(), kPredict, nullptr, &shape, &dim, &result),
            "XGBoost prediction failed");
  return copy_out(shape, dim, result, num_rows);
}

}  // namespace kiln::costmodel
