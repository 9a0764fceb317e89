#include "tir/schedule/inst_attrs.h"

#include <cstring>

#include "core/error.h"
#include "core/hash.h"

namespace kiln {
namespace {

// Reads one attribute array, position by position, naming what it reads.
class Reader {
 public:
  Reader(const nlohmann::json& j, size_t expected) : j_(j) {
    if (!j.is_array() || j.size() != expected)
      KILN_USER_ERROR() << "expected " << expected << " attributes, got " << j.dump();
  }
  int64_t integer(size_t i, const char* what) const {
    if (!j_[i].is_number_integer()) KILN_USER_ERROR() << what << " must be an integer, got " << j_[i].dump();
    return j_[i].get<int64_t>();
  }
  std::string string(size_t i, const char* what) const {
    if (!j_[i].is_string()) KILN_USER_ERROR() << what << " must be a string, got " << j_[i].dump();
    return j_[i].get<std::string>();
  }
  std::vector<int64_t> integers(size_t i, const char* what) const {
    return list<int64_t>(i, what, &nlohmann::json::is_number_integer, "integers");
  }
  std::vector<double> numbers(size_t i, const char* what) const {
    return list<double>(i, what, &nlohmann::json::is_number, "numbers");
  }
  AnnValue ann_value(size_t i) const {
    if (j_[i].is_number_integer()) return j_[i].get<int64_t>();
    if (j_[i].is_string()) return j_[i].get<std::string>();
    KILN_USER_ERROR() << "an annotation value must be an integer or a string, got " << j_[i].dump();
  }

 private:
  // Attribute i as a list of T, every element passing `is`.
  template <typename T>
  std::vector<T> list(size_t i, const char* what, bool (nlohmann::json::*is)() const noexcept, const char* noun) const {
    std::vector<T> out;
    if (j_[i].is_array())
      for (const nlohmann::json& e : j_[i]) {
        if (!(e.*is)()) break;
        out.push_back(e.get<T>());
      }
    if (!j_[i].is_array() || out.size() != j_[i].size())
      KILN_USER_ERROR() << what << " must be a list of " << noun << ", got " << j_[i].dump();
    return out;
  }

