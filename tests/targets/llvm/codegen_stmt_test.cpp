// Statements through the JIT: allocation (stack and scratch), parallel loops
// with 1 and 2 threads, loops nested in them, unrolling, and the status
// codes kernels return when the runtime fails them.
#include <atomic>
#include <mutex>
#include <set>
#include <thread>

#include "core/error.h"
#include "tests/targets/llvm/kernel_util.h"
#include "tir/functor.h"
#include "tir/parser/parser.h"
#include "tir/transform/prefetch_panels.h"

namespace kiln {
namespace {

using namespace kiln::test;

// tmp = A * 2 (reversed) in an Allocate'd buffer of n elements, then C = tmp + 1.
PrimFunc reverse_through_tmp(int n) {
  Buffer A = flat("A", DataType::Float32(), n), C = flat("C", DataType::Float32(), n);
  Buffer T = flat("tmp", DataType::Float32(), n);
  Var i("i"), j("j");
  Stmt body = allocate(T, seq({loop(i, n, st(T, ld(A, i) * f32(2.0f), Expr(n - 1) - i)),
                               loop(j, n, st(C, ld(T, j) + f32(1.0f), j))}));
  return PrimFunc("tmp_reverse", {A, C}, body);
}

TEST(CodegenStmt, AllocatedIntermediateOnStackAndHeap) {
  for (int n : {64, 100000}) {  // 256 bytes: stack; 400 KB: runtime scratch
    SCOPED_TRACE(n);
    NDArray a = random_array(DataType::Float32(), n, 50), c(DataType::Float32(), {n});
    run(reverse_through_tmp(n), {&a, &c});
    for (int k = 0; k < n; ++k) ASSERT_EQ(c.data_as<float>()[k], a.data_as<float>()[n - 1 - k] * 2.0f + 1.0f) << k;
  }
}

TEST(CodegenStmt, ScratchIsTakenFromTheSystemOnceAndKeptForTheNextCall) {
  const int n = 100000;  // 400 KB: runtime scratch
  auto k = build_llvm(reverse_through_tmp(n), host());
  ThreadPool pool(1);
  NDArray a = random_array(DataType::Float32(), n, 51), c(DataType::Float32(), {n});
  for (int call = 0; call < 3; ++call) {
    ASSERT_EQ(k->call_arrays({&a, &c}, pool), 0);
    ASSERT_EQ(c.data_as<float>()[0], a.data_as<float>()[n - 1] * 2.0f + 1.0f);
  }
  EXPECT_EQ(pool.scratch().system_allocations(), 1);
  EXPECT_EQ(pool.scratch().kept_bytes(), 98u * 4096);  // 400 000 bytes in whole pages
}

// C[i] += 1 over a parallel loop: every element written exactly once.
PrimFunc increment_parallel(int n) {
  Buffer C = flat("C", DataType::Int32(), n);
  Var i("i");
  return PrimFunc("inc", {C}, loop(i, n, st(C, ld(C, i) + Expr(1), i), ForKind::kParallel));
}

TEST(CodegenStmt, ParallelLoopWritesEachElementOnce) {
  for (int threads : {1, 2}) {
    for (int n : {1, 2, 3, 1003}) {
      SCOPED_TRACE(std::to_string(threads) + " threads, n=" + std::to_string(n));
      auto k = build_llvm(increment_parallel(n), host());
      ThreadPool pool(threads);
      NDArray c(DataType::Int32(), {n});
      ASSERT_EQ(k->call_arrays({&c}, pool), 0);
      ASSERT_EQ(k->call_arrays({&c}, pool), 0);
      for (int e = 0; e < n; ++e) ASSERT_EQ(c.data_as<int32_t>()[e], 2) << e;
    }
  }
}

TEST(CodegenStmt, ParallelLoopCapturesVariablesBuffersAndNestsLoops) {
  const int rows = 7, cols = 33;
  Buffer A = flat("A", DataType::Float32(), rows * cols), C = flat("C", DataType::Float32(), rows * cols);
  Buffer Row = flat("row_sum", DataType::Float32(), rows);
  Buffer T = flat("scratch", DataType::Float32(), cols);
  Var scale("scale", DataType::Float32()), offset("offset"), i("i"), j("j"), k("k");
  // for i in parallel: allocate scratch[cols]; for j: scratch[j] = A[i, j] * scale
  //                    for k: C[i, k] = scratch[cols-1-k] + i + offset; row_sum[i] = sum_k C[i, k]
  Stmt per_row = allocate(
      T, seq({loop(j, cols, st(T, ld(A, i * cols + j) * scale, j)),
              st(Row, f32(0.0f), i),
              loop(k, cols, seq({st(C, ld(T, Expr(cols - 1) - k) + cast(DataType::Float32(), i + offset), i * cols + k),
                                 st(Row, ld(Row, i) + ld(C, i * cols + k), i)}))}));
  Stmt body = let_stmt(scale, f32(1.5f), let_stmt(offset, Expr(100), loop(i, rows, per_row, ForKind::kParallel)));
  PrimFunc f("rows", {A, C, Row}, body);
  for (int threads : {1, 2}) {
    SCOPED_TRACE(threads);
    NDArray a = random_array(DataType::Float32(), rows * cols, 51), c(DataType::Float32(), {rows * cols});
    NDArray row(DataType::Float32(), {rows});
    run(f, {&a, &c, &row}, threads);
    for (int r = 0; r < rows; ++r) {
      float sum = 0;
      for (int q = 0; q < cols; ++q) {
        float expect = a.data_as<float>()[r * cols + cols - 1 - q] * 1.5f + static_cast<float>(r + 100);
        ASSERT_EQ(c.data_as<float>()[r * cols + q], expect) << r << "," << q;
        sum += expect;
      }
      ASSERT_EQ(row.data_as<float>()[r], sum);
    }
  }
}

TEST(CodegenStmt, ParallelLoopWithNonZeroMinAndScratchInTheBody) {
  const int n = 2000;
  Buffer A = flat("A", DataType::Float32(), n), C = flat("C", DataType::Float32(), n);
  Buffer T = flat("big", DataType::Float32(), 10000);  // 40 KB: runtime scratch, per iteration
  Var i("i"), j("j");
  Stmt inner = allocate(T, seq({st(T, ld(A, i), Expr(0)), st(C, ld(T, Expr(0)) * f32(3.0f), i)}));
  Stmt body = for_loop(i, Expr(5), Expr(n - 5), ForKind::kParallel, inner);
  PrimFunc f("offset_par", {A, C}, body);
  NDArray a = random_array(DataType::Float32(), n, 52), c(DataType::Float32(), {n});
  run(f, {&a, &c}, 2);
  for (int k = 0; k < n; ++k) ASSERT_EQ(c.data_as<float>()[k], k < 5 ? 0.0f : a.data_as<float>()[k] * 3.0f) << k;
}

TEST(CodegenStmt, UnrolledLoops) {
  const int n = 24;
  Buffer A = flat("A", DataType::Float32(), n), C = flat("C", DataType::Float32(), n);
  Var io("io"), ii("ii");
  Stmt body = loop(io, n / 8, loop(ii, 8, st(C, ld(A, io * 8 + ii) * f32(2.0f), io * 8 + ii), ForKind::kUnrolled));
  PrimFunc f("unrolled", {A, C}, body);
  NDArray a = random_array(DataType::Float32(), n, 53), c(DataType::Float32(), {n});
  run(f, {&a, &c});
  for (int k = 0; k < n; ++k) ASSERT_EQ(c.data_as<float>()[k], a.data_as<float>()[k] * 2.0f);
  std::string ir = emit_llvm_ir(f, host(), /*optimize=*/false);
  EXPECT_NE(ir.find("llvm.loop.unroll.full"), std::string::npos);
  EXPECT_NE(ir.find("llvm.loop.mustprogress"), std::string::npos);
  // After O3 the unrolled loop is gone: one loop (io) remains.
  std::string opt = emit_llvm_ir(f, host());
  size_t loops = 0;
  for (size_t p = opt.find("!llvm.loop !"); p != std::string::npos; p = opt.find("!llvm.loop !", p + 1)) ++loops;
  EXPECT_LE(loops, 1u) << opt;
}

// A runtime whose launches and allocations the test controls.
struct FakeRuntime {
  int alloc_calls = 0;
  int fail_alloc_at = -1;  // the n-th alloc (0-based) returns NULL
  std::vector<void*> allocated, freed;
  int32_t launch_status = 0;
  int64_t tasks = 3;  // tasks per launch, run in reverse order
  std::vector<std::pair<int64_t, int64_t>> launches;  // (max_tasks, tasks run)

