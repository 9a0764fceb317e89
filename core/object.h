// The object system. Every IR node is an immutable, reference-counted Object.
//
// Each node declares its fields exactly once, with KILN_NODE(Type, field...).
// From that one declaration come structural equality and hashing
// (core/structural.h), JSON (core/json.h) and the generic child rewriting that
// mutators fall back on: a new node kind never needs three hand-synced lists.
//
//   struct AddNode : ExprNode {
//     Expr a, b;
//     KILN_NODE(AddNode, "Add", dtype, a, b)
//   };
//
// For JSON and structural comparison, fields travel as FieldValue, a small
// variant (object, integer, float, bool, string, data type, array), and a
// node is built from its field values by its registered factory. The child
// walks of visitors and mutators, which run once per node of every pass,
// skip that detour: for_each_child and rewrite_children are generated per
// node type and work on the fields themselves, and as<T>() compares type
// tags instead of calling dynamic_cast. Both build a node only through its
// validate(), so every node meets its invariants however it was made.
//
// Nodes with identity (Var, Buffer) say so with has_identity(). The fields
// that bind one (a loop's variable, a function's parameters, a let) say so
// with KILN_DEFINES, and the fields that only name one for printing with
// KILN_HINTS: structural equality maps what two programs bind one-to-one and
// compares everything else by identity, so renaming a bound variable never
// makes two programs different, a free one is only ever itself, and
// substitution never captures.
//
//   struct ForNode : StmtNode {
//     Var loop_var; ...
//     KILN_STMT_NODE(For, loop_var, min, extent, ...)
//     KILN_DEFINES(loop_var)
//   };
#pragma once

#include <atomic>
#include <cstring>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <variant>
#include <vector>

#include "core/dtype.h"
#include "core/error.h"
#include "core/function_ref.h"
#include "core/hash.h"

namespace kiln {

class Object;
class ObjectRef;
struct FieldValue;
class ObjectEqual;
class ObjectHash;
using ObjectPtr = std::shared_ptr<const Object>;
// What a node's children are handed to (Object::for_each_child, rewrite_children).
using ChildFn = FunctionRef<void(const ObjectRef&)>;
using RewriteFn = FunctionRef<ObjectRef(const ObjectRef&)>;

class Object {
 public:
  virtual ~Object() = default;
  virtual std::string_view type_key() const = 0;
  // Appends one FieldValue per declared field, in declaration order.
  virtual void write_fields(std::vector<FieldValue>& out) const = 0;
  // Names of the declared fields, in the same order.
  virtual std::span<const std::string_view> field_names() const = 0;
  // True for nodes compared by identity (Var, Buffer): see the header comment.
  virtual bool has_identity() const { return false; }
  // Checks a node's invariants after it is built from field values (JSON,
  // generic rewriting); throws kiln::Error naming what is wrong.
  virtual void validate() const {}

  // The generic walks that visitors and mutators fall back on, generated
  // from the field declaration without going through FieldValue: they run
  // once per node of every pass, so they neither allocate nor copy.
  //
  // Calls fn on every defined object a field holds (directly, in an array or
  // as a map's value), in declaration order.
  virtual void for_each_child(ChildFn fn) const = 0;
  // A copy of this node with each such object replaced by fn's result, then
  // validated; nullptr, with nothing allocated, when fn returned every
  // object itself.
  virtual ObjectPtr rewrite_children(RewriteFn fn) const = 0;

  // Structural equality and hashing (core/structural.h), field against
  // field, generated from the declaration like the walks above: `other` is
  // a node of the same type; objects in fields go back to the walker, told
  // whether the field binds them (KILN_DEFINES); hint fields (KILN_HINTS)
  // are skipped. hash_fields folds each field into h.
  virtual bool equal_fields(const Object& other, ObjectEqual& eq) const = 0;
  virtual uint64_t hash_fields(uint64_t h, ObjectHash& hasher) const = 0;

  // Which declared fields bind variables or buffers, and which are printing
  // hints: comma-separated field names, empty unless a node says otherwise.
  static constexpr std::string_view kDefinesList = "";
  static constexpr std::string_view kHintList = "";

  // The concrete node type, and the family of node types (expressions,
  // statements) it belongs to, as addresses unique per type: what
  // ObjectRef::as tests instead of a dynamic_cast.
  virtual const void* type_tag() const = 0;
  virtual const void* family_tag() const { return nullptr; }
};

// A nullable handle to an immutable node. Typed handles (Expr, Stmt, Var...)
// derive from it and add accessors; they never expose a mutable node.
class ObjectRef {
 public:
  ObjectRef() = default;
  explicit ObjectRef(ObjectPtr p) : ptr_(std::move(p)) {}

