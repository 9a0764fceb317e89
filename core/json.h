// JSON (de)serialisation of any IR: the form that traces, tuning records and
// workload keys embed, so it is a public format (docs/ir_json.md).
//
// It is generic: every node type is written through its declared fields
// (core/object.h) and read back through its registered factory, so a new
// node kind needs nothing here. The document is a node table, children
// before parents, each node written once: a Var or Buffer used in many places
// is one entry, and reading gives back one object, so identity survives.
//
//   {"kiln_ir": 1, "root": 2, "nodes": [
//     {"type": "Var", "dtype": {"dtype": "int32"}, "name": "i"},
//     {"type": "IntImm", "dtype": {"dtype": "int32"}, "value": 1},
//     {"type": "Add", "dtype": {"dtype": "int32"}, "a": {"node": 0}, "b": {"node": 1}}]}
//
// Output is deterministic: the same IR gives the same bytes. Reading checks
// everything and throws kiln::Error naming the node (index and type) and the
// field at fault; it never trusts its input.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/object.h"

namespace kiln {

// The format's version, written as "kiln_ir". Readers refuse other versions.
inline constexpr int kIrJsonVersion = 2;

nlohmann::json to_json(const ObjectRef& root);
ObjectRef from_json(const nlohmann::json& doc);

// Compact text (no whitespace) unless indent >= 0.
std::string save_json(const ObjectRef& root, int indent = -1);
ObjectRef load_json(const std::string& text);

// load_json, checking that the root is a `Ref` (PrimFunc, Expr, Stmt, ...).
template <typename Ref>
Ref load_json_as(const std::string& text) {
  ObjectRef r = load_json(text);
  if (r.defined() && !r.as<typename Ref::ContainerType>())
    KILN_USER_ERROR() << "expected a " << Ref::kRefName << " at the root, found " << r.get()->type_key();
  return Ref(r.ptr());
}

}  // namespace kiln
