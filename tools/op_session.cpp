#include "tools/op_session.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "tir/interp/interpreter.h"
#include "tir/schedule/schedule.h"

namespace kiln {

LowerOptions lower_options_for(const Target& target) {
  LowerOptions o;
  o.max_lanes = target.vector_lanes(DataType::Float32());
  return o;
}

OpProgram prepare_op(const std::string& workload, const Target& target, const PrepareOptions& options) {
  ops::Workload w = ops::parse_workload(workload);
  PrimFunc f = ops::build_workload(w);
  PrimFunc scheduled = options.trace ? apply_trace(*options.trace, f).func() : f;
  LowerOptions o = lower_options_for(target);
  o.after_pass = options.after_pass;
  PrimFunc lowered = lower(scheduled, o);
  return OpProgram{w, target, f, scheduled, lowered};
}

Trace read_trace_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) KILN_USER_ERROR() << "cannot read trace file '" << path << "'";
  std::stringstream text;
  text << in.rdbuf();
  try {
    return Trace::parse(text.str());
  } catch (const Error& e) {
    KILN_USER_ERROR() << path << ": " << e.what();
  }
}

std::vector<NDArray> make_arguments(const PrimFunc& f, uint64_t seed) {
  std::vector<NDArray> args;
  const auto& params = f.params();
  for (size_t i = 0; i < params.size(); ++i) {
    std::vector<int64_t> shape;
    for (const Expr& e : params[i].shape()) {
      const int64_t* c = as_const_int(e);
      KILN_ICHECK(c) << "parameter " << params[i].name() << " has a non-constant shape";
      shape.push_back(*c);
    }
    NDArray a(params[i].dtype(), shape);
    if (i + 1 < params.size()) {
      DataType t = params[i].dtype();
      if (t.is_float()) a.fill_random(seed + i, -1.0, 1.0);
      else if (t.is_bool()) a.fill_random(seed + i, 0.0, 1.0);
      else if (t.is_uint()) a.fill_random(seed + i, 0.0, 8.0);
      else a.fill_random(seed + i, -4.0, 4.0);
    } else {
      std::fill_n(static_cast<char*>(a.data()), a.nbytes(), 0);
    }
    args.push_back(std::move(a));
  }
  return args;
}

std::vector<double> time_kernel(const CompiledKernel& k, std::vector<NDArray>& args, ThreadPool& pool, int repeat,
                                int warmup) {
  std::vector<NDArray*> ptrs;
  for (NDArray& a : args) ptrs.push_back(&a);
  auto run = [&] {
    int32_t status = k.call_arrays(ptrs, pool);
    if (status != 0) KILN_USER_ERROR() << "kernel " << k.name() << " returned status " << status;
  };
  for (int i = 0; i < warmup; ++i) run();
  std::vector<double> times;
  for (int i = 0; i < repeat; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    run();
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return times;
}

std::vector<NDArray> reference_outputs(const PrimFunc& f, const std::vector<NDArray>& inputs) {
  std::vector<NDArray> copies;
  std::vector<HostBuffer> views;
  for (const NDArray& a : inputs) copies.push_back(a.copy());
  for (NDArray& a : copies) views.push_back(a.host_buffer());
  interpret(f, views);
  return copies;
}

double max_relative_error(const NDArray& got, const NDArray& want) {
  KILN_ICHECK(got.numel() == want.numel()) << "comparing arrays of different sizes";
  double worst = 0;
  for (int64_t i = 0; i < got.numel(); ++i) {
    double a = got.get(i), b = want.get(i);
    if (std::isnan(a) || std::isnan(b)) {
      if (std::isnan(a) && std::isnan(b)) continue;
      return std::numeric_limits<double>::infinity();
    }
    if (a == b) continue;  // equal infinities included
    worst = std::max(worst, std::abs(a - b) / std::max(std::abs(b), 1.0));
  }
  return worst;
}

double check_tolerance(DataType t) {
  if (!t.is_float()) return 0;
  if (t.bits() == 16) return 1e-2;
  return 1e-4;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace kiln
