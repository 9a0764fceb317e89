// The table of workload ops: one entry per op, the single source for parsing
// workload strings, the `kiln` help text and the reference part of
// docs/workloads.md. Adding an op is one entry here plus its compute
// definition.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ops/workload.h"

namespace kiln::ops {

struct ParamSpec {
  std::string name;
  std::string doc;
  std::optional<int64_t> default_value;  // none: the key is required
  int64_t min = 1;
  int64_t max = INT32_MAX;
  // When not empty the value is written as one of these names and stored as
  // its position (min and max are then ignored).
  std::vector<std::string> choices;
};

enum class DTypeRule {
  kNumeric,  // int8..int64, uint8..uint64, float16, float32, float64
  kFloat,    // float16, float32, float64
  kFixed,    // the op's name says its types (matmul_u8s8s32): no dtype key
};

struct OpSpec {
  std::string name;
  std::string summary;
  std::string shapes;     // e.g. "A[M,K], B[K,N] -> C[M,N]"
  std::string flops_doc;  // the FLOP formula, e.g. "2·M·N·K"
  std::vector<ParamSpec> params;
  DTypeRule dtypes = DTypeRule::kNumeric;
  std::function<PrimFunc(const Workload&)> build;
  std::function<double(const Workload&)> flops;
  // Checks beyond each value's range (shapes that fit together); may be empty.
  std::function<void(const Workload&)> check;
};

const std::vector<OpSpec>& op_table();

// Throws kiln::Error listing the known ops when `name` is not one.
const OpSpec& find_op(const std::string& name);

// A parameter of a checked workload.
int64_t param(const Workload& w, const std::string& key);

}  // namespace kiln::ops
