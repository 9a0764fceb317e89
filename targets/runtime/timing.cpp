#include "targets/runtime/timing.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

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

// The cache line the flush, the sweep and the write-back step by.
constexpr size_t kLine = 64;

void evict(const std::vector<const NDArray*>& arrays) {
  if (arrays.empty()) return;
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

std::vector<const NDArray*> every_argument(const std::vector<NDArray>& args) {
  std::vector<const NDArray*> all;
  for (const NDArray& a : args) all.push_back(&a);
  return all;
}

// Reads every cache line of [p, p + n), so that nothing folds the reads away.
void read_lines(const char* p, size_t n) {
  char acc = 0;
  for (size_t off = 0; off < n; off += kLine) acc = static_cast<char>(acc ^ p[off]);
  asm volatile("" : : "r"(acc));
}

// Stores every cache line of [p, p + n) back unchanged, so that each lies
// modified in the cache of the thread that stored it, as the kernel that
// wrote an activation leaves it.
void rewrite_lines(char* p, size_t n) {
  volatile char* v = p;
  for (size_t off = 0; off < n; off += kLine) v[off] = v[off];
}

// The size of this host's unified cache of `level` (2, 3) as Linux reports
// it for CPU 0, in bytes; 0 where it does not.
int64_t host_cache_bytes(int level) {
  for (int index = 0; index < 8; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::ifstream lv(dir + "level"), type(dir + "type"), size(dir + "size");
    int l = 0;
    std::string t, s;
    if (!(lv >> l) || !(type >> t) || !(size >> s)) continue;
    if (l != level || t != "Unified" || s.empty()) continue;
    const char unit = s.back();
    const int64_t n = std::atoll(s.c_str());
    return unit == 'K' ? n << 10 : unit == 'M' ? n << 20 : n;
  }
  return 0;
}

// How many bytes of its own memory each of `threads` threads reads to push
// cold arguments out of its caches the way an inference that touches
// `touched` bytes would; 0 where the inference outgrows the L3 (or the
// sweep would take milliseconds), whose weights then come from memory: a
// flush does that for less.
int64_t sweep_share(int64_t touched, int threads) {
  static const int64_t l2 = host_cache_bytes(2), l3 = host_cache_bytes(3);
  if (touched > kMaxColdSweepBytes || (l3 > 0 && touched > l3)) return 0;
  const int64_t share = touched / threads;
  // Past a few L2s, reading more pushes nothing further out of a cache the
  // inference fits.
  return l2 > 0 ? std::min(share, 4 * l2) : share;
}

// Pushes the cold arguments out of every thread's caches the way an
// inference's other traffic does (TimingOptions::cold_sweep_bytes): each
// thread reads `share` bytes of its own memory, then writes the warm
// arguments back, as the kernels before it in the model wrote them: every
// `threads`-th page from its own, so that no way of splitting them between
// the threads finds them all where it reads them (which kernel wrote them,
// split how, a kernel timed alone cannot know).
void sweep(ThreadPool& pool, int64_t share_bytes, const std::vector<NDArray*>& warm) {
  constexpr size_t kPage = 4096;
  const int threads = pool.num_threads();
  pool.parallel_for(threads, [&](int64_t t) {
    thread_local std::vector<char> own;  // each thread's, kept: the pool's threads live on
    const size_t share = static_cast<size_t>(share_bytes);
    if (own.size() < share) own.assign(share, 1);
    read_lines(own.data(), share);
    for (NDArray* a : warm) {
      char* p = static_cast<char*>(a->data());
      const size_t n = a->nbytes();
      for (size_t lo = kPage * static_cast<size_t>(t); lo < n; lo += kPage * static_cast<size_t>(threads))
        rewrite_lines(p + lo, std::min(kPage, n - lo));
    }
  });
}

// What `o` does before each repeat, resolved once, before anything runs:
// flush every argument, or its cold ones, or sweep them out, or nothing.
// Throws kiln::Error for a cold argument the kernel does not have.
class Eviction {
 public:
  Eviction(const TimingOptions& o, std::vector<NDArray>& args, ThreadPool& pool) : pool_(pool) {
    if (o.flush_cache) {
      flushed_ = every_argument(args);
      return;
    }
    std::vector<bool> cold(args.size());
    for (int i : o.cold_args) {
      if (i < 0 || static_cast<size_t>(i) >= args.size())
        KILN_USER_ERROR() << "cold argument " << i << " of a kernel with " << args.size() << " arguments";
      cold[static_cast<size_t>(i)] = true;
    }
    if (!o.cold_args.empty() && o.cold_sweep_bytes > 0) sweep_share_ = sweep_share(o.cold_sweep_bytes, pool.num_threads());
    const bool swept = sweep_share_ > 0;
    for (size_t i = 0; i < args.size(); ++i) {
      if (cold[i] && !swept) flushed_.push_back(&args[i]);
      if (!cold[i] && swept) warm_.push_back(&args[i]);
    }
  }

  void operator()() const {
    if (sweep_share_ > 0) return sweep(pool_, sweep_share_, warm_);
    evict(flushed_);
  }

 private:
  ThreadPool& pool_;
  std::vector<const NDArray*> flushed_;
  int64_t sweep_share_ = 0;  // per thread
  std::vector<NDArray*> warm_;  // written back after a sweep
};

}  // namespace

void run_kernel(const CompiledKernel& k, std::vector<NDArray>& args, ThreadPool& pool) {
  call(k, pointers(args), pool);
}

Timing measure_kernel(const CompiledKernel& k, std::vector<NDArray>& args, ThreadPool& pool,
                      const TimingOptions& o) {
  KILN_ICHECK(o.number >= 1 && o.repeat >= 1 && o.warmup >= 0) << "bad timing options";
  std::vector<NDArray*> ptrs = pointers(args);
  const Eviction evict_cold(o, args, pool);
  for (int i = 0; i < o.warmup; ++i) call(k, ptrs, pool);
  if (o.warmup_ms > 0) {
    const auto until = Clock::now() + std::chrono::duration<double, std::milli>(o.warmup_ms);
    while (Clock::now() < until) call(k, ptrs, pool);
  }

  Timing t;
  t.number = o.number;
  if (o.min_repeat_ms > 0) {
    for (;;) {
      evict_cold();
      double ms = time_runs(k, ptrs, pool, t.number);
      if (ms >= o.min_repeat_ms || t.number >= kMaxNumber) break;
      // Scale by what is missing, at least doubling when the run was too fast to see.
      double scale = ms > 0 ? o.min_repeat_ms * kRaiseMargin / ms : 2.0;
      t.number = static_cast<int>(std::min<double>(kMaxNumber, std::ceil(t.number * std::max(scale, 2.0))));
    }
  }
  for (int r = 0; r < o.repeat; ++r) {
    evict_cold();
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

void flush_from_caches(const std::vector<NDArray>& args) { evict(every_argument(args)); }

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
