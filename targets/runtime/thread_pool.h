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
#include <memory>
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
  // The job the caller publishes: written before `generation` is bumped
  // and read by the workers once they see the bump, all in one cache line,
  // so that a worker waiting on another core takes one line to start. A
  // launch (the runtime API) carries its C function and closure here
  // itself; a parallel_for points at its std::function.
  struct alignas(64) Job {
    std::atomic<uint64_t> generation{0};  // bumped per job; workers wait for a change
    KilnTaskFn task = nullptr;
    void* closure = nullptr;
    const std::function<void(int64_t)>* fn = nullptr;  // when task is null
    int64_t n = 0;
    bool dynamic = false;
  };
  // What a worker says back, in a line of its own: the generation it last
  // finished and the status of its tasks in it. The caller reads each
  // worker's line rather than one counter they all decrement, so a job's
  // end costs one line per worker and no read-modify-write between cores.
  struct alignas(64) Reply {
    std::atomic<uint64_t> finished{0};
    int32_t status = 0;
  };

  void worker_loop(int index);
  // Runs participant `p`'s share of the job; the first failing status of a
  // launch's tasks (KILN_STATUS_OK for a parallel_for).
  int32_t run_chunk(int participant);
  int32_t run(int64_t n, KilnTaskFn task, void* closure, const std::function<void(int64_t)>* fn, bool dynamic);
  int32_t run_serially(int64_t n, KilnTaskFn task, void* closure, const std::function<void(int64_t)>* fn);
  bool all_finished(uint64_t generation) const;
  // Spins for spin_for_ until done() holds; returns whether it does.
  template <typename Done>
  bool spin_until(Done done) const;

  const int num_threads_;
  std::vector<std::thread> workers_;
  ScratchPool scratch_;

  std::mutex call_mu_;  // one job at a time

  // How long a waiting thread spins before it blocks; zero when the pool
  // has more threads than the machine has cores.
  const std::chrono::nanoseconds spin_for_;

  Job job_;
  std::unique_ptr<Reply[]> replies_;  // one per worker
  alignas(64) std::atomic<int64_t> next_task_{0};  // the next task to take, when dynamic

  // Blocking, past the spin. A side that blocks says so first (sleepers_,
  // caller_asleep_), and the other side takes mu_ to notify only when it
  // reads that someone is asleep: both the flag and the job's state are
  // sequentially consistent, so one of the two always sees the other.
  alignas(64) std::mutex mu_;
  std::condition_variable start_cv_, done_cv_;
  std::atomic<int> sleepers_{0};
  std::atomic<bool> caller_asleep_{false};
  std::atomic<bool> stop_{false};

  std::exception_ptr error_;  // the first exception a task threw
  std::mutex error_mu_;
};

// The KilnRuntimeApi table for calls that use `pool`.
KilnRuntimeApi runtime_api_for(ThreadPool& pool);

}  // namespace kiln
