// Workloads: an operator and its shapes, written as one string.
//
//   matmul:M=512,N=512,K=512
//   conv2d_nchw:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1,dtype=float16
//   dense:M=128,N=256,K=64,bias=1,act=relu
//
// This is how users name what to tune (`kiln tune`), how jobs travel to the
// tuning daemon, and how logs say what a record was measured on. The keys of
// each operator, their defaults and the FLOP count come from one table
// (ops/op_table.h), which also drives the `kiln` help text and
// docs/workloads.md, so the three cannot drift apart.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "tir/stmt.h"

namespace kiln::ops {

struct Workload {
  std::string op;
  // Every key of the op once a workload is parsed, defaults included. A key
  // with named choices (dense's act) holds the choice's position in the
  // table's list of choices.
  std::map<std::string, int64_t> params;
  DataType dtype = DataType::Float32();

  // The canonical string: keys in table order, defaults included, then
  // dtype. parse_workload(w.str()) gives w back. Throws for an unknown op.
  std::string str() const;
  bool operator==(const Workload& o) const { return op == o.op && params == o.params && dtype == o.dtype; }
};

// Parses "OP:key=value,...". Throws kiln::Error naming the bad part: empty
// string, malformed item, unknown op (listing the known ones), unknown,
// duplicated or missing key, a value that is not an integer or out of range,
// a bad or unsupported dtype, and shape errors (padding too large, no output,
// groups not dividing the channels).
Workload parse_workload(const std::string& text);

// Checks a workload built by hand as parse_workload checks a parsed one.
void check_workload(const Workload& w);

// The unscheduled function of the workload (create_prim_func form), named
// after the op; its parameters are the op's inputs, then its output.
PrimFunc build_workload(const Workload& w);

// Floating-point (or integer) operations of one run, by the convention of
// docs/workloads.md: 2 per multiply-accumulate, 1 per other arithmetic
// operation on the data.
double workload_flops(const Workload& w);

// Names of the known ops, in table order.
std::vector<std::string> list_ops();

}  // namespace kiln::ops
