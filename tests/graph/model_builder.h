// Small ONNX models built in memory for the graph tests: the same protobuf
// a .onnx file holds, without files or an exporter.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "onnx/onnx_pb.h"

namespace kiln::graph::testing {

class ModelBuilder {
 public:
  explicit ModelBuilder(int64_t opset = 17) {
    model_.set_ir_version(8);
    onnx::OperatorSetIdProto* o = model_.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
  }

  // A float32 input; an extent of -1 is a dynamic dimension called "N";
  // no dims, a scalar.
  ModelBuilder& input(const std::string& name, const std::vector<int64_t>& dims,
                      int32_t elem = onnx::TensorProto::FLOAT) {
    onnx::ValueInfoProto* v = model_.mutable_graph()->add_input();
    v->set_name(name);
    onnx::TypeProto_Tensor* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(elem);
    t->mutable_shape();
    for (int64_t d : dims) {
      onnx::TensorShapeProto_Dimension* dim = t->mutable_shape()->add_dim();
      if (d < 0) dim->set_dim_param("N");
      else dim->set_dim_value(d);
    }
    return *this;
  }

  ModelBuilder& output(const std::string& name) {
    model_.mutable_graph()->add_output()->set_name(name);
    return *this;
  }

  ModelBuilder& weights(const std::string& name, const std::vector<int64_t>& dims) {
    onnx::TensorProto* t = initializer(name, onnx::TensorProto::FLOAT, dims);
    for (int64_t i = 0; i < numel(dims); ++i) t->add_float_data(static_cast<float>(i % 7) * 0.125f - 0.375f);
    return *this;
  }

  // An int8 constant, its values cycling over the byte's whole range.
  ModelBuilder& int8_weights(const std::string& name, const std::vector<int64_t>& dims) {
    onnx::TensorProto* t = initializer(name, onnx::TensorProto::INT8, dims);
    for (int64_t i = 0; i < numel(dims); ++i) t->add_int32_data(static_cast<int32_t>((i * 37) % 256) - 128);
    return *this;
  }

  ModelBuilder& ints(const std::string& name, const std::vector<int64_t>& values) {
    onnx::TensorProto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    t->add_dims(static_cast<int64_t>(values.size()));
    for (int64_t v : values) t->add_int64_data(v);
    return *this;
  }

  // A 0-d int64 constant (a scalar index, as exporters write one).
  ModelBuilder& scalar(const std::string& name, int64_t value) {
    onnx::TensorProto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    t->add_int64_data(value);
    return *this;
  }

  // A 0-d float constant (0.5, sqrt(2), an epsilon, as exporters write them).
  ModelBuilder& scalar_float(const std::string& name, float value) {
    onnx::TensorProto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->add_float_data(value);
    return *this;
  }

  // A constant of any numeric type with the values given (a scale per
  // channel, a uint8 zero point: dims {} for one value).
  ModelBuilder& constant(const std::string& name, int32_t elem, const std::vector<int64_t>& dims,
                         const std::vector<double>& values) {
    onnx::TensorProto* t = initializer(name, elem, dims);
    for (double v : values) {
      if (elem == onnx::TensorProto::FLOAT) t->add_float_data(static_cast<float>(v));
      else if (elem == onnx::TensorProto::INT64) t->add_int64_data(static_cast<int64_t>(v));
      else t->add_int32_data(static_cast<int32_t>(v));
    }
    return *this;
  }

  onnx::NodeProto& node(const std::string& op, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs, const std::string& name = "") {
    onnx::NodeProto* n = model_.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const std::string& i : inputs) n->add_input(i);
    for (const std::string& o : outputs) n->add_output(o);
    return *n;
  }

  std::string bytes() const { return model_.SerializeAsString(); }

 private:
  // A constant of `dims` and type `elem`, its data for the caller to add.
  onnx::TensorProto* initializer(const std::string& name, int32_t elem, const std::vector<int64_t>& dims) {
    onnx::TensorProto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(elem);
    for (int64_t d : dims) t->add_dims(d);
    return t;
  }
  static int64_t numel(const std::vector<int64_t>& dims) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
  }

  onnx::ModelProto model_;
};

inline void set_ints(onnx::NodeProto& n, const std::string& key, const std::vector<int64_t>& v) {
  onnx::AttributeProto* a = n.add_attribute();
  a->set_name(key);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

inline void set_int(onnx::NodeProto& n, const std::string& key, int64_t v) {
  onnx::AttributeProto* a = n.add_attribute();
  a->set_name(key);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

inline void set_string(onnx::NodeProto& n, const std::string& key, const std::string& v) {
  onnx::AttributeProto* a = n.add_attribute();
  a->set_name(key);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}

}  // namespace kiln::graph::testing