  const Object* get() const { return ptr_.get(); }
  const ObjectPtr& ptr() const { return ptr_; }
  bool defined() const { return ptr_ != nullptr; }
  explicit operator bool() const { return defined(); }
  // Identity, not structure: see structural_equal for the latter.
  bool same_as(const ObjectRef& o) const { return ptr_ == o.ptr_; }

  // The node as a T, or nullptr. T is a node type (KILN_NODE: node types are
  // leaves, never derived from), a family base that declares kFamilyTag
  // (ExprNode, StmtNode), or anything else (a dynamic_cast).
  template <typename T>
  const T* as() const {
    const Object* p = ptr_.get();
    if constexpr (requires { T::kTypeTag; }) {
      return p && p->type_tag() == &T::kTypeTag ? static_cast<const T*>(p) : nullptr;
    } else if constexpr (requires { T::kFamilyTag; }) {
      return p && p->family_tag() == &T::kFamilyTag ? static_cast<const T*>(p) : nullptr;
    } else {
      return dynamic_cast<const T*>(p);
    }
  }

 protected:
  ObjectPtr ptr_;
};

// What equal_fields and hash_fields hand a field's objects to: the walker
// of core/structural.cpp, which decides how variables and buffers match.
class ObjectEqual {
 public:
  // `defines`: the field binds a and b (KILN_DEFINES), as a loop binds its
  // variable; otherwise they are uses.
  virtual bool objects(const ObjectRef& a, const ObjectRef& b, bool defines) = 0;

 protected:
  ~ObjectEqual() = default;
};

class ObjectHash {
 public:
  virtual uint64_t object(const ObjectRef& a) = 0;

 protected:
  ~ObjectHash() = default;
};

// One field's value. Arrays hold their elements; maps are arrays of
// [key, value] pairs; enums travel as integers.
struct FieldValue {
  using Array = std::vector<FieldValue>;
  std::variant<ObjectRef, int64_t, double, bool, std::string, DataType, Array> v;

