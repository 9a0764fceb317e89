/* The calling convention between kiln-generated kernels and whoever runs them.
 *
 * A kernel is a plain C function, so a shared library built by kiln can be
 * loaded by any process (dlopen) and needs no symbol from it beyond libc and
 * libm: everything else the kernel wants from the runtime (the thread pool,
 * large scratch memory) arrives through the KilnRuntimeApi table passed on
 * every call. docs/targets.md describes the contract in full.
 *
 *   int32_t my_kernel(void* const* args, const KilnRuntimeApi* rt);
 *
 * args[i] is the data pointer of the PrimFunc's i-th parameter (in calling
 * order). The kernel returns 0 on success, a KILN_STATUS_* code otherwise. */
#ifndef KILN_TARGETS_RUNTIME_KERNEL_ABI_H_
#define KILN_TARGETS_RUNTIME_KERNEL_ABI_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever the layout of KilnRuntimeApi changes. */
#define KILN_RUNTIME_API_VERSION 1

enum {
  KILN_STATUS_OK = 0,
  KILN_STATUS_ALLOC_FAILED = 1, /* rt->alloc returned NULL */
  KILN_STATUS_TASK_FAILED = 2,  /* the runtime could not run a parallel launch */
};

/* One task of a parallel loop: runs chunk `task` of `num_tasks`. */
typedef int32_t (*KilnTaskFn)(int64_t task, int64_t num_tasks, void* closure);

typedef struct KilnRuntimeApi {
  uint32_t version; /* KILN_RUNTIME_API_VERSION */
  uint32_t reserved;
  /* Opaque handle passed back to every function below. */
  void* pool;
  /* Runs fn(task, n, closure) for task in [0, n) and returns the first
   * non-zero status of a task, 0 if all succeeded. The runtime picks
   * n = min(max_tasks, its thread count), or 1 when called from inside a task
   * (parallel loops do not nest). */
  int32_t (*parallel_launch)(void* pool, KilnTaskFn fn, void* closure, int64_t max_tasks);
  /* Scratch memory aligned to `alignment` bytes (a power of two), NULL on
   * failure; freed with free_scratch. Safe to call from tasks. */
  void* (*alloc_scratch)(void* pool, uint64_t nbytes, uint64_t alignment);
  void (*free_scratch)(void* pool, void* ptr);
} KilnRuntimeApi;

/* The signature of every kernel. */
typedef int32_t (*KilnKernelFn)(void* const* args, const KilnRuntimeApi* rt);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* KILN_TARGETS_RUNTIME_KERNEL_ABI_H_ */
