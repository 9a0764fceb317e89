#include "core/json.h"

#include <cmath>
#include <limits>
#include <unordered_map>

namespace kiln {
namespace {

using json = nlohmann::json;

// ---------------------------------------------------------------------------
// Writing.

class Writer {
 public:
  json write(const ObjectRef& root) {
    json doc = json::object();
    doc["kiln_ir"] = kIrJsonVersion;
    doc["root"] = root.defined() ? json(add(root)) : json(nullptr);
    doc["nodes"] = std::move(nodes_);
    return doc;
  }

 private:
  // Post-order without recursion (long expression chains are deep): a node
  // is written once all its children have indices.
  int64_t add(const ObjectRef& root) {
    struct Frame {
      const Object* node;
      std::vector<FieldValue> fields;
      std::vector<const Object*> children;
      size_t next = 0;
    };
    std::vector<Frame> stack;
    auto push = [&](const Object* o) {
      Frame f{o, {}, {}, 0};
      o->write_fields(f.fields);
      for (const FieldValue& v : f.fields) collect_children(v, f.children);
      stack.push_back(std::move(f));
    };
    if (!index_.count(root.get())) push(root.get());
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.next < top.children.size()) {
        const Object* c = top.children[top.next++];
        if (!index_.count(c)) push(c);
        continue;
      }
      emit(*top.node, top.fields);
      stack.pop_back();
    }
    return index_.at(root.get());
  }

  static void collect_children(const FieldValue& v, std::vector<const Object*>& out) {
    if (const auto* r = std::get_if<ObjectRef>(&v.v)) {
      if (r->defined()) out.push_back(r->get());
    } else if (const auto* a = std::get_if<FieldValue::Array>(&v.v)) {
      for (const FieldValue& e : *a) collect_children(e, out);
    }
  }

  void emit(const Object& node, const std::vector<FieldValue>& fields) {
    if (index_.count(&node)) return;  // reached twice from one parent
    json j = json::object();
    j["type"] = std::string(node.type_key());
    auto names = node.field_names();
    KILN_ICHECK(names.size() == fields.size()) << node.type_key() << " declares " << names.size() << " names for "
                                               << fields.size() << " fields";
    for (size_t i = 0; i < fields.size(); ++i) {
      KILN_ICHECK(names[i] != "type") << node.type_key() << " has a field named 'type', which the format reserves";
      j[std::string(names[i])] = value(fields[i]);
    }
    index_[&node] = static_cast<int64_t>(nodes_.size());
    nodes_.push_back(std::move(j));
  }

  json value(const FieldValue& v) {
    return std::visit(
        [&](const auto& x) -> json {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, ObjectRef>) {
            if (!x.defined()) return nullptr;
            return json{{"node", index_.at(x.get())}};
          } else if constexpr (std::is_same_v<T, double>) {
            if (std::isnan(x)) return json{{"float", "nan"}};
            if (std::isinf(x)) return json{{"float", x > 0 ? "inf" : "-inf"}};
            return json{{"float", x}};
          } else if constexpr (std::is_same_v<T, DataType>) {
            return json{{"dtype", x.str()}};
          } else if constexpr (std::is_same_v<T, FieldValue::Array>) {
            json a = json::array();
            for (const FieldValue& e : x) a.push_back(value(e));
            return a;
          } else {
            return json(x);  // int64_t, bool, std::string
          }
        },
        v.v);
  }

  std::unordered_map<const Object*, int64_t> index_;
  json nodes_ = json::array();
};

// ---------------------------------------------------------------------------
// Reading.

class Reader {
 public:
  ObjectRef read(const json& doc) {
    if (!doc.is_object()) KILN_USER_ERROR() << "IR JSON must be an object, not " << doc.type_name();
    for (const auto& [key, v] : doc.items()) {
      if (key != "kiln_ir" && key != "root" && key != "nodes")
        KILN_USER_ERROR() << "IR JSON has an unknown key '" << key << "'";
    }
    auto version = doc.find("kiln_ir");
    if (version == doc.end()) KILN_USER_ERROR() << "IR JSON has no \"kiln_ir\" version";
    if (!version->is_number_integer() || version->get<int64_t>() != kIrJsonVersion)
      KILN_USER_ERROR() << "unsupported kiln_ir version " << version->dump() << " (this build reads "
                        << kIrJsonVersion << ")";
    auto nodes = doc.find("nodes");
    if (nodes == doc.end() || !nodes->is_array()) KILN_USER_ERROR() << "IR JSON has no \"nodes\" array";
    auto root = doc.find("root");
    if (root == doc.end()) KILN_USER_ERROR() << "IR JSON has no \"root\"";

    total_ = nodes->size();
    objects_.reserve(total_);
    for (size_t i = 0; i < nodes->size(); ++i) objects_.push_back(read_node(i, (*nodes)[i]));

    if (root->is_null()) return ObjectRef();
    if (!root->is_number_integer()) KILN_USER_ERROR() << "IR JSON root must be a node index, not " << root->dump();
    int64_t r = root->get<int64_t>();
    if (r < 0 || r >= static_cast<int64_t>(objects_.size()))
      KILN_USER_ERROR() << "IR JSON root refers to node " << r << ", but there are " << objects_.size() << " nodes";
    return objects_[r];
  }

