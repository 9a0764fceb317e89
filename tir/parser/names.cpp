#include "tir/parser/names.h"

#include "core/structural.h"
#include "tir/parser/diagnostic.h"

namespace kiln::parser {

namespace {

bool same_declaration(const BufferNode& a, const BufferNode& b) {
  if (a.dtype != b.dtype || a.scope != b.scope || a.align_axis != b.align_axis || a.align_factor != b.align_factor ||
      a.align_offset != b.align_offset || a.shape.size() != b.shape.size())
    return false;
  for (size_t i = 0; i < a.shape.size(); ++i)
    if (!structural_equal(a.shape[i], b.shape[i])) return false;
  return true;
}

}  // namespace

void NameTable::close_scope() {
  size_t start = scope_starts_.back();
  scope_starts_.pop_back();
  while (bound_.size() > start) {
    --visible_[bound_.back()];
    bound_.pop_back();
  }
}

void NameTable::make_visible(const Token& at, const std::string& name) {
  int& count = visible_[name];
  if (count > 0) error_at(at, "'" + name + "' is bound again inside its own scope");
  ++count;
  bound_.push_back(name);
}

Var NameTable::bind_var(const Token& name, DataType t) {
  auto it = objects_.find(name.text);
  Var v;
  if (it == objects_.end()) {
    v = Var(name.text, t);
    objects_.emplace(name.text, v);
  } else if (const auto* old = it->second.as<VarNode>()) {
    if (old->dtype != t)
      error_at(name, "'" + name.text + "' was bound as a variable of type " + old->dtype.str() + ", not " + t.str());
    v = Var(it->second.ptr());
  } else {
    error_at(name, "'" + name.text + "' is a buffer, not a variable");
  }
  make_visible(name, name.text);
  return v;
}

Buffer NameTable::bind_buffer(const Token& name, const Buffer& declared) {
  auto it = objects_.find(name.text);
  Buffer b = declared;
  if (it == objects_.end()) {
    objects_.emplace(name.text, declared);
  } else if (const auto* old = it->second.as<BufferNode>()) {
    if (!same_declaration(*old, *declared.as<BufferNode>()))
      error_at(name, "buffer '" + name.text + "' is declared again with another shape, type or scope");
    b = Buffer(it->second.ptr());
  } else {
    error_at(name, "'" + name.text + "' is a variable, not a buffer");
  }
  make_visible(name, name.text);
  return b;
}

void NameTable::add_free(const Token& at, const std::string& name, const ObjectRef& object) {
  if (objects_.count(name)) error_at(at, "'" + name + "' is defined twice");
  objects_.emplace(name, object);
  make_visible(at, name);
}

Var NameTable::free_var(const Token& at, const std::string& name, DataType t) {
  auto it = objects_.find(name);
  if (it == objects_.end()) {
    Var v(name, t);
    objects_.emplace(name, v);
    // Visible from here to the end of the text: outside every scope.
    ++visible_[name];
    return v;
  }
  const auto* old = it->second.as<VarNode>();
  if (!old || old->dtype != t) error_at(at, "'" + name + "' is already bound to something other than a " + t.str() + " variable");
  return Var(it->second.ptr());
}

const ObjectRef& NameTable::lookup(const Token& name) const {
  auto it = objects_.find(name.text);
  if (it == objects_.end()) error_at(name, "undefined name '" + name.text + "'");
  auto vis = visible_.find(name.text);
  if (vis == visible_.end() || vis->second == 0)
    error_at(name, "'" + name.text + "' is used outside the scope that binds it");
  return it->second;
}

}  // namespace kiln::parser