  FieldValue() = default;
  template <typename T>
  FieldValue(T&& x) : v(std::forward<T>(x)) {}
};

// Builds a node from its field values. One per type key, see KILN_DEFINE_NODE.
using NodeFactory = ObjectPtr (*)(std::span<const FieldValue>);
void register_node_factory(std::string_view type_key, NodeFactory f);
NodeFactory find_node_factory(std::string_view type_key);  // nullptr if unknown

// The declared field names of a type, in declaration order, without an
// instance at hand: readers of named fields (JSON) need them to order values
// for the factory. Registered by KILN_DEFINE_NODE next to the factory.
using FieldNamesFn = std::span<const std::string_view> (*)();
void register_node_field_names(std::string_view type_key, FieldNamesFn f);
FieldNamesFn find_node_field_names(std::string_view type_key);  // nullptr if unknown

// ---------------------------------------------------------------------------
// Field conversion: C++ field type <-> FieldValue.
namespace detail {

template <typename T>
struct is_vector : std::false_type {};
template <typename T, typename A>
struct is_vector<std::vector<T, A>> : std::true_type {};
template <typename T>
struct is_map : std::false_type {};
template <typename K, typename V>
struct is_map<std::map<K, V>> : std::true_type {};

[[noreturn]] void field_type_mismatch(std::string_view expected);

template <typename T>
FieldValue to_field(const T& x) {
  if constexpr (std::is_base_of_v<ObjectRef, T>) {
    return FieldValue(ObjectRef(x.ptr()));
  } else if constexpr (std::is_same_v<T, bool>) {
    return FieldValue(x);
  } else if constexpr (std::is_enum_v<T> || std::is_integral_v<T>) {
    return FieldValue(static_cast<int64_t>(x));
  } else if constexpr (std::is_floating_point_v<T>) {
    return FieldValue(static_cast<double>(x));
  } else if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, DataType>) {
    return FieldValue(x);
  } else if constexpr (is_vector<T>::value) {
    FieldValue::Array a;
    a.reserve(x.size());
    for (const auto& e : x) a.push_back(to_field(e));
    return FieldValue(std::move(a));
  } else if constexpr (is_map<T>::value) {
    FieldValue::Array a;
    for (const auto& [k, val] : x) a.push_back(FieldValue(FieldValue::Array{to_field(k), to_field(val)}));
    return FieldValue(std::move(a));
  } else {
    static_assert(sizeof(T) == 0, "unsupported field type");
  }
}

template <typename T>
void from_field(const FieldValue& f, T& out) {
  if constexpr (std::is_base_of_v<ObjectRef, T>) {
    const auto* r = std::get_if<ObjectRef>(&f.v);
    if (!r) field_type_mismatch("object");
    if (r->defined() && !r->as<typename T::ContainerType>()) field_type_mismatch(T::kRefName);
    out = T(r->ptr());
  } else if constexpr (std::is_same_v<T, bool>) {
    const auto* b = std::get_if<bool>(&f.v);
    if (!b) field_type_mismatch("bool");
    out = *b;
  } else if constexpr (std::is_enum_v<T> || std::is_integral_v<T>) {
    const auto* i = std::get_if<int64_t>(&f.v);
    if (!i) field_type_mismatch("integer");
    out = static_cast<T>(*i);
  } else if constexpr (std::is_floating_point_v<T>) {
    if (const auto* d = std::get_if<double>(&f.v)) {
      out = static_cast<T>(*d);
    } else if (const auto* i = std::get_if<int64_t>(&f.v)) {
      out = static_cast<T>(*i);
    } else {
      field_type_mismatch("number");
    }
  } else if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, DataType>) {
    const auto* s = std::get_if<T>(&f.v);
    if (!s) field_type_mismatch(std::is_same_v<T, DataType> ? "data type" : "string");
    out = *s;
  } else if constexpr (is_vector<T>::value) {
    const auto* a = std::get_if<FieldValue::Array>(&f.v);
    if (!a) field_type_mismatch("array");
    out.clear();
    out.resize(a->size());
    for (size_t i = 0; i < a->size(); ++i) from_field((*a)[i], out[i]);
  } else if constexpr (is_map<T>::value) {
    const auto* a = std::get_if<FieldValue::Array>(&f.v);
    if (!a) field_type_mismatch("map");
    out.clear();
    for (const auto& kv : *a) {
      const auto* pair = std::get_if<FieldValue::Array>(&kv.v);
      if (!pair || pair->size() != 2) field_type_mismatch("map entry");
      typename T::key_type k;
      typename T::mapped_type val;
      from_field((*pair)[0], k);
      from_field((*pair)[1], val);
      out.emplace(std::move(k), std::move(val));
    }
  } else {
    static_assert(sizeof(T) == 0, "unsupported field type");
  }
}

// Splits "a, b, c" (the stringised field list) into names, once per type.
std::vector<std::string_view> split_field_names(std::string_view list);

// Converts one field, naming it in the error when its value has the wrong kind.
template <typename T>
void from_named_field(const FieldValue& f, T& out, std::string_view name) {
  try {
    from_field(f, out);
  } catch (const Error& e) {
    KILN_USER_ERROR() << "field '" << name << "': " << e.what();
  }
}

template <typename Node>
ObjectPtr make_node_from_fields(std::span<const FieldValue> fields) {
  auto node = std::make_shared<Node>();
  auto tie = node->tie_fields();
  constexpr size_t n = std::tuple_size_v<decltype(tie)>;
  if (fields.size() != n) field_type_mismatch(std::to_string(n) + " fields, not " + std::to_string(fields.size()));
  auto names = node->field_names();
  [&]<size_t... I>(std::index_sequence<I...>) {
    (from_named_field(fields[I], std::get<I>(tie), names[I]), ...);
  }(std::make_index_sequence<n>{});
  node->validate();
  return node;
}

// The generic child walks of KILN_NODE (Object::for_each_child and
// rewrite_children), field by field.
template <typename T>
void visit_field(const T& x, ChildFn fn) {
  if constexpr (std::is_base_of_v<ObjectRef, T>) {
    if (x.defined()) fn(x);
  } else if constexpr (is_vector<T>::value) {
    for (const auto& e : x) visit_field(e, fn);
  } else if constexpr (is_map<T>::value) {
    for (const auto& [k, v] : x) {
      visit_field(k, fn);
      visit_field(v, fn);
    }
  }
}

