// CompiledKernel: a callable kernel, however it was produced (the JIT, or a
// shared library loaded from disk). It keeps its code alive: destroying it
// frees the JIT's code for it or closes the library.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "targets/runtime/kernel_abi.h"
#include "targets/runtime/ndarray.h"
#include "targets/runtime/thread_pool.h"

namespace kiln {

// One parameter of a kernel, as its signature records it.
struct KernelParam {
  std::string name;
  DataType dtype;
  int64_t numel = -1;  // elements of the flat buffer; -1 when not a constant
};

class CompiledKernel {
 public:
  // `owner` keeps fn's code alive and releases it when the kernel dies.
  CompiledKernel(std::string name, KilnKernelFn fn, std::vector<KernelParam> params, std::shared_ptr<void> owner);
  CompiledKernel(const CompiledKernel&) = delete;
  CompiledKernel& operator=(const CompiledKernel&) = delete;

  const std::string& name() const { return name_; }
  const std::vector<KernelParam>& params() const { return params_; }
  KilnKernelFn function() const { return fn_; }

  // Runs the kernel on data pointers (one per parameter, in order) with
  // `pool` running its parallel loops. Returns the kernel's KILN_STATUS_*.
  // Throws kiln::Error when the number of pointers is wrong.
  int32_t call(const std::vector<void*>& args, ThreadPool& pool) const;
  // The same with arrays, each checked against its parameter's type and size.
  int32_t call_arrays(const std::vector<NDArray*>& args, ThreadPool& pool) const;

  // Parses a kernel signature ("A:float32:1024;B:int8:-1"); throws kiln::Error.
  static std::vector<KernelParam> parse_signature(const std::string& s);

 private:
  std::string name_;
  KilnKernelFn fn_;
  std::vector<KernelParam> params_;
  std::shared_ptr<void> owner_;
};

}  // namespace kiln
