#include "core/structural.h"

#include <array>
#include <unordered_map>

namespace kiln {
namespace {

// Variables and buffers paired so far, one direction. Most comparisons meet
// a handful (the simplifier compares small expressions millions of times),
// so the first few pairs live inline and only a large program allocates.
class IdentityMap {
 public:
  const Object* find(const Object* x) const {
    for (size_t i = 0; i < inline_size_; ++i)
      if (inline_[i].first == x) return inline_[i].second;
    if (spill_.empty()) return nullptr;
    auto it = spill_.find(x);
    return it == spill_.end() ? nullptr : it->second;
  }
  void insert(const Object* x, const Object* y) {
    if (inline_size_ < inline_.size()) inline_[inline_size_++] = {x, y};
    else spill_.emplace(x, y);
  }

 private:
  std::array<std::pair<const Object*, const Object*>, 8> inline_{};
  size_t inline_size_ = 0;
  std::unordered_map<const Object*, const Object*> spill_;
};

class Equal final : public ObjectEqual {
 public:
  explicit Equal(FreeVars free) : free_(free) {}

  bool objects(const ObjectRef& a, const ObjectRef& b, bool defines) override {
    const Object* x = a.get();
    const Object* y = b.get();
    if (!x || !y) return x == y;
    if (x->type_tag() != y->type_tag()) return false;
    if (x->has_identity()) return identities(x, y, defines);
    // A shared subtree is equal to itself unless a variable it uses is
    // paired with another one.
    if (x == y && renamed_ == 0) return true;
    return x->equal_fields(*y, *this);
  }

 private:
  bool identities(const Object* x, const Object* y, bool defines) {
    const Object* px = lhs_.find(x);
    const Object* py = rhs_.find(y);
    if (px || py) return px == y && py == x;
    if (!defines && free_ == FreeVars::kIdentity && x != y) return false;
    lhs_.insert(x, y);
    rhs_.insert(y, x);
    if (x == y) return true;
    ++renamed_;
    return x->equal_fields(*y, *this);  // a variable's type, a buffer's shape
  }

  FreeVars free_;
  IdentityMap lhs_, rhs_;
  int renamed_ = 0;  // pairs of two different objects
};

class Hasher final : public ObjectHash {
 public:
  uint64_t object(const ObjectRef& a) override {
    if (!a.defined()) return 0x51ed;
    uint64_t h = hash_string(a.get()->type_key());
    if (a.get()->has_identity()) {
      // Numbered in order of first occurrence: renaming never changes the hash.
      auto [it, fresh] = index_.emplace(a.get(), index_.size() + 1);
      h = hash_combine(h, it->second);
      if (!fresh) return h;
    }
    return a.get()->hash_fields(h, *this);
  }

 private:
  std::unordered_map<const Object*, uint64_t> index_;
};

}  // namespace

bool structural_equal(const ObjectRef& a, const ObjectRef& b, FreeVars free) {
  return Equal(free).objects(a, b, false);
}

uint64_t structural_hash(const ObjectRef& a) { return Hasher().object(a); }

}  // namespace kiln
