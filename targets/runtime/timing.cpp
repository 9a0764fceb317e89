#include "targets/runtime/timing.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "core/error.h"

namespace kiln {
namespace {

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

std::vector<NDArray*> pointers(std::vector<NDArray>& args) {
  std::vector<NDArray*> ptrs;
  ptrs.reserve(args.size());
  for (NDArray& a : args) ptrs.push_back(&a);
  return ptrs;
}

void call(const CompiledKernel& k, const std::vector<NDArray*>& ptrs, ThreadPool& pool) {
  int32_t status = k.call_arrays(ptrs, pool);
  if (status != KILN_STATUS_OK) KILN_USER_ERROR() << "kernel " << k.name() << " returned status " << status;
}

double time_runs(const CompiledKernel& k, const std::vector<NDArray*>& ptrs, ThreadPool& pool, int number) {
  auto t0 = Clock::now();
  for (int i = 0; i < number; ++i) call(k, ptrs, pool);
  return ms_between(t0, Clock::now());
}

// A sample this far under min_repeat_ms is still noise: aim a little over.
constexpr double kRaiseMargin = 1.1;
constexpr int kMaxNumber = 1 << 24;

void evict(const std::vector<const NDArray*>& arrays) {
  if (arrays.empty()) return;
  constexpr size_t kLine = 64;
#if defined(__x86_64__) || defined(__i386__)
  for (const NDArray* a : arrays) {
    const char* p = static_cast<const char*>(a->data());
    for (size_t off = 0; off < a->nbytes(); off += kLine) __builtin_ia32_clflush(p + off);
  }
  __builtin_ia32_mfence();
#else
  // No user-level flush instruction: evict by streaming through a buffer
  // larger than any last-level cache instead (which evicts the other
  // arguments too).
  (void)arrays;
  static std::vector<char> sweep(256u << 20);
  for (size_t off = 0; off < sweep.size(); off += kLine) sweep[off] += 1;
#endif
}

// What `o` evicts before each repeat: every argument, its cold_args, or
// nothing; resolved once, before anything runs. Throws kiln::Error for a
// cold argument the kernel does not have.
std::vector<const NDArray*> evicted_by(const TimingOptions& o, const std::vector<NDArray>& args) {
  std::vector<const NDArray*> out;
  if (o.flush_cache) {
    for (const NDArray& a : args) out.push_back(&a);
    return out;
  }
  for (int i : o.cold_args) {
    if (i < 0 || static_cast<size_t>(i) >= args.size())
      KILN_USER_ERROR() << "cold argument " << i << " of a kernel with " << args.size() << " arguments";
    out.push_back(&args[static_cast<size_t>(i)]);
  }
  return out;
}

}  // namespace

void run_kernel(const CompiledKernel& k, std::vector<NDArray>& args, ThreadPool& pool) {
  call(k, pointers(args), pool);
}

Timing measure_kernel(const CompiledKernel& k, std::vector<NDArray>& args, ThreadPool& pool,
                      const TimingOptions& o) {
  KILN_ICHECK(o.number >= 1 && o.repeat >= 1 && o.warmup >= 0) << "bad timing options";
  std::vector<NDArray*> ptrs = pointers(args);
  const std::vector<const NDArray*> evicted = evicted_by(o, args);
  for (int i = 0; i < o.warmup; ++i) call(k, ptrs, pool);
  if (o.warmup_ms > 0) {
    const auto until = Clock::now() + std::chrono::duration<double, std::milli>(o.warmup_ms);
    while (Clock::now() < until) call(k, ptrs, pool);
  }

  Timing t;
  t.number = o.number;
  if (o.min_repeat_ms > 0) {
    for (;;) {
      evict(evicted);
      double ms = time_runs(k, ptrs, pool, t.number);
      if (ms >= o.min_repeat_ms || t.number >= kMaxNumber) break;
      // Scale by what is missing, at least doubling when the run was too fast to see.
      double scale = ms > 0 ? o.min_repeat_ms * kRaiseMargin / ms : 2.0;
      t.number = static_cast<int>(std::min<double>(kMaxNumber, std::ceil(t.number * std::max(scale, 2.0))));
    }
  }
  for (int r = 0; r < o.repeat; ++r) {
    evict(evicted);
    t.ms_per_run.push_back(time_runs(k, ptrs, pool, t.number) / t.number);
  }
  return t;
}

std::vector<double> time_kernel(const CompiledKernel& k, std::vector<NDArray>& args, ThreadPool& pool, int repeat,
                                int warmup) {
  TimingOptions o;
  o.warmup = warmup;
  o.repeat = repeat;
  return measure_kernel(k, args, pool, o).ms_per_run;
}

void flush_from_caches(const std::vector<NDArray>& args) { evict(evicted_by({.flush_cache = true}, args)); }

TimingOptions report_timing(int repeat) {
  TimingOptions o;
  o.warmup = 1;
  o.warmup_ms = static_cast<double>(kWarmFor.count());
  o.min_repeat_ms = kReportSampleMs;
  o.repeat = repeat;
  return o;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace kiln
