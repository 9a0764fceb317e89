#include "graph/graph.h"

#include <sstream>

#include "core/error.h"

namespace kiln::graph {
namespace {

template <typename T>
const T* attr_as(const Node& n, const std::string& key, const char* kind) {
  auto it = n.attrs.find(key);
  if (it == n.attrs.end()) return nullptr;
  const T* v = std::get_if<T>(&it->second);
  if (!v) KILN_USER_ERROR() << n.describe() << ": attribute '" << key << "' is not " << kind;
  return v;
}

template <typename T>
void print_list(std::ostream& os, const std::vector<T>& xs) {
  os << "[";
  for (size_t i = 0; i < xs.size(); ++i) os << (i ? ", " : "") << xs[i];
  os << "]";
}

void print_attr(std::ostream& os, const AttrValue& a) {
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>)
          os << '"' << v << '"';
        else if constexpr (std::is_same_v<T, TensorAttr>)
          os << "tensor " << v->dtype().str() << "[" << v->numel() << "]";
        else if constexpr (std::is_same_v<T, std::vector<int64_t>> || std::is_same_v<T, std::vector<double>>)
          print_list(os, v);
        else
          os << v;
      },
      a);
}

}  // namespace

int64_t Value::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int64_t Node::attr_int(const std::string& key, int64_t fallback) const {
  const int64_t* v = attr_as<int64_t>(*this, key, "an integer");
  return v ? *v : fallback;
}

double Node::attr_float(const std::string& key, double fallback) const {
  const double* v = attr_as<double>(*this, key, "a float");
  return v ? *v : fallback;
}

std::string Node::attr_string(const std::string& key, const std::string& fallback) const {
  const std::string* v = attr_as<std::string>(*this, key, "a string");
  return v ? *v : fallback;
}

std::vector<int64_t> Node::attr_ints(const std::string& key, const std::vector<int64_t>& fallback) const {
  const std::vector<int64_t>* v = attr_as<std::vector<int64_t>>(*this, key, "a list of integers");
  return v ? *v : fallback;
}

std::vector<double> Node::attr_floats(const std::string& key, const std::vector<double>& fallback) const {
  const std::vector<double>* v = attr_as<std::vector<double>>(*this, key, "a list of floats");
  return v ? *v : fallback;
}

TensorAttr Node::attr_tensor(const std::string& key) const {
  const TensorAttr* v = attr_as<TensorAttr>(*this, key, "a tensor");
  return v ? *v : nullptr;
}

std::string Node::describe() const { return "node '" + name + "' (" + op + ")"; }

bool Value::is_zeros() const {
  if (!data) return false;
  for (int64_t i = 0; i < data->numel(); ++i)
    if (data->get(i) != 0) return false;
  return true;
}

int Graph::add_value(Value v) {
  values.push_back(std::move(v));
  return static_cast<int>(values.size()) - 1;
}

int Graph::add_constant(const std::string& name, NDArray data) {
  Value v;
  v.name = name;
  v.dtype = data.dtype();
  v.shape = data.shape();
  v.data = std::make_shared<const NDArray>(std::move(data));
  return add_value(std::move(v));
}

std::optional<int> Graph::find_value(const std::string& name) const {
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i].name == name) return static_cast<int>(i);
  return std::nullopt;
}

int Graph::value_id(const std::string& name) const {
  std::optional<int> id = find_value(name);
  if (!id) KILN_USER_ERROR() << "the graph has no value '" << name << "'";
  return *id;
}

const Value* Graph::input(const Node& n, size_t i) const {
  if (i >= n.inputs.size() || n.inputs[i] == Node::kNone) return nullptr;
  return &value(n.inputs[i]);
}

ValueReaders value_readers(const Graph& g) {
  ValueReaders r;
  r.nodes.resize(g.values.size());
  r.is_output.assign(g.values.size(), false);
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (int id : g.nodes[i].inputs)
      if (id != Node::kNone) r.nodes[static_cast<size_t>(id)].push_back(i);
  for (int id : g.outputs) r.is_output[static_cast<size_t>(id)] = true;
  return r;
}

std::string type_str(const Value& v) { return v.dtype.str() + shape_str(v.shape); }

std::string shape_str(const std::vector<int64_t>& shape) {
  std::ostringstream os;
  print_list(os, shape);
  return os.str();
}

std::string Graph::str() const {
  std::ostringstream os;
  os << "graph (opset " << opset << ")\n";
  for (int id : inputs) os << "  input %" << value(id).name << ": " << type_str(value(id)) << "\n";
  // Constants that some node reads, once each, before the nodes.
  std::vector<bool> shown(values.size(), false);
  for (const Node& n : nodes)
    for (int id : n.inputs)
      if (id != Node::kNone && value(id).is_constant() && !shown[static_cast<size_t>(id)]) {
        shown[static_cast<size_t>(id)] = true;
        os << "  const %" << value(id).name << ": " << type_str(value(id)) << "\n";
      }
  for (const Node& n : nodes) {
    os << "  ";
    for (size_t i = 0; i < n.outputs.size(); ++i) os << (i ? ", " : "") << "%" << value(n.outputs[i]).name;
    os << " = " << n.op << "(";
    for (size_t i = 0; i < n.inputs.size(); ++i)
      os << (i ? ", " : "") << (n.inputs[i] == Node::kNone ? std::string("_") : "%" + value(n.inputs[i]).name);
    os << ")";
    if (!n.attrs.empty()) {
      os << " {";
      bool first = true;
      for (const auto& [key, a] : n.attrs) {
        os << (first ? "" : ", ") << key << "=";
        print_attr(os, a);
        first = false;
      }
      os << "}";
    }
    os << " :";
    for (size_t i = 0; i < n.outputs.size(); ++i) os << (i ? ", " : " ") << type_str(value(n.outputs[i]));
    os << "  # " << n.name << "\n";
  }
  for (int id : outputs) os << "  output %" << value(id).name << ": " << type_str(value(id)) << "\n";
  return os.str();
}

}  // namespace kiln::graph
