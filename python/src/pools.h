// The thread pools kernels and compiled models run on from Python: one per
// thread count, shared by the whole process and alive as long as it, with
// a lock that makes calls on one pool take turns (a pool runs one parallel
// launch at a time).
#pragma once

#include <map>
#include <memory>
#include <mutex>

#include "targets/runtime/thread_pool.h"

namespace kiln::py {

struct Pool {
  explicit Pool(int threads) : pool(threads) {}
  ThreadPool pool;
  std::mutex busy;
};

inline Pool& pool_for(int threads) {
  static std::mutex mu;
  static auto* pools = new std::map<int, std::unique_ptr<Pool>>();  // never destroyed: threads at exit
  std::lock_guard<std::mutex> lock(mu);
  std::unique_ptr<Pool>& p = (*pools)[threads];
  if (!p) p = std::make_unique<Pool>(threads);
  return *p;
}

}  // namespace kiln::py
