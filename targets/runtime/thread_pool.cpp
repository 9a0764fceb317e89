#include "targets/runtime/thread_pool.h"

#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "core/error.h"

namespace kiln {
namespace {

thread_local int tls_region_depth = 0;

// Long enough to cover the gap between two kernels called back to back
// (microseconds), short enough that an idle pool gives its cores back
// almost at once.
constexpr std::chrono::nanoseconds kSpinFor = std::chrono::microseconds(2000);
// The first part of it a pure busy wait, the rest yields between checks.
// Short: when the caller and a worker wait on one core (the scheduler wakes
// a blocked worker on its waker's CPU, and moves it away only later), each
// handing over of the core waits out the other's busy phase. At 100 us a
// tuning job's small parallel kernels read 0.2, 0.4, 0.6 ms for 3-10 us
// runs; at 2 us they read within a few microseconds of their final
// measurement, and tuned models and kernels run no slower (docs/measurement.md).
constexpr std::chrono::nanoseconds kBusyFor = std::chrono::microseconds(2);

// kSpinFor, or KILN_POOL_SPIN_US microseconds where that is set (0: block
// at once, for processes that share the cores by design, as the tests do).
std::chrono::nanoseconds spin_budget(int num_threads) {
  const unsigned cores = std::thread::hardware_concurrency();
  if (cores == 0 || static_cast<unsigned>(num_threads) > cores) return std::chrono::nanoseconds(0);
  if (const char* us = std::getenv("KILN_POOL_SPIN_US")) {
    char* end = nullptr;
    const long v = std::strtol(us, &end, 10);
    if (end == us || *end != '\0' || v < 0)
      KILN_USER_ERROR() << "KILN_POOL_SPIN_US must be a whole number of microseconds, not '" << us << "'";
    return std::chrono::microseconds(v);
  }
  return kSpinFor;
}

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Marks the current thread as inside a task for the lifetime of the scope.
struct RegionScope {
  RegionScope() { ++tls_region_depth; }
  ~RegionScope() { --tls_region_depth; }
};

// Moves the calling worker (participant `index`) to a CPU of its own among
// those the process may use, counting from the pool creator's, then gives
// it back every CPU, so it is nudged, not pinned. A new thread starts on
// its creator's CPU, and until the scheduler's balancer moves it (some
// milliseconds later) the caller and the worker take turns on one core:
// a new process's first parallel launches ran 7x slow (a runner's first
// candidate of a tuning job: 0.27 ms for a 0.035 ms kernel).
void start_apart(int index, int creator_cpu) {
  cpu_set_t allowed;
  if (creator_cpu < 0 || sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return;
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  const auto at = std::find(cpus.begin(), cpus.end(), creator_cpu);
  if (cpus.size() < 2 || at == cpus.end()) return;
  const size_t start = static_cast<size_t>(at - cpus.begin());
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpus[(start + static_cast<size_t>(index)) % cpus.size()], &one);
  if (sched_setaffinity(0, sizeof(one), &one) == 0) sched_setaffinity(0, sizeof(allowed), &allowed);
}

// Task t of n: a launch's C function, or a parallel_for's std::function
// (whose tasks have no status).
int32_t call_task(KilnTaskFn task, void* closure, const std::function<void(int64_t)>* fn, int64_t t, int64_t n) {
  if (task) return task(t, n, closure);
  (*fn)(t);
  return KILN_STATUS_OK;
}

}  // namespace

ThreadPool::ThreadPool(int num_threads) : num_threads_(num_threads), spin_for_(spin_budget(num_threads)) {
  if (num_threads < 1) KILN_USER_ERROR() << "thread pool needs at least 1 thread, not " << num_threads;
  replies_ = std::make_unique<Reply[]>(static_cast<size_t>(num_threads - 1));
  workers_.reserve(num_threads - 1);
  const int creator_cpu = sched_getcpu();
  for (int i = 1; i < num_threads; ++i)
    workers_.emplace_back([this, i, creator_cpu] {
      start_apart(i, creator_cpu);
      worker_loop(i);
    });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_.store(true, std::memory_order_relaxed);
    job_.generation.fetch_add(1, std::memory_order_seq_cst);
  }
  start_cv_.notify_all();
  for (std::thread& t : workers_) t.join();
}

bool ThreadPool::in_parallel_region() { return tls_region_depth > 0; }

int32_t ThreadPool::run_chunk(int participant) {
  RegionScope scope;
  int32_t status = KILN_STATUS_OK;
  auto run_task = [&](int64_t t) {
    try {
      const int32_t s = call_task(job_.task, job_.closure, job_.fn, t, job_.n);
      if (status == KILN_STATUS_OK) status = s;
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mu_);
      if (!error_) error_ = std::current_exception();
    }
  };
  if (job_.dynamic) {
    for (int64_t t; (t = next_task_.fetch_add(1, std::memory_order_relaxed)) < job_.n;) run_task(t);
    return status;
  }
  const int64_t p = num_threads_;
  const int64_t begin = job_.n * participant / p;
  const int64_t end = job_.n * (participant + 1) / p;
  for (int64_t t = begin; t < end; ++t) run_task(t);
  return status;
}

