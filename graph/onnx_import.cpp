#include "graph/onnx_import.h"

#include <cstring>
#include <filesystem>
#include <set>
#include <sstream>

#include "core/error.h"
#include "core/file.h"
#include "graph/lower.h"
#include "graph/op_table.h"
#include "graph/shape_util.h"
#include "graph/unsupported.h"
#include "onnx/onnx_pb.h"

namespace kiln::graph {

DataType onnx_element_type(int64_t elem, const std::string& what) {
  using T = onnx::TensorProto;
  switch (elem) {
    case T::FLOAT: return DataType::Float32();
    case T::DOUBLE: return DataType::Float(64);
    case T::FLOAT16: return DataType::Float(16);
    case T::INT8: return DataType::Int(8);
    case T::INT16: return DataType::Int(16);
    case T::INT32: return DataType::Int32();
    case T::INT64: return DataType::Int64();
    case T::UINT8: return DataType::UInt(8);
    case T::UINT16: return DataType::UInt(16);
    case T::UINT32: return DataType::UInt(32);
    case T::UINT64: return DataType::UInt(64);
    case T::BOOL: return DataType::Bool();
    default: break;
  }
  const bool named = elem >= INT32_MIN && elem <= INT32_MAX && T::DataType_IsValid(static_cast<int>(elem));
  const std::string name = named ? T::DataType_Name(static_cast<T::DataType>(elem)) : "element type " + std::to_string(elem);
  KILN_UNSUPPORTED() << what << " is of type " << name << ", which kiln does not compute in";
  return {};
}

namespace {

int32_t elem_of(DataType t) {
  using T = onnx::TensorProto;
  if (t == DataType::Float32()) return T::FLOAT;
  if (t == DataType::Float(64)) return T::DOUBLE;
  if (t == DataType::Float(16)) return T::FLOAT16;
  if (t == DataType::Int(8)) return T::INT8;
  if (t == DataType::Int(16)) return T::INT16;
  if (t == DataType::Int32()) return T::INT32;
  if (t == DataType::Int64()) return T::INT64;
  if (t == DataType::UInt(8)) return T::UINT8;
  if (t == DataType::UInt(16)) return T::UINT16;
  if (t == DataType::UInt(32)) return T::UINT32;
  if (t == DataType::UInt(64)) return T::UINT64;
  if (t == DataType::Bool()) return T::BOOL;
  KILN_USER_ERROR() << "no ONNX element type for " << t.str();
  return 0;
}

// How many values a tensor without raw data holds: its data type says in
// which field (FLOAT16's bits, and every integer narrower than 64 bits
// and bool, are in int32_data).
int64_t values_held(const onnx::TensorProto& t) {
  using T = onnx::TensorProto;
  switch (t.data_type()) {
    case T::FLOAT: return t.float_data_size();
    case T::DOUBLE: return t.double_data_size();
    case T::INT64: return t.int64_data_size();
    case T::UINT32:
    case T::UINT64: return t.uint64_data_size();
    default: return t.int32_data_size();
  }
}

NDArray tensor_of(const onnx::TensorProto& t, const std::string& what) {
  if (t.data_location() == onnx::TensorProto::EXTERNAL)
    KILN_UNSUPPORTED() << what << " keeps its data in an external file, which kiln does not read";
  const DataType dtype = onnx_element_type(t.data_type(), what);
  std::vector<int64_t> dims(t.dims().begin(), t.dims().end());
  const int64_t elements = checked_numel(dims, what);
  // The counts first, then the allocation: a proto of a few bytes may
  // claim 2^40 elements it does not hold.
  if (t.has_raw_data()) {
    if (t.raw_data().size() != static_cast<size_t>(elements * dtype.bytes()))
      KILN_USER_ERROR() << what << " holds " << t.raw_data().size() << " bytes for " << elements << " elements";
  } else if (values_held(t) != elements) {
    KILN_USER_ERROR() << what << " holds " << values_held(t) << " values for " << elements << " elements";
  }
  NDArray a(dtype, dims);
  const int64_t n = a.numel();
  if (t.has_raw_data()) {
    std::memcpy(a.data(), t.raw_data().data(), a.nbytes());
    return a;
  }
  using T = onnx::TensorProto;
  switch (t.data_type()) {
    case T::FLOAT: std::copy(t.float_data().begin(), t.float_data().end(), a.data_as<float>()); break;
    case T::DOUBLE: std::copy(t.double_data().begin(), t.double_data().end(), a.data_as<double>()); break;
    case T::INT64: std::copy(t.int64_data().begin(), t.int64_data().end(), a.data_as<int64_t>()); break;
    case T::UINT32:
    case T::UINT64:
      for (int64_t i = 0; i < n; ++i) a.set(i, static_cast<double>(t.uint64_data(static_cast<int>(i))));
      break;
    case T::FLOAT16:  // int32_data holds the bits
      for (int64_t i = 0; i < n; ++i) {
        const uint16_t bits = static_cast<uint16_t>(t.int32_data(static_cast<int>(i)));
        std::memcpy(static_cast<char*>(a.data()) + 2 * i, &bits, 2);
      }
      break;
    default:  // int32, int16, int8, uint16, uint8, bool
      for (int64_t i = 0; i < n; ++i) a.set(i, t.int32_data(static_cast<int>(i)));
      break;
  }
  return a;
}

AttrValue attr_of(const onnx::AttributeProto& a, const std::string& node) {
  using A = onnx::AttributeProto;
  switch (a.type()) {
    case A::INT: return a.i();
    case A::FLOAT: return static_cast<double>(a.f());
    case A::STRING: return a.s();
    case A::INTS: return std::vector<int64_t>(a.ints().begin(), a.ints().end());
    case A::FLOATS: return std::vector<double>(a.floats().begin(), a.floats().end());
    case A::TENSOR:
      return std::make_shared<const NDArray>(tensor_of(a.t(), node + ": attribute '" + a.name() + "'"));
    default: break;
  }
  KILN_UNSUPPORTED() << node << ": attribute '" << a.name() << "' is of type "
                    << (A::AttributeType_IsValid(a.type()) ? A::AttributeType_Name(a.type()) : "unknown")
                    << ", which kiln does not read";
  return {};
}

// The static shape of a graph input, from the model or from `given`.
std::vector<int64_t> input_shape(const onnx::ValueInfoProto& in, const ImportOptions& options) {
  auto given = options.input_shapes.find(in.name());
  if (given != options.input_shapes.end()) {
    checked_numel(given->second, "input '" + in.name() + "'");
    return given->second;
  }
  const onnx::TypeProto_Tensor& t = in.type().tensor_type();
  std::vector<int64_t> shape;
  if (!t.has_shape())
    KILN_USER_ERROR() << "input '" << in.name() << "' has no shape in the model; give it with --input-shapes "
                      << in.name() << ":[...]";
  for (const onnx::TensorShapeProto_Dimension& d : t.shape().dim()) {
    if (!d.has_dim_value() || d.dim_value() < 0)
      KILN_USER_ERROR() << "input '" << in.name() << "' has a dynamic dimension"
                        << (d.has_dim_param() ? " '" + d.dim_param() + "'" : std::string())
                        << "; give its shape with --input-shapes " << in.name() << ":[...]";
    shape.push_back(d.dim_value());
  }
  checked_numel(shape, "input '" + in.name() + "'");
  return shape;
}

Graph import_model(const onnx::ModelProto& m, const ImportOptions& options) {
  Graph g;
  for (const onnx::OperatorSetIdProto& o : m.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") g.opset = o.version();
  if (g.opset == 0)
    KILN_UNSUPPORTED() << "the model imports no opset of the default ONNX domain; other domains are not supported";
  if (g.opset > kMaxOpset)
    KILN_UNSUPPORTED() << "the model uses opset " << g.opset << "; kiln reads opsets up to " << kMaxOpset;
  const onnx::GraphProto& gp = m.graph();
  for (const onnx::TensorProto& t : gp.initializer()) {
    Value v;
    v.name = t.name();
    v.data = std::make_shared<const NDArray>(tensor_of(t, "initializer '" + t.name() + "'"));
    v.dtype = v.data->dtype();
    v.shape = v.data->shape();
    g.add_value(std::move(v));
  }
  for (const auto& [name, shape] : options.input_shapes) {
    bool found = false;
    for (const onnx::ValueInfoProto& in : gp.input()) found = found || in.name() == name;
    if (!found || g.find_value(name))
      KILN_USER_ERROR() << "--input-shapes names '" << name << "', which is not an input of the model";
  }
  // Inputs some node reads as a parameter, whose value the options give.
  std::set<std::string> bound;
  for (const onnx::NodeProto& np : gp.node())
    for (int i = 0; i < np.input_size(); ++i)
      if (is_parameter_input(np.op_type(), static_cast<size_t>(i)) && options.input_values.count(np.input(i)))
        bound.insert(np.input(i));
  for (const onnx::ValueInfoProto& in : gp.input()) {
    if (g.find_value(in.name())) continue;  // an initializer listed as an input (IR version < 4)
    if (bound.count(in.name())) {
      Value v;
      v.name = in.name();
      v.data = options.input_values.at(in.name());
      v.dtype = v.data->dtype();
      v.shape = v.data->shape();
      g.add_value(std::move(v));
      continue;
    }
    if (!in.type().has_tensor_type())
      KILN_UNSUPPORTED() << "input '" << in.name() << "' is not a tensor: sequences and optionals are not supported";
    Value v;
    v.name = in.name();
    v.dtype = onnx_element_type(in.type().tensor_type().elem_type(), "input '" + in.name() + "'");
    v.shape = input_shape(in, options);
    g.inputs.push_back(g.add_value(std::move(v)));
  }
  for (int i = 0; i < gp.node_size(); ++i) {
    const onnx::NodeProto& np = gp.node(i);
    Node n;
    n.op = np.op_type();
    n.name = np.name().empty() ? np.op_type() + "_" + std::to_string(i) : np.name();
    if (!np.domain().empty() && np.domain() != "ai.onnx")
      KILN_UNSUPPORTED() << n.describe() << ": operator of domain '" << np.domain() << "' is not supported";
    if (!find_op_def(n.op)) refuse_operator(n, g.opset);
    for (const std::string& name : np.input()) {
      if (name.empty()) {
        n.inputs.push_back(Node::kNone);
        continue;
      }
      std::optional<int> id = g.find_value(name);
      if (!id) KILN_USER_ERROR() << n.describe() << ": reads '" << name << "', which nothing before it writes";
      n.inputs.push_back(*id);
    }
    for (const onnx::AttributeProto& a : np.attribute()) n.attrs[a.name()] = attr_of(a, n.describe());
    for (const std::string& name : np.output()) {
      if (name.empty()) {
        n.outputs.push_back(Node::kNone);
        continue;
      }
      if (g.find_value(name)) KILN_USER_ERROR() << n.describe() << ": writes '" << name << "', which is written already";
      Value v;
      v.name = name;
      n.outputs.push_back(g.add_value(std::move(v)));
    }
    g.nodes.push_back(std::move(n));
  }
  for (const onnx::ValueInfoProto& out : gp.output()) g.outputs.push_back(g.value_id(out.name()));
  infer_shapes(g, options.max_fold_steps);
  return g;
}

}  // namespace

std::map<std::string, std::vector<int64_t>> parse_input_shapes(const std::string& text) {
  std::map<std::string, std::vector<int64_t>> out;
  std::string item;
  auto bad = [&](const std::string& why) {
    KILN_USER_ERROR() << "--input-shapes: '" << item << "' " << why << " (expected name:[1,3,224,224])";
  };
  std::string normalized = text;
  for (char& c : normalized)
    if (c == ';') c = ' ';
  std::istringstream in(normalized);
  while (in >> item) {
    const size_t colon = item.rfind(":[");
    if (colon == std::string::npos || colon == 0 || item.back() != ']') bad("is not name:[dims]");
    std::vector<int64_t> dims;
    std::istringstream ds(item.substr(colon + 2, item.size() - colon - 3));
    std::string d;
    while (std::getline(ds, d, ',')) {
      try {
        size_t used = 0;
        const long long v = std::stoll(d, &used);
        if (used != d.size() || v < 0) bad("has a bad dimension '" + d + "'");
        dims.push_back(v);
      } catch (const std::logic_error&) {
        bad("has a bad dimension '" + d + "'");
      }
    }
    if (!out.emplace(item.substr(0, colon), dims).second) bad("names an input twice");
  }
  return out;
}

Graph import_onnx_bytes(const std::string& bytes, const ImportOptions& options) {
  onnx::ModelProto m;
  if (!m.ParseFromString(bytes) || !m.has_graph()) KILN_USER_ERROR() << "not an ONNX model (no graph in the protobuf)";
  return import_model(m, options);
}

Graph import_onnx_file(const std::string& path, const ImportOptions& options) {
  const std::string bytes = read_file(path, "model");
  onnx::ModelProto m;
  if (!m.ParseFromString(bytes) || !m.has_graph()) KILN_USER_ERROR() << "'" << path << "' is not an ONNX model";
  return import_model(m, options);
}

std::vector<std::string> onnx_input_names(const std::string& path) {
  onnx::ModelProto m;
  if (!m.ParseFromString(read_file(path, "model")) || !m.has_graph())
    KILN_USER_ERROR() << "'" << path << "' is not an ONNX model";
  std::set<std::string> initializers;
  for (const onnx::TensorProto& t : m.graph().initializer()) initializers.insert(t.name());
  std::vector<std::string> out;
  for (const onnx::ValueInfoProto& in : m.graph().input()) {
    if (initializers.count(in.name())) continue;
    if (!in.type().has_tensor_type())
      KILN_UNSUPPORTED() << "input '" << in.name() << "' is not a tensor: sequences and optionals are not supported";
    out.push_back(in.name());
  }
  return out;
}

NDArray tensor_from_bytes(const std::string& bytes, const std::string& what) {
  onnx::TensorProto t;
  if (!t.ParseFromString(bytes)) KILN_USER_ERROR() << what << " is not a serialized ONNX tensor";
  return tensor_of(t, what);
}

NDArray read_tensor_file(const std::string& path) { return tensor_from_bytes(read_file(path, "tensor"), "'" + path + "'"); }

std::vector<NDArray> read_numbered_tensors(const std::string& dir, const std::string& stem) {
  std::vector<NDArray> out;
  for (int i = 0;; ++i) {
    const std::filesystem::path p = std::filesystem::path(dir) / (stem + "_" + std::to_string(i) + ".pb");
    if (!std::filesystem::exists(p)) break;
    out.push_back(read_tensor_file(p.string()));
  }
  return out;
}

std::string tensor_to_bytes(const NDArray& a, const std::string& name) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(elem_of(a.dtype()));
  for (int64_t d : a.shape()) t.add_dims(d);
  t.set_raw_data(a.data(), a.nbytes());
  return t.SerializeAsString();
}

}  // namespace kiln::graph
