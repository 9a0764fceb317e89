#include "core/object.h"

#include <mutex>
#include <unordered_map>

namespace kiln {
namespace {

struct Registry {
  std::mutex mu;
  std::unordered_map<std::string, NodeFactory> factories;
  std::unordered_map<std::string, FieldNamesFn> field_names;
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

void register_node_factory(std::string_view type_key, NodeFactory f) {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto [it, inserted] = r.factories.emplace(std::string(type_key), f);
  KILN_ICHECK(inserted || it->second == f) << "two node types share the key " << type_key;
}

NodeFactory find_node_factory(std::string_view type_key) {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.factories.find(std::string(type_key));
  return it == r.factories.end() ? nullptr : it->second;
}

void register_node_field_names(std::string_view type_key, FieldNamesFn f) {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.field_names.emplace(std::string(type_key), f);
}

FieldNamesFn find_node_field_names(std::string_view type_key) {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.field_names.find(std::string(type_key));
  return it == r.field_names.end() ? nullptr : it->second;
}

namespace detail {

void field_type_mismatch(std::string_view expected) {
  KILN_USER_ERROR() << "expected " << expected;
}

std::vector<std::string_view> split_field_names(std::string_view list) {
  std::vector<std::string_view> out;
  for (std::string_view name = next_name(list); !name.empty(); name = next_name(list)) out.push_back(name);
  return out;
}

}  // namespace detail
}  // namespace kiln
