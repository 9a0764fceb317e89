// Arrays from Python, borrowed for one call of a kernel: anything with the
// buffer protocol (numpy) and anything with __dlpack__ (torch, jax, cupy on
// the host, numpy too), checked against the parameter's type and shape.
//
// torch tensors on the CPU are read through their attributes (data_ptr,
// dtype, shape, stride), DLPack's information without its cost per call.
//
// A C-contiguous array is passed as it is (zero copy: the kernel reads and
// writes the caller's memory). Any other layout (a transposed view, a
// slice with steps) is copied into an aligned temporary before the call
// and, for an output, copied back after it. An output must be writable.
#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "python/src/bindings.h"
#include "targets/runtime/arguments.h"
#include "targets/runtime/ndarray.h"

namespace kiln::py {

class BorrowedArray {
 public:
  // Borrows `obj` as `spec` (an output when spec.is_output). Throws
  // TypeError naming the argument for a wrong type, shape, device, or an
  // object that is no array; ValueError for an output that is read-only.
  BorrowedArray(pyb::handle obj, const ArgSpec& spec, int index);
  BorrowedArray(BorrowedArray&&) noexcept;
  BorrowedArray& operator=(BorrowedArray&&) = delete;
  // Releases the buffer or the DLPack tensor; the GIL must be held.
  ~BorrowedArray();

  void* data() const { return data_; }
  // After the call: an output that was copied goes back to its array.
  void finish();

 private:
  void from_buffer(pyb::handle obj, const ArgSpec& spec, int index);
  void from_dlpack(pyb::handle obj, const ArgSpec& spec, int index);
  // A torch.Tensor on the CPU, read through its attributes: what DLPack
  // gives, without torch's __dlpack__, which costs a microsecond a tensor.
  void from_torch(pyb::handle obj, const ArgSpec& spec, int index);
  // When the layout is not C-contiguous: a temporary, filled from `src`
  // laid out with `strides` (bytes) unless the argument is an output.
  void use_temporary(void* src, const std::vector<int64_t>& strides, const ArgSpec& spec);

  void* data_ = nullptr;
  Py_buffer view_{};
  bool has_view_ = false;
  pyb::object capsule_;
  pyb::object keep_;  // a torch tensor, alive while its memory is borrowed
  DLManagedTensor* dl_ = nullptr;
  // The copy for a strided array, and where it goes back to.
  std::unique_ptr<NDArray> temp_;
  void* origin_ = nullptr;
  std::vector<int64_t> origin_strides_, shape_;
  bool copy_back_ = false;
};

// A C-contiguous numpy array of the spec's type and shape, uninitialised:
// an output the caller did not pass.
pyb::object new_numpy_array(const ArgSpec& spec);

}  // namespace kiln::py
