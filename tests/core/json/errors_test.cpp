// One test per way IR JSON can be malformed: each throws kiln::Error whose
// message names the node and field at fault.
#include <gtest/gtest.h>

#include "support/error_of.h"

#include "core/json.h"
#include "tir/stmt.h"

namespace kiln {
namespace {

// A valid document for `i + 1`; tests break one thing in it.
nlohmann::json good() {
  Var i("i");
  return to_json(i + 1);
}

// The message of the kiln::Error that loading `doc` throws.
std::string error_of(const std::string& text) {
  const std::string e = kiln::testing::error_of([&] { load_json(text); });
  if (e == "(no error)") ADD_FAILURE() << "no error for " << text;
  return e;
}
std::string error_of(const nlohmann::json& doc) { return error_of(doc.dump()); }

TEST(JsonErrors, GoodDocumentLoads) { EXPECT_TRUE(load_json(good().dump()).defined()); }

TEST(JsonErrors, NotJson) { EXPECT_NE(error_of(std::string("{\"kiln_ir\": 1,")).find("not valid JSON"), std::string::npos); }

TEST(JsonErrors, NotAnObject) {
  EXPECT_EQ(error_of(std::string("[1, 2]")), "IR JSON must be an object, not array");
}

TEST(JsonErrors, WrongOrMissingVersion) {
  nlohmann::json d = good();
  d["kiln_ir"] = 1;
  EXPECT_EQ(error_of(d), "unsupported kiln_ir version 1 (this build reads 2)");
  d.erase("kiln_ir");
  EXPECT_EQ(error_of(d), "IR JSON has no \"kiln_ir\" version");
}

TEST(JsonErrors, UnknownTopLevelKey) {
  nlohmann::json d = good();
  d["extra"] = 1;
  EXPECT_EQ(error_of(d), "IR JSON has an unknown key 'extra'");
}

TEST(JsonErrors, UnknownNodeType) {
  nlohmann::json d = good();
  d["nodes"][1]["type"] = "Frobnicate";
  EXPECT_EQ(error_of(d), "node 1: unknown node type 'Frobnicate'");
}

TEST(JsonErrors, NodeWithoutType) {
  nlohmann::json d = good();
  d["nodes"][0].erase("type");
  EXPECT_EQ(error_of(d), "node 0 has no \"type\" string");
}

TEST(JsonErrors, MissingField) {
  nlohmann::json d = good();
  d["nodes"][2].erase("b");
  EXPECT_EQ(error_of(d), "node 2 (Add): missing field 'b'");
}

TEST(JsonErrors, UnknownField) {
  nlohmann::json d = good();
  d["nodes"][0]["colour"] = "red";
  EXPECT_EQ(error_of(d), "node 0 (Var): unknown field 'colour'");
}

TEST(JsonErrors, FieldOfTheWrongKind) {
  nlohmann::json d = good();
  d["nodes"][0]["name"] = 5;
  EXPECT_EQ(error_of(d), "node 0 (Var): field 'name': expected string");
}

TEST(JsonErrors, ReferenceToTheWrongNodeType) {
  // An Add whose operand is a Range.
  nlohmann::json d = to_json(Range(0, 4));
  d["nodes"].push_back({{"type", "Add"}, {"dtype", {{"dtype", "int32"}}}, {"a", {{"node", 2}}}, {"b", {{"node", 0}}}});
  d["root"] = 3;
  EXPECT_EQ(error_of(d), "node 3 (Add): field 'a': expected Expr");
}

TEST(JsonErrors, WrongElementInsideAnArray) {
  Buffer A("A", DataType::Float32(), {8});
  nlohmann::json d = to_json(buffer_load(A, {Expr(1)}));
  nlohmann::json& load = d["nodes"][d["root"].get<size_t>()];
  load["indices"] = nlohmann::json::array({"oops"});
  EXPECT_EQ(error_of(d), "node 3 (BufferLoad): field 'indices': expected object");
}

TEST(JsonErrors, DanglingIndex) {
  nlohmann::json d = good();
  d["nodes"][2]["b"] = {{"node", 9}};
  EXPECT_EQ(error_of(d), "node 2 (Add): field 'b': refers to node 9, which does not exist");
}

TEST(JsonErrors, ForwardReference) {
  nlohmann::json d = good();
  std::swap(d["nodes"][0], d["nodes"][2]);  // the Add now comes first
  d["nodes"][0]["a"] = {{"node", 2}};
  d["root"] = 0;
  EXPECT_EQ(error_of(d), "node 0 (Add): field 'a': refers to node 2, which does not come before it");
}

TEST(JsonErrors, RootOutOfRange) {
  nlohmann::json d = good();
  d["root"] = 3;
  EXPECT_EQ(error_of(d), "IR JSON root refers to node 3, but there are 3 nodes");
}

TEST(JsonErrors, BadDataType) {
  nlohmann::json d = good();
  d["nodes"][0]["dtype"] = {{"dtype", "int33"}};
  EXPECT_EQ(error_of(d), "node 0 (Var): field 'dtype': unknown data type 'int33'");
  d["nodes"][0]["dtype"] = "int32";  // untagged: a string, not a data type
  EXPECT_EQ(error_of(d), "node 0 (Var): field 'dtype': expected data type");
}

TEST(JsonErrors, UntaggedOrBadFloat) {
  nlohmann::json d = to_json(Expr(1.5f));
  d["nodes"][0]["value"] = 1.5;
  EXPECT_EQ(error_of(d), "node 0 (FloatImm): field 'value': untagged number 1.5 (floats are written {\"float\": ...})");
  d["nodes"][0]["value"] = {{"float", "lots"}};
  EXPECT_EQ(error_of(d), "node 0 (FloatImm): field 'value': float \"lots\" is not a number, \"nan\", \"inf\" or \"-inf\"");
}

TEST(JsonErrors, CombinerOutOfRange) {
  Var k("k"), h("h", DataType::Float32());
  nlohmann::json d = to_json(reduce(ReduceKind::kProd, h, {IterVar(k, Range(0, 4), IterType::kReduce)}));
  EXPECT_TRUE(load_json(d.dump()).defined());
  const size_t root = d["root"].get<size_t>();
  d["nodes"][root]["combiner"] = 7;
  EXPECT_EQ(error_of(d), "node " + std::to_string(root) + " (Reduce): reduction with combiner 7, none of sum, max, min, prod");
}

TEST(JsonErrors, UnknownTag) {
  nlohmann::json d = good();
  d["nodes"][2]["a"] = {{"ref", 0}};
  EXPECT_EQ(error_of(d), "node 2 (Add): field 'a': unknown value tag 'ref'");
}

TEST(JsonErrors, NodeInvariantsAreChecked) {
  // A Call of exp with two arguments: its validate() refuses it.
  nlohmann::json d = to_json(call(Intrinsic::exp, {Expr(1.0f)}));
  nlohmann::json& c = d["nodes"][d["root"].get<size_t>()];
  c["args"].push_back(c["args"][0]);
  EXPECT_EQ(error_of(d), "node 1 (Call): exp takes 1 arguments, not 2");
}

TEST(JsonErrors, OperandTypesAreChecked) {
  // i + 1 whose constant claims to be a float: the Add's operands then differ.
  nlohmann::json d = good();
  d["nodes"][1] = to_json(Expr(1.0f))["nodes"][0];
  EXPECT_EQ(error_of(d), "node 2 (Add): operands of Add have different types int32 and float32");
  // i < 1 typed int32 instead of bool.
  Var i("i");
  nlohmann::json c = to_json(i < 1);
  c["nodes"][c["root"].get<size_t>()]["dtype"] = {{"dtype", "int32"}};
  EXPECT_EQ(error_of(c), "node 2 (LT): LT of int32 typed int32, not bool");
}

TEST(JsonErrors, RootOfTheWrongType) {
  std::string text = good().dump();
  try {
    load_json_as<PrimFunc>(text);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "expected a PrimFunc at the root, found Add");
  }
}

}  // namespace
}  // namespace kiln
