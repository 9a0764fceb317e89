// Timing a kernel the way every kiln measurement does (docs/measurement.md).
//
//   warmup runs (untimed)
//   number := options.number, raised until one repeat of `number` back-to-back
//             runs lasts at least min_repeat_ms
//   repeat times: [flush the arguments from the caches] then `number` runs,
//             timed together on the steady clock; the repeat's time / number
//             is one sample
//
// Raising `number` keeps a fast kernel's sample far above the clock's
// resolution and the loop's own overhead; flushing measures the kernel on
// cold data, as it would run inside a model.
#pragma once

#include <chrono>
#include <vector>

#include "targets/runtime/compiled_kernel.h"

namespace kiln {

struct TimingOptions {
  int warmup = 1;
  // After the warmup runs, more untimed ones until this long has passed
  // (kWarmFor for a comparison that must not catch the machine settling).
  double warmup_ms = 0;
  int number = 1;
  int repeat = 10;
  double min_repeat_ms = 0;
  bool flush_cache = false;  // evict every argument before every repeat
  // Without flush_cache: the arguments, by position, evicted before every
  // repeat. A model's weights: an inference finds them cold (it last read
  // them an inference ago) and its activations warm (written by the kernel
  // before), and a kernel timed with warm weights misjudges one that
  // streams them (docs/onnx.md, "Cold weights").
  std::vector<int> cold_args;
  // With cold_args: how they are made cold. 0 flushes them from every cache
  // level, to memory. Otherwise the bytes an inference touches between two
  // calls of the kernel (a model's weights and its arena). Where that fits
  // the host's L3, each of the pool's threads reads its share of it (at
  // most four L2s' worth) of memory of its own, which pushes the cold
  // arguments out of its L1 and L2 as the model's own traffic does, then
  // writes the other arguments back, every threads-th page (each line
  // stored unchanged): an inference finds them warm, and modified in the
  // cache of the core that wrote them, as the kernel before left them.
  // Where it does not fit, the cold arguments are flushed to memory, where
  // the model finds them. On an Intel Xeon whose L3 holds mobilenet_v2, a
  // 7² convolution's record ran in the model in 0.070 ms, swept in 0.070
  // and flushed in 0.081, and another in 0.049, 0.051 and 0.064: flushed, a
  // third record ranked last of four that the model runs second fastest.
  // Read back rather than written, the warm arguments were clean: two
  // records of a 1x1 convolution at 28² ran 0.038 and 0.062 ms in the
  // model, 0.039 and 0.042 swept so, and 0.042 and 0.080 written back
  // (docs/measurement.md, "Cold as the model leaves them").
  int64_t cold_sweep_bytes = 0;
  // Whether anything is evicted: each repeat should then be a single run,
  // since only the first of `number` back-to-back runs finds it cold.
  bool evicts() const { return flush_cache || !cold_args.empty(); }
};

struct Timing {
  std::vector<double> ms_per_run;  // one sample per repeat
  int number = 1;                  // runs per repeat, after raising
};

// cold_sweep_bytes above this flushes, whatever L3 the host reports (a
// virtual machine's may be the whole socket's, shared with others).
inline constexpr int64_t kMaxColdSweepBytes = int64_t{128} << 20;

// Throws kiln::Error when the kernel returns a non-zero status, and before
// running it for a cold argument it does not have.
Timing measure_kernel(const CompiledKernel& k, std::vector<NDArray>& args, ThreadPool& pool,
                      const TimingOptions& options);

// `repeat` single runs after `warmup`: per-run milliseconds.
std::vector<double> time_kernel(const CompiledKernel& k, std::vector<NDArray>& args, ThreadPool& pool, int repeat,
                                int warmup = 1);

// How long a program runs untimed before a comparison times it: a virtual
// machine's vCPUs, which the host may leave on two hyperthreads of one
// core while they idle, get a core each meanwhile (on a 2-vCPU Zen 4 VM,
// AVX-512 FMAs on both vCPUs ran at 0.42x speed for their first 85 ms, then
// at full speed). kiln_bench and `kiln run` warm up so; the runner, which
// times candidates back to back, does not need to.
inline constexpr std::chrono::milliseconds kWarmFor{250};

// The figure kiln reports for a kernel, wherever it reports one: the final
// measurement that a tuned record is ranked and shown by (search/tuner.h),
// `kiln bench-op`, with or without a runner. kWarmFor of untimed runs,
// then `repeat` samples of back-to-back runs, each raised until it lasts
// kReportSampleMs, the figure their median. The same kernel measured by
// any of them gives the same figure (bench/one_number checks it on five
// workloads). A tuning round times candidates shorter (one warm-up, five
// single-run samples: search/tune_options.h): it ranks them; the figure
// shown is the final measurement's.
inline constexpr double kReportSampleMs = 100;
inline constexpr int kReportSamples = 12;
TimingOptions report_timing(int repeat = kReportSamples);

// Calls run() at least once, and until kWarmFor has passed.
template <typename Run>
void warm_up(Run run) {
  const auto until = std::chrono::steady_clock::now() + kWarmFor;
  do run();
  while (std::chrono::steady_clock::now() < until);
}

// Runs the kernel once; throws kiln::Error on a non-zero status.
void run_kernel(const CompiledKernel& k, std::vector<NDArray>& args, ThreadPool& pool);

// Evicts the bytes of every array from all cache levels.
void flush_from_caches(const std::vector<NDArray>& args);

double median(std::vector<double> v);

}  // namespace kiln
