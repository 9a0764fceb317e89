// NDArray: an owning, dense, row-major host tensor.
//
// Data is 64-byte aligned (a cache line, and an AVX-512 register) so that
// kernels and measurements never depend on where malloc happened to put it;
// an array of 2 MiB or more starts on a 2 MiB boundary and asks for huge
// pages (ndarray.cpp).
// Move-only: a copy of a tensor is always explicit (copy()).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/dtype.h"
#include "tir/interp/interpreter.h"

namespace kiln {

class NDArray {
 public:
  static constexpr size_t kAlignment = 64;

  NDArray() = default;
  // Zero-filled. Throws kiln::Error for a vector dtype or a negative extent.
  NDArray(DataType dtype, std::vector<int64_t> shape);
  NDArray(NDArray&&) noexcept = default;
  NDArray& operator=(NDArray&&) noexcept = default;

  DataType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int64_t numel() const { return numel_; }
  // Bytes of data; bool takes one byte per element.
  size_t nbytes() const { return static_cast<size_t>(numel_) * static_cast<size_t>(dtype_.bytes()); }

  void* data() { return data_.get(); }
  const void* data() const { return data_.get(); }
  template <typename T>
  T* data_as() {
    return static_cast<T*>(data());
  }
  template <typename T>
  const T* data_as() const {
    return static_cast<const T*>(data());
  }

  // Fills with values drawn from `seed`: floats uniform in [lo, hi), integers
  // uniform in [lo, hi] clipped to the type's range, bool 0 or 1. Equal seeds
  // give equal contents on every machine.
  void fill_random(uint64_t seed, double lo = -1.0, double hi = 1.0);
  // Element i converted to double (float16/bfloat16 decoded).
  double get(int64_t i) const;
  // Stores v converted to the element type at i.
  void set(int64_t i, double v);

  NDArray copy() const;
  // A view for the reference interpreter.
  HostBuffer host_buffer();

 private:
  struct Free {
    void operator()(void* p) const;
  };
  DataType dtype_;
  std::vector<int64_t> shape_;
  int64_t numel_ = 0;
  std::unique_ptr<void, Free> data_;
};

}  // namespace kiln
