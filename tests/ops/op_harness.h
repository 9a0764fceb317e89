// Running workloads on the reference interpreter with host data, for
// comparing ops with plain C++ loops.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ops/workload.h"
#include "tir/interp/float_formats.h"
#include "tir/interp/interpreter.h"

namespace kiln::test {

// One argument's storage; values read and written as doubles.
struct Array {
  DataType dtype;
  std::vector<int64_t> shape;
  std::vector<unsigned char> bytes;

  explicit Array(const Buffer& b) : dtype(b.dtype()) {
    size_t n = 1;
    for (const Expr& e : b.shape()) {
      const int64_t* c = as_const_int(e);
      EXPECT_NE(c, nullptr) << "parameter " << b.name() << " has a non-constant extent";
      shape.push_back(c ? *c : 0);
      n *= static_cast<size_t>(shape.back());
    }
    bytes.assign(n * static_cast<size_t>(dtype.bytes()), 0);
  }

  size_t size() const { return bytes.size() / static_cast<size_t>(dtype.bytes()); }

  double get(size_t i) const {
    const unsigned char* p = bytes.data() + i * static_cast<size_t>(dtype.bytes());
    if (dtype == DataType::Float32()) return load<float>(p);
    if (dtype == DataType::Float(64)) return load<double>(p);
    if (dtype == DataType::Float(16)) return interp::decode_half(load<uint16_t>(p));
    if (dtype == DataType::Int(8)) return load<int8_t>(p);
    if (dtype == DataType::Int32()) return load<int32_t>(p);
    ADD_FAILURE() << "test harness: no reader for " << dtype.str();
    return 0;
  }

  void set(size_t i, double v) {
    unsigned char* p = bytes.data() + i * static_cast<size_t>(dtype.bytes());
    if (dtype == DataType::Float32()) return store<float>(p, static_cast<float>(v));
    if (dtype == DataType::Float(64)) return store<double>(p, v);
    if (dtype == DataType::Float(16)) return store<uint16_t>(p, interp::encode_half(v));
    if (dtype == DataType::Int(8)) return store<int8_t>(p, static_cast<int8_t>(v));
    if (dtype == DataType::Int32()) return store<int32_t>(p, static_cast<int32_t>(v));
    ADD_FAILURE() << "test harness: no writer for " << dtype.str();
  }

  std::vector<double> values() const {
    std::vector<double> v(size());
    for (size_t i = 0; i < v.size(); ++i) v[i] = get(i);
    return v;
  }

  HostBuffer host() { return HostBuffer{dtype, shape, bytes.data()}; }

 private:
  template <typename T>
  static T load(const unsigned char* p) {
    T x;
    std::memcpy(&x, p, sizeof(T));
    return x;
  }
  template <typename T>
  static void store(unsigned char* p, T x) {
    std::memcpy(p, &x, sizeof(T));
  }
};

// Deterministic inputs: floats in [-1, 1) (values exactly representable in
// float16, so every dtype sees the same numbers), integers in [-3, 3].
inline void fill(Array& a, uint32_t seed) {
  uint32_t s = 2654435761u * (seed + 1);
  for (size_t i = 0; i < a.size(); ++i) {
    s = s * 1664525u + 1013904223u;
    if (a.dtype.is_float()) a.set(i, static_cast<double>(static_cast<int>(s >> 21) - 1024) / 1024.0);
    else a.set(i, static_cast<double>(static_cast<int>((s >> 16) % 7) - 3));
  }
}

// The values of the workload's inputs and of its output after one run.
struct RunResult {
  std::vector<std::vector<double>> inputs;
  std::vector<double> output;
};

inline RunResult run_workload(const ops::Workload& w) {
  PrimFunc f = ops::build_workload(w);
  std::vector<Array> args;
  for (const Buffer& b : f.params()) args.emplace_back(b);
  RunResult r;
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    fill(args[i], static_cast<uint32_t>(i * 7 + 3));
    r.inputs.push_back(args[i].values());
  }
  // The output starts as garbage: every element must be written.
  for (size_t i = 0; i < args.back().size(); ++i) args.back().set(i, 77);
  std::vector<HostBuffer> hosts;
  for (Array& a : args) hosts.push_back(a.host());
  interpret(f, hosts);
  r.output = args.back().values();
  return r;
}

// Integer results wrap at the type's width, as the generated code does.
inline double wrap_to(DataType t, double v) {
  if (!t.is_int()) return v;
  int64_t x = static_cast<int64_t>(v);
  int bits = t.bits();
  if (bits >= 64) return static_cast<double>(x);
  uint64_t mask = (uint64_t{1} << bits) - 1;
  uint64_t u = static_cast<uint64_t>(x) & mask;
  if ((u >> (bits - 1)) & 1) u |= ~mask;
  return static_cast<double>(static_cast<int64_t>(u));
}

// Compares element by element: integers exactly, floats within rel_tol of
// max(|want|, 1).
inline void expect_close(const std::vector<double>& got, const std::vector<double>& want, DataType t,
                         double rel_tol) {
  ASSERT_EQ(got.size(), want.size());
  int reported = 0;
  for (size_t i = 0; i < got.size() && reported < 5; ++i) {
    double w = wrap_to(t, want[i]);
    bool ok = t.is_float() ? std::abs(got[i] - w) <= rel_tol * std::max(std::abs(w), 1.0) : got[i] == w;
    if (!ok) {
      ADD_FAILURE() << "element " << i << ": got " << got[i] << ", want " << w;
      ++reported;
    }
  }
}

}  // namespace kiln::test
