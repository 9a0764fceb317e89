#include "core/structural.h"

#include <cstring>
#include <unordered_map>

#include "core/hash.h"

namespace kiln {
namespace {

// The name of a variable or buffer is a printing hint, not part of the program.
bool is_hint(const Object& o, std::string_view field) { return o.has_identity() && field == "name"; }

class Equal {
 public:
  bool objects(const ObjectRef& a, const ObjectRef& b) {
    if (a.same_as(b)) return bind_identity(a, b);
    if (!a.defined() || !b.defined()) return false;
    if (a.get()->type_key() != b.get()->type_key()) return false;
    if (a.get()->has_identity()) {
      auto ia = lhs_to_rhs_.find(a.get());
      auto ib = rhs_to_lhs_.find(b.get());
      if (ia != lhs_to_rhs_.end() || ib != rhs_to_lhs_.end()) {
        return ia != lhs_to_rhs_.end() && ib != rhs_to_lhs_.end() && ia->second == b.get();
      }
      lhs_to_rhs_[a.get()] = b.get();
      rhs_to_lhs_[b.get()] = a.get();
    }
    std::vector<FieldValue> fa, fb;
    a.get()->write_fields(fa);
    b.get()->write_fields(fb);
    if (fa.size() != fb.size()) return false;
    auto names = a.get()->field_names();
    for (size_t i = 0; i < fa.size(); ++i) {
      if (is_hint(*a.get(), names[i])) continue;
      if (!values(fa[i], fb[i])) return false;
    }
    return true;
  }

 private:
  // The same object on both sides: fine unless it is an identity node that
  // one side already matched to something else.
  bool bind_identity(const ObjectRef& a, const ObjectRef& b) {
    if (!a.defined() || !a.get()->has_identity()) return true;
    auto ia = lhs_to_rhs_.find(a.get());
    auto ib = rhs_to_lhs_.find(b.get());
    if (ia == lhs_to_rhs_.end() && ib == rhs_to_lhs_.end()) {
      lhs_to_rhs_[a.get()] = b.get();
      rhs_to_lhs_[b.get()] = a.get();
      return true;
    }
    return ia != lhs_to_rhs_.end() && ib != rhs_to_lhs_.end() && ia->second == b.get();
  }

  bool values(const FieldValue& a, const FieldValue& b) {
    if (a.v.index() != b.v.index()) return false;
    if (const auto* r = std::get_if<ObjectRef>(&a.v)) return objects(*r, std::get<ObjectRef>(b.v));
    if (const auto* arr = std::get_if<FieldValue::Array>(&a.v)) {
      const auto& brr = std::get<FieldValue::Array>(b.v);
      if (arr->size() != brr.size()) return false;
      for (size_t i = 0; i < arr->size(); ++i)
        if (!values((*arr)[i], brr[i])) return false;
      return true;
    }
    if (const auto* d = std::get_if<double>(&a.v)) {
      double e = std::get<double>(b.v);
      return *d == e || (*d != *d && e != e);  // NaN equals NaN structurally
    }
    if (const auto* i = std::get_if<int64_t>(&a.v)) return *i == std::get<int64_t>(b.v);
    if (const auto* x = std::get_if<bool>(&a.v)) return *x == std::get<bool>(b.v);
    if (const auto* s = std::get_if<std::string>(&a.v)) return *s == std::get<std::string>(b.v);
    return std::get<DataType>(a.v) == std::get<DataType>(b.v);
  }

  std::unordered_map<const Object*, const Object*> lhs_to_rhs_, rhs_to_lhs_;
};

class Hasher {
 public:
  uint64_t object(const ObjectRef& a) {
    if (!a.defined()) return 0x51ed;
    uint64_t h = hash_string(a.get()->type_key());
    if (a.get()->has_identity()) {
      auto it = index_.find(a.get());
      if (it != index_.end()) return hash_combine(h, it->second);
      uint64_t id = index_.size() + 1;
      index_[a.get()] = id;
      h = hash_combine(h, id);
    }
    std::vector<FieldValue> fields;
    a.get()->write_fields(fields);
    auto names = a.get()->field_names();
    for (size_t i = 0; i < fields.size(); ++i)
      if (!is_hint(*a.get(), names[i])) h = hash_combine(h, value(fields[i]));
    return h;
  }

 private:
  uint64_t value(const FieldValue& f) {
    uint64_t tag = f.v.index();
    return std::visit(
        [&](const auto& x) -> uint64_t {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, ObjectRef>) {
            return hash_combine(tag, object(x));
          } else if constexpr (std::is_same_v<T, FieldValue::Array>) {
            uint64_t h = hash_combine(tag, x.size());
            for (const FieldValue& e : x) h = hash_combine(h, value(e));
            return h;
          } else if constexpr (std::is_same_v<T, std::string>) {
            return hash_combine(tag, hash_string(x));
          } else if constexpr (std::is_same_v<T, DataType>) {
            return hash_combine(tag, (uint64_t{x.code()} << 40) | (uint64_t(x.bits()) << 20) | uint64_t(x.lanes()));
          } else if constexpr (std::is_same_v<T, double>) {
            if (x != x) return hash_combine(tag, 0x7ff8);
            double d = x == 0 ? 0.0 : x;  // -0.0 == 0.0
            uint64_t bits;
            std::memcpy(&bits, &d, sizeof bits);
            return hash_combine(tag, bits);
          } else {
            return hash_combine(tag, static_cast<uint64_t>(x));
          }
        },
        f.v);
  }

  std::unordered_map<const Object*, uint64_t> index_;
};

}  // namespace

bool structural_equal(const ObjectRef& a, const ObjectRef& b) { return Equal().objects(a, b); }

uint64_t structural_hash(const ObjectRef& a) { return Hasher().object(a); }

}  // namespace kiln
