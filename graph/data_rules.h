// The shape rules of the operators that read constant contents (Slice's
// starts, Pad's pads, Gather's indices) or fold to constants (Constant,
// Shape, ConstantOfShape); the others are in graph/op_table.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace kiln::graph {

// What a Slice node takes along each axis of its input (every axis, those
// it does not slice as {0, 1, extent}): out[i] = in[start + i * step].
struct SliceSpec {
  struct Axis {
    int64_t start, step, count;
  };
  std::vector<Axis> axes;
};
SliceSpec slice_spec(const Graph& g, const Node& n);

// What a Pad node adds: pads {b1, ..., bn, e1, ..., en} (negative ones
// crop), the mode ("constant", "reflect", "edge") and the constant.
struct PadSpec {
  std::vector<int64_t> pads;
  std::string mode;
  double value = 0.0;
};
PadSpec pad_spec(const Graph& g, const Node& n);

void slice(const Node& n, Graph& g);
void pad(const Node& n, Graph& g);
void gather(const Node& n, Graph& g);
void constant(const Node& n, Graph& g);
void shape(const Node& n, Graph& g);
void constant_of_shape(const Node& n, Graph& g);

}  // namespace kiln::graph
