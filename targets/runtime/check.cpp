#include "targets/runtime/check.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "tir/functor.h"
#include "tir/interp/interpreter.h"

namespace kiln {

namespace {

// One element's error; +inf when exactly one of them is NaN.
inline double element_error(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : std::numeric_limits<double>::infinity();
  if (a == b) return 0;  // equal infinities included
  return std::abs(a - b) / std::max(std::abs(b), 1.0);
}

}  // namespace

double max_relative_error(const NDArray& got, const NDArray& want) {
  KILN_ICHECK(got.numel() == want.numel() && got.dtype() == want.dtype()) << "comparing arrays of different types";
  double worst = 0;
  if (got.dtype() == DataType::Float32()) {
    // The common case without a per-element type switch: the runner checks
    // every candidate this way.
    const float* g = got.data_as<float>();
    const float* w = want.data_as<float>();
    for (int64_t i = 0; i < got.numel(); ++i) worst = std::max(worst, element_error(g[i], w[i]));
    return worst;
  }
  for (int64_t i = 0; i < got.numel(); ++i) worst = std::max(worst, element_error(got.get(i), want.get(i)));
  return worst;
}

double check_tolerance(DataType t) {
  if (!t.is_float()) return 0;
  if (t.bits() == 16) return 1e-2;
  return 1e-4;
}

double check_tolerance(const PrimFunc& f) {
  int64_t longest = 1;
  double declared = 0;
  for_each_block(f.body(), [&](const BlockNode* b) {
    if (auto it = b->annotations.find(kCheckToleranceAnn); it != b->annotations.end())
      if (const double* v = as_const_float(it->second)) declared = std::max(declared, *v);
    int64_t terms = 1;
    for (const IterVar& iv : b->iter_vars)
      if (const int64_t* e = as_const_int(iv.dom()->extent); e && iv.is_reduce()) terms *= *e;
    longest = std::max(longest, terms);
  });
  constexpr int64_t kTerms = 1024;
  return std::max(declared, check_tolerance(f.params().back().dtype()) *
                                std::max<double>(1.0, static_cast<double>(longest) / kTerms));
}

std::vector<NDArray> reference_outputs(const PrimFunc& f, const std::vector<NDArray>& inputs) {
  std::vector<NDArray> copies;
  std::vector<HostBuffer> views;
  for (const NDArray& a : inputs) copies.push_back(a.copy());
  for (NDArray& a : copies) views.push_back(a.host_buffer());
  interpret(f, views);
  return copies;
}

}  // namespace kiln
