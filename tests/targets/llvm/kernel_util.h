// Helpers for hand-built lowered PrimFuncs (flat 1-D buffers, as in
// docs/lowered_ir.md) and for running them through the JIT.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "targets/codegen/llvm/build_llvm.h"
#include "targets/runtime/ndarray.h"
#include "targets/runtime/thread_pool.h"
#include "targets/target.h"
#include "tir/stmt.h"

namespace kiln::test {

inline Buffer flat(const std::string& name, DataType t, int64_t n) {
  return Buffer(name, t, {Expr(static_cast<int>(n))});
}
inline Expr ld(const Buffer& b, Expr i) { return buffer_load(b, {std::move(i)}); }
inline Stmt st(const Buffer& b, Expr v, Expr i) { return buffer_store(b, std::move(v), {std::move(i)}); }
inline Stmt loop(const Var& v, int64_t extent, Stmt body, ForKind kind = ForKind::kSerial) {
  return for_loop(v, Expr(0), Expr(static_cast<int>(extent)), kind, std::move(body));
}
// Ramp(base, 1, lanes): a contiguous vector index.
inline Expr vec(Expr base, int64_t lanes) { return ramp(std::move(base), Expr(1), lanes); }
inline Expr f32(float v) { return Expr(v); }

// The host without FMA fusion, so results can be compared bit for bit with
// C++ (which the tests compile without FMA).
inline const Target& host() {
  static const Target t = Target::parse("llvm -fp-contract=off");
  return t;
}

// JIT-compiles f for the host and runs it once on `args` with `threads` threads.
inline void run(const PrimFunc& f, const std::vector<NDArray*>& args, int threads = 1) {
  auto k = build_llvm(f, host());
  ThreadPool pool(threads);
  ASSERT_EQ(k->call_arrays(args, pool), 0);
}

inline NDArray random_array(DataType t, int64_t n, uint64_t seed, double lo = -1, double hi = 1) {
  NDArray a(t, {n});
  a.fill_random(seed, lo, hi);
  return a;
}

}  // namespace kiln::test
