// The ONNX front end: a .onnx model (protobuf, read with Debian's
// libonnx) into a Graph with every shape inferred.
//
// What it refuses, each with an error naming what is wrong: a file that is
// not a model; an operator outside graph/op_table.h or of another domain
// (the node, its op type and opset); an opset newer than kMaxOpset; a
// dtype kiln does not compute in (the value); weights in external files;
// a dynamic input dimension that --input-shapes does not fix (the input
// and the flag); nodes out of order.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace kiln::graph {

struct ImportOptions {
  // Shapes for inputs with dynamic dimensions (or to override static
  // ones), by input name: `--input-shapes data:[1,3,224,224]`.
  std::map<std::string, std::vector<int64_t>> input_shapes;
  // Values known at compile time for inputs that nodes read as parameters
  // (a Reshape's shape, a Slice's starts, a Clip's bounds: is_parameter_input
  // in graph/lower.h): such an input becomes a constant. Other inputs named
  // here stay run-time inputs.
  std::map<std::string, std::shared_ptr<const NDArray>> input_values;
  // A node whose inputs are all constants is folded at import, run on the
  // reference interpreter (some 4·10^7 steps a second) so that the shapes
  // after it are known. One that would take more steps than this (a
  // product of two weight matrices, a whole model given its input as an
  // initializer) is left to run compiled with the rest, its output no
  // constant. Shape chains take tens of steps, a weight transpose about
  // two per element: the default folds a 4096 x 8192 weight in about 1.5 s.
  double max_fold_steps = double(int64_t{1} << 26);
};

// Parses the `--input-shapes` text: "name:[1,3,224,224]", several joined
// by spaces or semicolons. Throws kiln::Error naming the malformed part.
std::map<std::string, std::vector<int64_t>> parse_input_shapes(const std::string& text);

Graph import_onnx_file(const std::string& path, const ImportOptions& options = {});

// The inputs a model file declares, initializers excluded, in order: what
// its test data's input_N.pb files are for.
std::vector<std::string> onnx_input_names(const std::string& path);

// The same from a serialized ModelProto (tests build models in memory).
Graph import_onnx_bytes(const std::string& bytes, const ImportOptions& options = {});

// The element type of an ONNX TensorProto.DataType code (Cast's `to`, a
// tensor's data_type). Throws UnsupportedError naming `what` for one kiln
// does not compute in (bfloat16, strings, complex).
DataType onnx_element_type(int64_t code, const std::string& what);

// A serialized TensorProto (ONNX test data: input_0.pb, output_0.pb) to a
// tensor, and back; `name` is the value it is for.
NDArray read_tensor_file(const std::string& path);
// The tensors STEM_0.pb, STEM_1.pb, ... of `dir`, up to the first missing
// one (a test data set's inputs or outputs).
std::vector<NDArray> read_numbered_tensors(const std::string& dir, const std::string& stem);
NDArray tensor_from_bytes(const std::string& bytes, const std::string& what);
std::string tensor_to_bytes(const NDArray& a, const std::string& name);

}  // namespace kiln::graph