// Rewrites the objects inside one field; `dst` returns the same field of the
// copy, making the copy on first use.
template <typename T, typename Dst>
void rewrite_field(const T& x, const Dst& dst, RewriteFn fn) {
  if constexpr (std::is_base_of_v<ObjectRef, T>) {
    if (!x.defined()) return;
    ObjectRef n = fn(x);
    if (n.same_as(x)) return;
    if constexpr (!std::is_same_v<T, ObjectRef>) {
      if (n.defined() && !n.template as<typename T::ContainerType>()) field_type_mismatch(T::kRefName);
    }
    dst() = T(n.ptr());
  } else if constexpr (is_vector<T>::value) {
    for (size_t i = 0; i < x.size(); ++i) rewrite_field(x[i], [&]() -> auto& { return dst()[i]; }, fn);
  } else if constexpr (is_map<T>::value) {
    static_assert(!std::is_base_of_v<ObjectRef, typename T::key_type>, "map keys are plain values");
    for (const auto& [k, v] : x) rewrite_field(v, [&]() -> auto& { return dst().at(k); }, fn);
  }
}

template <typename Node>
ObjectPtr rewrite_node_children(const Node& self, RewriteFn fn) {
  std::shared_ptr<Node> copy;
  auto fields = self.tie_fields();
  [&]<size_t... I>(std::index_sequence<I...>) {
    (rewrite_field(
         std::get<I>(fields),
         [&]() -> auto& {
           if (!copy) copy = std::make_shared<Node>(self);
           return std::get<I>(copy->tie_fields());
         },
         fn),
     ...);
  }(std::make_index_sequence<std::tuple_size_v<decltype(fields)>>{});
  if (copy) copy->validate();
  return copy;
}

template <typename T>
void for_each_field(const T& fields, ChildFn fn) {
  std::apply([&](const auto&... f) { (visit_field(f, fn), ...); }, fields);
}

// The names live in a function-local static of field_names(), so the span
// outlives the temporary node.
template <typename Node>
std::span<const std::string_view> node_field_names() {
  return Node().field_names();
}

// The bit of each field named in `marked` (KILN_DEFINES, KILN_HINTS) among
// the declared `fields`; kUnknownField when `marked` names something else.
inline constexpr uint64_t kUnknownField = ~uint64_t{0};
constexpr bool is_name_space(char c) { return c == ' ' || c == '\n' || c == '\t'; }
constexpr std::string_view next_name(std::string_view& list) {
  size_t i = 0;
  while (i < list.size() && (is_name_space(list[i]) || list[i] == ',')) ++i;
  size_t j = i;
  while (j < list.size() && list[j] != ',' && !is_name_space(list[j])) ++j;
  std::string_view name = list.substr(i, j - i);
  list.remove_prefix(j);
  return name;
}
constexpr uint64_t field_mask(std::string_view fields, std::string_view marked) {
  uint64_t mask = 0;
  for (std::string_view m = next_name(marked); !m.empty(); m = next_name(marked)) {
    std::string_view rest = fields;
    int index = 0;
    bool found = false;
    for (std::string_view f = next_name(rest); !f.empty(); f = next_name(rest), ++index) {
      if (f == m) {
        mask |= uint64_t{1} << index;
        found = true;
      }
    }
    if (!found) return kUnknownField;
  }
  return mask;
}

template <typename T>
bool field_equal(const T& a, const T& b, ObjectEqual& eq, bool defines) {
  if constexpr (std::is_base_of_v<ObjectRef, T>) {
    return eq.objects(a, b, defines);
  } else if constexpr (std::is_floating_point_v<T>) {
    // Bit for bit: 0.0 and -0.0 are different programs, a NaN equals itself.
    return std::memcmp(&a, &b, sizeof(T)) == 0;
  } else if constexpr (is_vector<T>::value) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!field_equal(a[i], b[i], eq, defines)) return false;
    return true;
  } else if constexpr (is_map<T>::value) {
    if (a.size() != b.size()) return false;
    for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib)
      if (!(ia->first == ib->first) || !field_equal(ia->second, ib->second, eq, defines)) return false;
    return true;
  } else {
    return a == b;
  }
}

// The index of alternative A in FieldValue's variant.
template <typename A, typename... Ts>
constexpr uint64_t variant_tag(const std::variant<Ts...>*) {
  uint64_t i = 0;
  bool found = false;
  ((found = found || std::is_same_v<A, Ts>, i += found ? 0 : 1), ...);
  return i;
}
template <typename A>
inline constexpr uint64_t kFieldTag = variant_tag<A>(static_cast<const decltype(FieldValue::v)*>(nullptr));

