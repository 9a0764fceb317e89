#include "targets/runtime/arguments.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "core/error.h"

namespace kiln {

int64_t ArgSpec::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::vector<ArgSpec> arg_specs(const PrimFunc& f) {
  std::vector<ArgSpec> specs;
  const auto& params = f.params();
  for (size_t i = 0; i < params.size(); ++i) {
    ArgSpec s{params[i].name(), params[i].dtype(), {}, i + 1 == params.size()};
    for (const Expr& e : params[i].shape()) {
      const int64_t* c = as_const_int(e);
      KILN_ICHECK(c) << "parameter " << params[i].name() << " has a non-constant shape";
      s.shape.push_back(*c);
    }
    specs.push_back(std::move(s));
  }
  return specs;
}

std::vector<NDArray> make_arguments(const std::vector<ArgSpec>& specs, uint64_t seed) {
  std::vector<NDArray> args;
  args.reserve(specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    NDArray a(specs[i].dtype, specs[i].shape);
    if (!specs[i].is_output) {
      DataType t = specs[i].dtype;
      if (t.is_float()) a.fill_random(seed + i, -1.0, 1.0);
      else if (t.is_bool()) a.fill_random(seed + i, 0.0, 1.0);
      else if (t.is_uint()) a.fill_random(seed + i, 0.0, 8.0);
      else a.fill_random(seed + i, -4.0, 4.0);
    }
    args.push_back(std::move(a));
  }
  return args;
}

std::vector<NDArray> make_arguments(const PrimFunc& f, uint64_t seed) { return make_arguments(arg_specs(f), seed); }

void poison(NDArray& a) {
  if (a.dtype() == DataType::Float32()) {
    std::fill_n(a.data_as<float>(), a.numel(), std::numeric_limits<float>::quiet_NaN());
  } else if (a.dtype().is_float()) {
    for (int64_t i = 0; i < a.numel(); ++i) a.set(i, std::numeric_limits<double>::quiet_NaN());
  } else {
    std::memset(a.data(), 0x5A, a.nbytes());
  }
}

}  // namespace kiln
