// A fixed pool of persistent worker threads for parallel loops.
//
// Kernels are measured one at a time on a machine whose cores we own, so the
// pool is built for predictability rather than load balancing: N threads in
// all (N - 1 workers plus the caller, who always takes part), tasks split
// into N static contiguous chunks, no work stealing. A parallel_for issued
// from inside a task runs serially on that thread, so nested parallelism
// never oversubscribes; two outside threads using one pool take turns.
//
// Waiting spins before it sleeps. Kernels are called back to back (timing
// loops, a model's layers); a worker that blocks between them must be woken
// for every call, and the wake-up is paid on each one: a tuned conv2d 56²
// on 2 threads of a Zen 4 VM ran in 1.19 ms with the workers blocking and in
// 1.10 ms with them spinning (kiln_bench, warmed up, two runs each). So
// after a job the workers spin for the next one, and the caller on the
// workers' finish, for kSpinFor before they block; past the first 100 µs
// they yield between checks, so that another process on the core can run.
// With more threads than cores nobody spins: a spinner would take the core
// from the thread it waits for. KILN_POOL_SPIN_US sets the spin (0: block at
// once) for processes that share the cores with others by design: the tests,
// run two at a time, set it to 0.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "targets/runtime/kernel_abi.h"
#include "targets/runtime/scratch_pool.h"

namespace kiln {

class ThreadPool {
 public:
  // num_threads >= 1 counts the calling thread; 1 means no workers at all.
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return num_threads_; }

  // Runs fn(task) for every task in [0, n), each exactly once; participant p
  // of P takes tasks [p*n/P, (p+1)*n/P). Returns when all are done. The first
  // exception thrown by a task is rethrown here (the other tasks still run).
  void parallel_for(int64_t n, const std::function<void(int64_t task)>& fn);
  // The same, but each participant takes the next task not yet taken until
  // none remain: for tasks of uneven cost (the search's candidates), where
  // static chunks leave one thread idle while another finishes its share.
  // Which thread runs a task is not predictable; what the tasks compute
  // must not depend on it.
  void parallel_for_dynamic(int64_t n, const std::function<void(int64_t task)>& fn);

  // The runtime API's parallel_launch (kernel_abi.h) on this pool.
  int32_t launch(KilnTaskFn fn, void* closure, int64_t max_tasks);

  // True on a thread that is running a task of any pool.
  static bool in_parallel_region();

  // The scratch memory of the kernels run on this pool (the runtime API's
  // alloc_scratch and free_scratch).
  ScratchPool& scratch() { return scratch_; }

 private:
  void worker_loop(int index);
  void run_chunk(int participant);
  void run(int64_t n, const std::function<void(int64_t)>& fn, bool dynamic);
  // Spins for spin_for_ until done() holds; returns whether it does.
  template <typename Done>
  bool spin_until(Done done) const;

  const int num_threads_;
  std::vector<std::thread> workers_;
  ScratchPool scratch_;

  std::mutex call_mu_;  // one parallel_for at a time

  // How long a waiting thread spins before it blocks; zero when the pool
  // has more threads than the machine has cores.
  const std::chrono::nanoseconds spin_for_;

  // Written under mu_, read by spinners without it.
  std::mutex mu_;
  std::condition_variable start_cv_, done_cv_;
  std::atomic<uint64_t> generation_{0};  // bumped per parallel_for; workers wait for a change
  std::atomic<int> pending_{0};          // workers still running the current generation
  std::atomic<bool> stop_{false};

  // The current job, valid while pending_ > 0.
  const std::function<void(int64_t)>* job_ = nullptr;
  int64_t job_n_ = 0;
  bool job_dynamic_ = false;
  std::atomic<int64_t> next_task_{0};  // the next task to take, when dynamic
  std::exception_ptr error_;
  std::mutex error_mu_;
};

// The KilnRuntimeApi table for calls that use `pool`.
KilnRuntimeApi runtime_api_for(ThreadPool& pool);

}  // namespace kiln