// A field's hash: what hashing its FieldValue (to_field) gave, the
// variant's index folded with the value, so that workload keys made from
// structural hashes stay what they were.
template <typename T>
uint64_t field_hash(const T& x, ObjectHash& hs) {
  if constexpr (std::is_base_of_v<ObjectRef, T>) {
    return hash_combine(kFieldTag<ObjectRef>, hs.object(x));
  } else if constexpr (std::is_same_v<T, bool>) {
    return hash_combine(kFieldTag<bool>, static_cast<uint64_t>(x));
  } else if constexpr (std::is_enum_v<T> || std::is_integral_v<T>) {
    return hash_combine(kFieldTag<int64_t>, static_cast<uint64_t>(static_cast<int64_t>(x)));
  } else if constexpr (std::is_floating_point_v<T>) {
    double d = static_cast<double>(x);
    if (d != d) return hash_combine(kFieldTag<double>, 0x7ff8);
    if (d == 0) d = 0.0;  // -0.0 hashes as 0.0
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    return hash_combine(kFieldTag<double>, bits);
  } else if constexpr (std::is_same_v<T, std::string>) {
    return hash_combine(kFieldTag<std::string>, hash_string(x));
  } else if constexpr (std::is_same_v<T, DataType>) {
    return hash_combine(kFieldTag<DataType>, (uint64_t{x.code()} << 40) | (uint64_t(x.bits()) << 20) | uint64_t(x.lanes()));
  } else if constexpr (is_vector<T>::value) {
    uint64_t h = hash_combine(kFieldTag<FieldValue::Array>, x.size());
    for (const auto& e : x) h = hash_combine(h, field_hash(e, hs));
    return h;
  } else if constexpr (is_map<T>::value) {
    // A map is an array of [key, value] arrays.
    constexpr uint64_t kArray = kFieldTag<FieldValue::Array>;
    uint64_t h = hash_combine(kArray, x.size());
    for (const auto& [k, v] : x)
      h = hash_combine(h, hash_combine(hash_combine(hash_combine(kArray, 2), field_hash(k, hs)), field_hash(v, hs)));
    return h;
  } else {
    static_assert(sizeof(T) == 0, "unsupported field type");
  }
}

template <typename Node>
inline constexpr uint64_t kDefinesMask = field_mask(Node::kFieldList, Node::kDefinesList);
template <typename Node>
inline constexpr uint64_t kHintMask = field_mask(Node::kFieldList, Node::kHintList);

// The binding fields first, then the rest in declaration order: a block's
// alloc_buffers and a Reduce's axis are declared after the fields that use
// what they bind.
template <typename Node>
bool equal_node_fields(const Node& a, const Node& b, ObjectEqual& eq) {
  constexpr uint64_t defines = kDefinesMask<Node>, hints = kHintMask<Node>;
  static_assert(defines != kUnknownField, "KILN_DEFINES names a field the node does not declare");
  static_assert(hints != kUnknownField, "KILN_HINTS names a field the node does not declare");
  auto fa = a.tie_fields();
  auto fb = b.tie_fields();
  auto pass = [&]<size_t... I>(bool binding, std::index_sequence<I...>) {
    return ((((((defines >> I) & 1) != 0) != binding || ((hints >> I) & 1) != 0) ||
             field_equal(std::get<I>(fa), std::get<I>(fb), eq, binding)) &&
            ...);
  };
  constexpr auto fields = std::make_index_sequence<std::tuple_size_v<decltype(fa)>>{};
  return (defines == 0 || pass(true, fields)) && pass(false, fields);
}

template <typename Node>
uint64_t hash_node_fields(const Node& a, uint64_t h, ObjectHash& hs) {
  auto fa = a.tie_fields();
  [&]<size_t... I>(std::index_sequence<I...>) {
    ((((kHintMask<Node> >> I) & 1) ? void() : void(h = hash_combine(h, field_hash(std::get<I>(fa), hs)))), ...);
  }(std::make_index_sequence<std::tuple_size_v<decltype(fa)>>{});
  return h;
}

struct NodeRegistrar {
  NodeRegistrar(std::string_view key, NodeFactory f) { register_node_factory(key, f); }
  NodeRegistrar(std::string_view key, NodeFactory f, FieldNamesFn names) {
    register_node_factory(key, f);
    register_node_field_names(key, names);
  }
};

}  // namespace detail
}  // namespace kiln

