// The arguments a kernel is measured and checked on.
//
// A kernel's parameters are described by ArgSpecs (name, dtype, shape, and
// whether it is the output), which is all a runner on another machine learns
// about a candidate. From specs and a seed, make_arguments builds the same
// arrays in every process: the tuner's reference, the runner's worker and a
// test all see identical inputs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "targets/runtime/ndarray.h"
#include "tir/stmt.h"

namespace kiln {

struct ArgSpec {
  std::string name;
  DataType dtype;
  std::vector<int64_t> shape;
  bool is_output = false;

  int64_t numel() const;
  bool operator==(const ArgSpec& o) const = default;
};

// One spec per parameter of f, in calling order; the last parameter is the
// output. Throws kiln::InternalError for a parameter of non-constant shape.
std::vector<ArgSpec> arg_specs(const PrimFunc& f);

// Arrays for `specs`: inputs filled with values drawn from seed + i (uniform
// in [-1, 1] for floats, [-4, 4] for signed and [0, 8] for unsigned
// integers, 0 or 1 for bool), outputs zeroed.
std::vector<NDArray> make_arguments(const std::vector<ArgSpec>& specs, uint64_t seed);
std::vector<NDArray> make_arguments(const PrimFunc& f, uint64_t seed);

// Fills `a` with a value no correct kernel leaves behind (NaN for floats,
// a repeated 0x5A byte otherwise), so that an element a candidate forgets
// to write fails the comparison with the reference.
void poison(NDArray& a);

}  // namespace kiln
