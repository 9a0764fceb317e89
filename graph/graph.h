// The graph IR: a model as nodes over values, every shape static.
//
// What a model is between its front end (ONNX, graph/onnx_import.h) and
// the compiler: values (tensors with a dtype and a static shape, some of
// them constants: weights, folded shapes) and nodes (an ONNX operator, its
// attributes, the values it reads and writes), the nodes in an order in
// which every value is written before it is read. Passes rewrite a Graph
// into another Graph; the printer (Graph::str) is what `kiln graph` shows.
//
//   %input: float32[1, 3, 224, 224]
//   %conv1.weight: float32[64, 3, 7, 7] = const
//   %x = Conv(%input, %conv1.weight) {kernel_shape=[7, 7], pads=[3, 3, 3, 3], strides=[2, 2]} : float32[1, 64, 112, 112]
//
// Operators keep their ONNX names and attribute names, so that an error
// about a node reads as the model's author wrote it. The operators the
// compiler takes, and how each one's shape follows from its inputs, are
// in graph/op_table.h.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/dtype.h"
#include "targets/runtime/ndarray.h"

namespace kiln::graph {

// An attribute: ONNX's INT, FLOAT, STRING, INTS, FLOATS or TENSOR
// (Constant's and ConstantOfShape's value).
using TensorAttr = std::shared_ptr<const NDArray>;
using AttrValue = std::variant<int64_t, double, std::string, std::vector<int64_t>, std::vector<double>, TensorAttr>;

struct Value {
  std::string name;
  DataType dtype = DataType::Float32();
  std::vector<int64_t> shape;
  // The contents of a constant (an initializer, a Constant, a folded
  // computation); null for a value computed at run time. Shared: passes
  // copy graphs, never weights.
  std::shared_ptr<const NDArray> data;

  bool is_constant() const { return data != nullptr; }
  int64_t numel() const;
  // Whether it is a constant of zeros only (a zero point that subtracts
  // nothing).
  bool is_zeros() const;
};

struct Node {
  std::string name;  // the model's name for it, or "<op>_<index>" where it had none
  std::string op;    // the ONNX operator type: "Conv", "Relu", ...
  std::vector<int> inputs;   // value ids; kNone for an omitted optional input
  std::vector<int> outputs;  // value ids
  std::map<std::string, AttrValue> attrs;

  static constexpr int kNone = -1;

  // The attribute `key` as the type asked for, or `fallback` when absent.
  // Throws kiln::Error naming the node when it holds another type.
  int64_t attr_int(const std::string& key, int64_t fallback) const;
  double attr_float(const std::string& key, double fallback) const;
  std::string attr_string(const std::string& key, const std::string& fallback) const;
  std::vector<int64_t> attr_ints(const std::string& key, const std::vector<int64_t>& fallback) const;
  std::vector<double> attr_floats(const std::string& key, const std::vector<double>& fallback) const;
  TensorAttr attr_tensor(const std::string& key) const;  // null when absent
  bool has_attr(const std::string& key) const { return attrs.count(key) > 0; }
  // "node 'conv1' (Conv)": how errors name it.
  std::string describe() const;
};

class Graph {
 public:
  std::vector<Value> values;
  std::vector<Node> nodes;   // every value written before it is read
  std::vector<int> inputs;   // run-time inputs (not constants), in the model's order
  std::vector<int> outputs;  // in the model's order
  int64_t opset = 0;         // of the default ONNX domain

  int add_value(Value v);
  // A new constant value holding `data`; its id.
  int add_constant(const std::string& name, NDArray data);
  // The id of the value called `name`; throws kiln::Error when there is none.
  int value_id(const std::string& name) const;
  std::optional<int> find_value(const std::string& name) const;
  const Value& value(int id) const { return values.at(static_cast<size_t>(id)); }
  Value& value(int id) { return values.at(static_cast<size_t>(id)); }
  // The value node `n` reads as its input `i`, or nullptr when omitted.
  const Value* input(const Node& n, size_t i) const;

  // The text form above: inputs, constants (shapes only), nodes, outputs.
  std::string str() const;
};

// Who reads each value of `g`: the nodes with it among their inputs
// (indices into g.nodes, in order), and whether it is a graph output.
struct ValueReaders {
  std::vector<std::vector<size_t>> nodes;  // per value
  std::vector<bool> is_output;             // per value
};
ValueReaders value_readers(const Graph& g);

// "float32[1, 3, 224, 224]".
std::string type_str(const Value& v);

// "[1, 3, 224, 224]".
std::string shape_str(const std::vector<int64_t>& shape);

}  // namespace kiln::graph