  static FakeRuntime* self(void* pool) { return static_cast<FakeRuntime*>(pool); }
  static int32_t launch(void* pool, KilnTaskFn fn, void* closure, int64_t max_tasks) {
    FakeRuntime* r = self(pool);
    if (r->launch_status) return r->launch_status;
    int64_t n = std::min(max_tasks, r->tasks);
    r->launches.emplace_back(max_tasks, n);
    for (int64_t t = n - 1; t >= 0; --t)
      if (int32_t s = fn(t, n, closure)) return s;
    return 0;
  }
  static void* alloc(void* pool, uint64_t nbytes, uint64_t align) {
    FakeRuntime* r = self(pool);
    if (r->alloc_calls++ == r->fail_alloc_at) return nullptr;
    void* p = std::aligned_alloc(align, (nbytes + align - 1) / align * align);
    r->allocated.push_back(p);
    return p;
  }
  static void release(void* pool, void* p) {
    self(pool)->freed.push_back(p);
    std::free(p);
  }
  KilnRuntimeApi api() {
    KilnRuntimeApi a{};
    a.version = KILN_RUNTIME_API_VERSION;
    a.pool = this;
    a.parallel_launch = &launch;
    a.alloc_scratch = &alloc;
    a.free_scratch = &release;
    return a;
  }
};

TEST(CodegenStmt, TasksSplitTheLoopIntoBalancedChunks) {
  const int n = 10;
  auto k = build_llvm(increment_parallel(n), host());
  FakeRuntime rt;
  KilnRuntimeApi api = rt.api();
  NDArray c(DataType::Int32(), {n});
  void* args[] = {c.data()};
  ASSERT_EQ(k->function()(args, &api), 0);
  ASSERT_EQ(rt.launches.size(), 1u);
  EXPECT_EQ(rt.launches[0], (std::pair<int64_t, int64_t>{10, 3}));  // max_tasks is the extent
  for (int e = 0; e < n; ++e) EXPECT_EQ(c.data_as<int32_t>()[e], 1) << e;
}

TEST(CodegenStmt, FailuresReturnStatusAndFreeScratch) {
  // outer scratch (heap) around a parallel loop whose body allocates scratch too.
  const int n = 64, big = 10000;  // 40 KB buffers: runtime scratch
  Buffer A = flat("A", DataType::Float32(), n), C = flat("C", DataType::Float32(), n);
  Buffer Outer = flat("outer", DataType::Float32(), big), Inner = flat("inner", DataType::Float32(), big);
  Var i("i"), j("j");
  Stmt inner = allocate(Inner, seq({st(Inner, ld(Outer, i), Expr(0)), st(C, ld(Inner, Expr(0)), i)}));
  Stmt body = allocate(Outer, seq({loop(j, n, st(Outer, ld(A, j) + f32(1.0f), j)), loop(i, n, inner, ForKind::kParallel)}));
  auto k = build_llvm(PrimFunc("fallible", {A, C}, body), host());
  NDArray a = random_array(DataType::Float32(), n, 54), c(DataType::Float32(), {n});
  void* args[] = {a.data(), c.data()};

  {  // Everything succeeds: each allocation is freed.
    FakeRuntime rt;
    KilnRuntimeApi api = rt.api();
    ASSERT_EQ(k->function()(args, &api), KILN_STATUS_OK);
    EXPECT_EQ(rt.allocated.size(), 1u + static_cast<size_t>(n));
    EXPECT_EQ(std::multiset<void*>(rt.allocated.begin(), rt.allocated.end()),
              std::multiset<void*>(rt.freed.begin(), rt.freed.end()));
    EXPECT_EQ(c.data_as<float>()[n - 1], a.data_as<float>()[n - 1] + 1.0f);
  }
  {  // The outer allocation fails: nothing to free.
    FakeRuntime rt;
    rt.fail_alloc_at = 0;
    KilnRuntimeApi api = rt.api();
    EXPECT_EQ(k->function()(args, &api), KILN_STATUS_ALLOC_FAILED);
    EXPECT_TRUE(rt.freed.empty());
  }
  {  // An inner allocation fails inside a task: the task fails, the kernel frees the outer buffer.
    FakeRuntime rt;
    rt.fail_alloc_at = 5;
    KilnRuntimeApi api = rt.api();
    EXPECT_EQ(k->function()(args, &api), KILN_STATUS_ALLOC_FAILED);
    EXPECT_EQ(std::multiset<void*>(rt.allocated.begin(), rt.allocated.end()),
              std::multiset<void*>(rt.freed.begin(), rt.freed.end()));
    EXPECT_EQ(rt.freed.back(), rt.allocated.front());
  }
  {  // The launch itself fails.
    FakeRuntime rt;
    rt.launch_status = KILN_STATUS_TASK_FAILED;
    KilnRuntimeApi api = rt.api();
    EXPECT_EQ(k->function()(args, &api), KILN_STATUS_TASK_FAILED);
    EXPECT_EQ(rt.freed, rt.allocated);
  }
}

TEST(CodegenStmt, ConcurrentBuildsShareTheJit) {
  std::vector<std::unique_ptr<CompiledKernel>> kernels(4);
  std::vector<std::thread> threads;
  std::mutex mu;
  std::string error;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      try {
        for (int r = 0; r < 2; ++r) kernels[static_cast<size_t>(2 * t + r)] = build_llvm(increment_parallel(8 + t), host());
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(mu);
        error = e.what();
      }
    });
  }
  for (std::thread& th : threads) th.join();
  ASSERT_EQ(error, "");
  ThreadPool pool(1);
  for (size_t q = 0; q < kernels.size(); ++q) {
    int n = 8 + static_cast<int>(q / 2);
    NDArray c(DataType::Int32(), {n});
    ASSERT_EQ(kernels[q]->call_arrays({&c}, pool), 0);
    EXPECT_EQ(c.data_as<int32_t>()[n - 1], 1);
    EXPECT_EQ(kernels[q]->name(), "inc");
  }
}