template <typename Done>
bool ThreadPool::spin_until(Done done) const {
  if (spin_for_.count() == 0) return done();
  const auto start = std::chrono::steady_clock::now();
  while (!done()) {
    const auto spent = std::chrono::steady_clock::now() - start;
    if (spent >= spin_for_) return done();
    // After a short busy wait, yield between checks: a thread of another
    // process that shares this core (tests run two at a time) gets to run.
    // The busy wait looks after every pause, not after a batch of them: a
    // pause takes tens of cycles, and 64 of them between looks made every
    // parallel launch wait about a microsecond (1.76 us a launch on 2
    // threads sharing an L3 of a Zen 5, where the line between them makes a
    // round trip in 86 ns).
    if (spent < kBusyFor) {
      for (int i = 0; i < 64 && !done(); ++i) cpu_relax();
    } else {
      std::this_thread::yield();
    }
  }
  return true;
}

void ThreadPool::worker_loop(int index) {
  Reply& reply = replies_[static_cast<size_t>(index - 1)];
  uint64_t seen = 0;
  auto woken = [&] { return job_.generation.load(std::memory_order_seq_cst) != seen; };
  while (true) {
    if (!spin_until(woken)) {
      std::unique_lock<std::mutex> lock(mu_);
      sleepers_.fetch_add(1, std::memory_order_seq_cst);
      start_cv_.wait(lock, woken);
      sleepers_.fetch_sub(1, std::memory_order_relaxed);
    }
    // The job's fields were written before the generation's bump, so the
    // load that sees the bump sees them too.
    seen = job_.generation.load(std::memory_order_acquire);
    if (stop_.load(std::memory_order_relaxed)) return;
    reply.status = run_chunk(index);
    reply.finished.store(seen, std::memory_order_seq_cst);
    if (caller_asleep_.load(std::memory_order_seq_cst)) {
      std::lock_guard<std::mutex> lock(mu_);
      done_cv_.notify_one();
    }
  }
}

bool ThreadPool::all_finished(uint64_t generation) const {
  for (size_t w = 0; w < workers_.size(); ++w)
    if (replies_[w].finished.load(std::memory_order_seq_cst) != generation) return false;
  return true;
}

void ThreadPool::parallel_for(int64_t n, const std::function<void(int64_t)>& fn) {
  run(n, nullptr, nullptr, &fn, false);
}
void ThreadPool::parallel_for_dynamic(int64_t n, const std::function<void(int64_t)>& fn) {
  run(n, nullptr, nullptr, &fn, true);
}

int32_t ThreadPool::run_serially(int64_t n, KilnTaskFn task, void* closure,
                                 const std::function<void(int64_t)>* fn) {
  RegionScope scope;
  std::exception_ptr first;
  int32_t status = KILN_STATUS_OK;
  for (int64_t t = 0; t < n; ++t) {
    try {
      const int32_t s = call_task(task, closure, fn, t, n);
      if (status == KILN_STATUS_OK) status = s;
    } catch (...) {
      if (!first) first = std::current_exception();
    }
  }
  if (first) std::rethrow_exception(first);
  return status;
}

int32_t ThreadPool::run(int64_t n, KilnTaskFn task, void* closure, const std::function<void(int64_t)>* fn,
                        bool dynamic) {
  if (n <= 0) return KILN_STATUS_OK;
  if (in_parallel_region() || num_threads_ == 1 || n == 1) return run_serially(n, task, closure, fn);
  std::lock_guard<std::mutex> call_lock(call_mu_);
  job_.task = task;
  job_.closure = closure;
  job_.fn = fn;
  job_.n = n;
  job_.dynamic = dynamic;
  next_task_.store(0, std::memory_order_relaxed);
  error_ = nullptr;
  const uint64_t generation = job_.generation.load(std::memory_order_relaxed) + 1;
  job_.generation.store(generation, std::memory_order_seq_cst);
  if (sleepers_.load(std::memory_order_seq_cst) > 0) {
    std::lock_guard<std::mutex> lock(mu_);
    start_cv_.notify_all();
  }
  int32_t status = run_chunk(0);
  auto done = [&] { return all_finished(generation); };
  if (!spin_until(done)) {
    std::unique_lock<std::mutex> lock(mu_);
    caller_asleep_.store(true, std::memory_order_seq_cst);
    done_cv_.wait(lock, done);
    caller_asleep_.store(false, std::memory_order_relaxed);
  }
  for (size_t w = 0; w < workers_.size(); ++w)
    if (status == KILN_STATUS_OK) status = replies_[w].status;
  if (error_) std::rethrow_exception(error_);
  return status;
}

int32_t ThreadPool::launch(KilnTaskFn fn, void* closure, int64_t max_tasks) {
  if (max_tasks <= 0) return KILN_STATUS_OK;
  const int64_t n = in_parallel_region() ? 1 : std::min<int64_t>(max_tasks, num_threads_);
  return run(n, fn, closure, nullptr, false);
}

namespace {

int32_t api_parallel_launch(void* pool, KilnTaskFn fn, void* closure, int64_t max_tasks) {
  try {
    return static_cast<ThreadPool*>(pool)->launch(fn, closure, max_tasks);
  } catch (...) {
    return KILN_STATUS_TASK_FAILED;
  }
}

void* api_alloc_scratch(void* pool, uint64_t nbytes, uint64_t alignment) {
  return static_cast<ThreadPool*>(pool)->scratch().allocate(nbytes, alignment);
}

void api_free_scratch(void* pool, void* ptr) { static_cast<ThreadPool*>(pool)->scratch().release(ptr); }

}  // namespace

KilnRuntimeApi runtime_api_for(ThreadPool& pool) {
  KilnRuntimeApi api{};
  api.version = KILN_RUNTIME_API_VERSION;
  api.pool = &pool;
  api.parallel_launch = &api_parallel_launch;
  api.alloc_scratch = &api_alloc_scratch;
  api.free_scratch = &api_free_scratch;
  return api;
}

}  // namespace kiln