  const nlohmann::json& j_;
};

nlohmann::json ann_json(const AnnValue& v) {
  if (const int64_t* i = std::get_if<int64_t>(&v)) return *i;
  return std::get<std::string>(v);
}

nlohmann::json to_json(const NoAttrs&) { return nlohmann::json::array(); }
nlohmann::json to_json(const BlockNameAttrs& a) { return {a.name}; }
nlohmann::json to_json(const BindAttrs& a) { return {a.thread}; }
nlohmann::json to_json(const TensorizeAttrs& a) { return {a.intrin}; }
nlohmann::json to_json(const AnnotateAttrs& a) {
  nlohmann::json j = nlohmann::json::array({a.key});
  if (a.value) j.push_back(ann_json(*a.value));
  return j;
}
nlohmann::json to_json(const BufferScopeAttrs& a) { return {a.index, a.scope}; }
nlohmann::json to_json(const RFactorAttrs& a) { return nlohmann::json::array({a.factor_axis}); }
nlohmann::json to_json(const TileSampleAttrs& a) { return {a.levels, a.max_innermost}; }
nlohmann::json to_json(const CategoricalAttrs& a) { return {a.candidates, a.probabilities}; }
nlohmann::json to_json(const StorageAlignAttrs& a) { return {a.write_index, a.axis, a.factor, a.offset}; }
nlohmann::json to_json(const LayoutAttrs& a) {
  return {a.role == BufferRole::kWrite ? "write" : "read", a.index, a.index_map};
}

// Field hashes: one per field type, so that each struct's hash is a fold.
uint64_t field_hash(int64_t v) { return static_cast<uint64_t>(v); }
uint64_t field_hash(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}
uint64_t field_hash(const std::string& s) { return hash_string(s); }
uint64_t field_hash(BufferRole r) { return static_cast<uint64_t>(r); }
uint64_t field_hash(const AnnValue& v) {
  return hash_combine(v.index(), std::visit([](const auto& x) { return field_hash(x); }, v));
}
template <typename T>
uint64_t field_hash(const std::optional<T>& v) {
  return v ? hash_combine(1, field_hash(*v)) : 0;
}
template <typename T>
uint64_t field_hash(const std::vector<T>& v) {
  uint64_t h = v.size();
  for (const T& x : v) h = hash_combine(h, field_hash(x));
  return h;
}
template <typename... F>
uint64_t fold(const F&... fields) {
  uint64_t h = 0;
  ((h = hash_combine(h, field_hash(fields))), ...);
  return h;
}

uint64_t hash_of(const NoAttrs&) { return 0; }
uint64_t hash_of(const BlockNameAttrs& a) { return fold(a.name); }
uint64_t hash_of(const BindAttrs& a) { return fold(a.thread); }
uint64_t hash_of(const TensorizeAttrs& a) { return fold(a.intrin); }
uint64_t hash_of(const AnnotateAttrs& a) { return fold(a.key, a.value); }
uint64_t hash_of(const BufferScopeAttrs& a) { return fold(a.index, a.scope); }
uint64_t hash_of(const RFactorAttrs& a) { return fold(a.factor_axis); }
uint64_t hash_of(const TileSampleAttrs& a) { return fold(a.levels, a.max_innermost); }
uint64_t hash_of(const CategoricalAttrs& a) { return fold(a.candidates, a.probabilities); }
uint64_t hash_of(const StorageAlignAttrs& a) { return fold(a.write_index, a.axis, a.factor, a.offset); }
uint64_t hash_of(const LayoutAttrs& a) { return fold(a.role, a.index, a.index_map); }

}  // namespace

nlohmann::json attrs_json(const InstAttrs& a) {
  return std::visit([](const auto& typed) { return to_json(typed); }, a);
}

uint64_t hash_attrs(const InstAttrs& a) {
  return hash_combine(a.index(), std::visit([](const auto& typed) { return hash_of(typed); }, a));
}

template <>
InstAttrs attrs_from_json<NoAttrs>(const nlohmann::json& j) {
  Reader r(j, 0);
  return NoAttrs{};
}

template <>
InstAttrs attrs_from_json<BlockNameAttrs>(const nlohmann::json& j) {
  Reader r(j, 1);
  return BlockNameAttrs{r.string(0, "the block name")};
}

template <>
InstAttrs attrs_from_json<BindAttrs>(const nlohmann::json& j) {
  Reader r(j, 1);
  return BindAttrs{r.string(0, "the thread tag")};
}

template <>
InstAttrs attrs_from_json<TensorizeAttrs>(const nlohmann::json& j) {
  Reader r(j, 1);
  return TensorizeAttrs{r.string(0, "the tensor intrinsic's name")};
}

template <>
InstAttrs attrs_from_json<AnnotateAttrs>(const nlohmann::json& j) {
  // [key] when a sampled handle gives the value, [key, value] otherwise.
  Reader r(j, j.is_array() && j.size() == 1 ? 1 : 2);
  AnnotateAttrs a{r.string(0, "the annotation key"), std::nullopt};
  if (j.size() == 2) a.value = r.ann_value(1);
  return a;
}

template <>
InstAttrs attrs_from_json<BufferScopeAttrs>(const nlohmann::json& j) {
  Reader r(j, 2);
  return BufferScopeAttrs{r.integer(0, "the buffer index"), r.string(1, "the storage scope")};
}

template <>
InstAttrs attrs_from_json<RFactorAttrs>(const nlohmann::json& j) {
  Reader r(j, 1);
  return RFactorAttrs{r.integer(0, "the factor axis")};
}

template <>
InstAttrs attrs_from_json<TileSampleAttrs>(const nlohmann::json& j) {
  Reader r(j, 2);
  return TileSampleAttrs{r.integer(0, "the level count"), r.integer(1, "the innermost bound")};
}

template <>
InstAttrs attrs_from_json<CategoricalAttrs>(const nlohmann::json& j) {
  Reader r(j, 2);
  return CategoricalAttrs{r.integers(0, "candidates"), r.numbers(1, "probabilities")};
}

template <>
InstAttrs attrs_from_json<StorageAlignAttrs>(const nlohmann::json& j) {
  Reader r(j, 4);
  return StorageAlignAttrs{r.integer(0, "the write index"), r.integer(1, "the axis"), r.integer(2, "the factor"),
                           r.integer(3, "the offset")};
}

template <>
InstAttrs attrs_from_json<LayoutAttrs>(const nlohmann::json& j) {
  Reader r(j, 3);
  const std::string role = r.string(0, "the buffer role");
  if (role != "read" && role != "write") KILN_USER_ERROR() << "the buffer role must be \"read\" or \"write\", got \"" << role << "\"";
  return LayoutAttrs{role == "write" ? BufferRole::kWrite : BufferRole::kRead, r.integer(1, "the buffer index"),
                     r.string(2, "the index map")};
}

}  // namespace kiln