TEST(CodegenStmt, CallChecksArguments) {
  auto k = build_llvm(increment_parallel(8), host());
  ThreadPool pool(1);
  NDArray small(DataType::Int32(), {4}), wrong(DataType::Float32(), {8}), ok(DataType::Int32(), {8});
  EXPECT_THROW(k->call({}, pool), Error);
  EXPECT_THROW(k->call_arrays({&small}, pool), Error);
  EXPECT_THROW(k->call_arrays({&wrong}, pool), Error);
  EXPECT_EQ(k->call_arrays({&ok}, pool), 0);
  ASSERT_EQ(k->params().size(), 1u);
  EXPECT_EQ(k->params()[0].numel, 8);
}

// A panel product with the next panel prefetched (prefetch_panels) computes
// what it did without, on two threads: a prefetch is only a hint, and its
// buffer reaches the parallel loop's task among the captures.
TEST(CodegenStmt, PrefetchedPanelsComputeTheSame) {
  const PrimFunc before = parse_prim_func(R"(
@T.prim_func
def f(A: T.Buffer((2048,), "float32"), W: T.Buffer((32768,), "float32"), C: T.Buffer((256,), "float32")):
    for p in T.parallel(4):
        for i in range(4):
            for k in range(512):
                for j in range(16):
                    C[i * 64 + p * 16 + j] = C[i * 64 + p * 16 + j] + A[i * 512 + k] * W[p * 8192 + k * 16 + j]
)");
  const PrimFunc after = prefetch_panels(before);
  int prefetches = 0;
  post_order_visit(after.body(), [&](const Stmt& s) { prefetches += s.as<PrefetchNode>() != nullptr; });
  ASSERT_EQ(prefetches, 1);
  const DataType t = DataType::Float32();
  NDArray a = random_array(t, 2048, 61), w = random_array(t, 32768, 62);
  NDArray want(t, {256}), got(t, {256});  // zero-filled
  run(before, {&a, &w, &want}, 2);
  run(after, {&a, &w, &got}, 2);
  for (int e = 0; e < 256; ++e) ASSERT_EQ(got.data_as<float>()[e], want.data_as<float>()[e]) << e;
}

}  // namespace
}  // namespace kiln