 private:
  ObjectRef read_node(size_t index, const json& j) {
    if (!j.is_object()) KILN_USER_ERROR() << "node " << index << " is not an object";
    auto t = j.find("type");
    if (t == j.end() || !t->is_string()) KILN_USER_ERROR() << "node " << index << " has no \"type\" string";
    const std::string type = t->get<std::string>();
    NodeFactory factory = find_node_factory(type);
    if (!factory) KILN_USER_ERROR() << "node " << index << ": unknown node type '" << type << "'";
    FieldNamesFn names_fn = find_node_field_names(type);
    KILN_ICHECK(names_fn) << "node type " << type << " was registered without its field names";
    auto names = names_fn();

    for (const auto& [key, v] : j.items()) {
      if (key == "type") continue;
      bool known = false;
      for (std::string_view n : names) known = known || n == key;
      if (!known) KILN_USER_ERROR() << "node " << index << " (" << type << "): unknown field '" << key << "'";
    }
    std::vector<FieldValue> fields;
    fields.reserve(names.size());
    for (std::string_view n : names) {
      auto f = j.find(std::string(n));
      if (f == j.end()) KILN_USER_ERROR() << "node " << index << " (" << type << "): missing field '" << n << "'";
      try {
        fields.push_back(value(*f, index));
      } catch (const Error& e) {
        KILN_USER_ERROR() << "node " << index << " (" << type << "): field '" << n << "': " << e.what();
      }
    }
    try {
      return ObjectRef(factory(fields));
    } catch (const Error& e) {
      KILN_USER_ERROR() << "node " << index << " (" << type << "): " << e.what();
    }
  }

  FieldValue value(const json& v, size_t index) {
    switch (v.type()) {
      case json::value_t::null: return FieldValue(ObjectRef());
      case json::value_t::boolean: return FieldValue(v.get<bool>());
      case json::value_t::number_integer: return FieldValue(v.get<int64_t>());
      case json::value_t::number_unsigned: {
        uint64_t u = v.get<uint64_t>();
        if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
          KILN_USER_ERROR() << "integer " << u << " is out of range";
        return FieldValue(static_cast<int64_t>(u));
      }
      case json::value_t::number_float:
        KILN_USER_ERROR() << "untagged number " << v.dump() << " (floats are written {\"float\": ...})";
      case json::value_t::string: return FieldValue(v.get<std::string>());
      case json::value_t::array: {
        FieldValue::Array a;
        a.reserve(v.size());
        for (const json& e : v) a.push_back(value(e, index));
        return FieldValue(std::move(a));
      }
      case json::value_t::object: return tagged(v, index);
      default: break;
    }
    KILN_USER_ERROR() << "unexpected value " << v.dump();
  }

  FieldValue tagged(const json& v, size_t index) {
    if (v.size() != 1) KILN_USER_ERROR() << "a tagged value has one key, not " << v.size() << ": " << v.dump();
    // (Not items(): its proxy would dangle once the statement ends.)
    const auto first = v.begin();
    const std::string& tag = first.key();
    const json& x = first.value();
    if (tag == "node") {
      if (!x.is_number_integer()) KILN_USER_ERROR() << "node reference " << x.dump() << " is not an index";
      int64_t k = x.get<int64_t>();
      if (k < 0 || k >= static_cast<int64_t>(total_))
        KILN_USER_ERROR() << "refers to node " << k << ", which does not exist";
      if (k >= static_cast<int64_t>(index))
        KILN_USER_ERROR() << "refers to node " << k << ", which does not come before it";
      return FieldValue(objects_[k]);
    }
    if (tag == "float") {
      if (x.is_number()) return FieldValue(x.get<double>());
      if (x == "nan") return FieldValue(std::numeric_limits<double>::quiet_NaN());
      if (x == "inf") return FieldValue(std::numeric_limits<double>::infinity());
      if (x == "-inf") return FieldValue(-std::numeric_limits<double>::infinity());
      KILN_USER_ERROR() << "float " << x.dump() << " is not a number, \"nan\", \"inf\" or \"-inf\"";
    }
    if (tag == "dtype") {
      if (!x.is_string()) KILN_USER_ERROR() << "data type " << x.dump() << " is not a string";
      return FieldValue(DataType::parse(x.get<std::string>()));
    }
    KILN_USER_ERROR() << "unknown value tag '" << tag << "'";
  }

  size_t total_ = 0;
  std::vector<ObjectRef> objects_;
};

}  // namespace

json to_json(const ObjectRef& root) { return Writer().write(root); }

ObjectRef from_json(const json& doc) { return Reader().read(doc); }

std::string save_json(const ObjectRef& root, int indent) {
  try {
    return to_json(root).dump(indent);
  } catch (const json::exception& e) {
    KILN_USER_ERROR() << "cannot write IR JSON: " << e.what();
  }
}

ObjectRef load_json(const std::string& text) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {
    KILN_USER_ERROR() << "IR JSON is not valid JSON: " << e.what();
  }
  return from_json(doc);
}

}  // namespace kiln