// Declares a node's type key and fields (see the header comment). The node
// type must be default-constructible; validate() (optional, public) checks
// invariants after a node is built from fields. The generated members are
// only declared here: KILN_DEFINE_NODE defines them in one .cpp, so the
// field walks are instantiated once per node type, not in every file that
// includes the node's header.
#define KILN_NODE(Type, Key, ...)                                                        \
 public:                                                                                 \
  static constexpr std::string_view kTypeKey = Key;                                      \
  static constexpr std::string_view kFieldList = #__VA_ARGS__;                           \
  std::string_view type_key() const override;                                            \
  auto tie_fields() const { return std::tie(__VA_ARGS__); }                              \
  auto tie_fields() { return std::tie(__VA_ARGS__); }                                    \
  void write_fields(std::vector<::kiln::FieldValue>& out) const override;                \
  std::span<const std::string_view> field_names() const override;                        \
  static constexpr char kTypeTag = 0;                                                    \
  const void* type_tag() const override;                                                 \
  void for_each_child(::kiln::ChildFn fn) const override;                                \
  ::kiln::ObjectPtr rewrite_children(::kiln::RewriteFn fn) const override;               \
  bool equal_fields(const ::kiln::Object& other, ::kiln::ObjectEqual& eq) const override; \
  uint64_t hash_fields(uint64_t h, ::kiln::ObjectHash& hasher) const override;

// After KILN_NODE: the fields that bind the variables or buffers they hold
// (see the header comment).
#define KILN_DEFINES(...) static constexpr std::string_view kDefinesList = #__VA_ARGS__;
// After KILN_NODE: fields that name a node for printing and are no part of
// what it means (a variable's name).
#define KILN_HINTS(...) static constexpr std::string_view kHintList = #__VA_ARGS__;

// In one .cpp, inside namespace kiln: the members KILN_NODE declares.
// type_key() is the class's first out-of-line virtual, so the vtable is
// emitted here too.
#define KILN_NODE_METHODS(Type)                                                          \
  std::string_view Type::type_key() const { return kTypeKey; }                           \
  void Type::write_fields(std::vector<::kiln::FieldValue>& out) const {                  \
    std::apply([&](const auto&... f) { (out.push_back(::kiln::detail::to_field(f)), ...); }, \
               tie_fields());                                                            \
  }                                                                                      \
  std::span<const std::string_view> Type::field_names() const {                          \
    static const std::vector<std::string_view> names = ::kiln::detail::split_field_names(kFieldList); \
    return names;                                                                        \
  }                                                                                      \
  const void* Type::type_tag() const { return &kTypeTag; }                               \
  void Type::for_each_child(::kiln::ChildFn fn) const {                                  \
    ::kiln::detail::for_each_field(tie_fields(), fn);                                    \
  }                                                                                      \
  ::kiln::ObjectPtr Type::rewrite_children(::kiln::RewriteFn fn) const {                 \
    return ::kiln::detail::rewrite_node_children(*this, fn);                             \
  }                                                                                      \
  bool Type::equal_fields(const ::kiln::Object& other, ::kiln::ObjectEqual& eq) const {  \
    return ::kiln::detail::equal_node_fields(*this, static_cast<const Type&>(other), eq); \
  }                                                                                      \
  uint64_t Type::hash_fields(uint64_t h, ::kiln::ObjectHash& hasher) const {             \
    return ::kiln::detail::hash_node_fields(*this, h, hasher);                           \
  }

// KILN_NODE_METHODS, and the type made constructible from its fields (JSON,
// generic rewriting). The registration sits beside the vtable: a program
// that makes the node links this object, so its registration runs, even
// from a static library.
#define KILN_DEFINE_NODE(Type)                                                           \
  KILN_NODE_METHODS(Type)                                                                \
  static const ::kiln::detail::NodeRegistrar kiln_reg_##Type {                           \
    Type::kTypeKey, &::kiln::detail::make_node_from_fields<Type>,                        \
        &::kiln::detail::node_field_names<Type>                                          \
  }

// Declares the usual members of a typed handle `Ref` over node type `Node`.
#define KILN_REF(Ref, Base, Node)                                               \
 public:                                                                        \
  using ContainerType = Node;                                                   \
  static constexpr const char* kRefName = #Ref;                                 \
  Ref() = default;                                                              \
  explicit Ref(::kiln::ObjectPtr p) : Base(std::move(p)) {}                     \
  const Node* operator->() const { return static_cast<const Node*>(get()); }    \
  const Node& operator*() const { return *static_cast<const Node*>(get()); }
