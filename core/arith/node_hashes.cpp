#include "core/arith/node_hashes.h"

#include <algorithm>

#include "core/hash.h"

namespace kiln::arith {
namespace {

// Past this size the memo starts again rather than grow without bound.
constexpr size_t kMaxMemo = 400000;

class Hasher final : public ObjectHash {
 public:
  using Memo = std::unordered_map<const Object*, NodeHashes::Entry>;
  explicit Hasher(Memo& memo) : memo_(memo) {}

  uint64_t object(const ObjectRef& a) override {
    const Object* o = a.get();
    ++nodes_;
    if (!o) return 0x51ed;
    const auto type = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(o->type_tag()));
    if (o->has_identity() || binds(o)) return hash_combine(type, reinterpret_cast<uintptr_t>(o));
    auto it = memo_.find(o);
    if (it != memo_.end()) {
      nodes_ += it->second.hash.nodes - 1;
      return it->second.hash.value;
    }
    const int64_t before = nodes_ - 1;
    const uint64_t h = o->hash_fields(type, *this);
    // Counted up to kMemoSize only: a DAG's tree can be exponentially large.
    const int64_t nodes = std::min(nodes_ - before, NodeHashes::kMemoSize);
    nodes_ = before + nodes;
    if (nodes >= NodeHashes::kMemoSize) memo_.emplace(o, NodeHashes::Entry{a, {h, nodes}});
    return h;
  }

  int64_t nodes() const { return nodes_; }

 private:
  static bool binds(const Object* o) {
    return o->type_tag() == &LetNode::kTypeTag || o->type_tag() == &ReduceNode::kTypeTag;
  }
  Memo& memo_;
  int64_t nodes_ = 0;
};

}  // namespace

NodeHashes::Hash NodeHashes::operator()(const Expr& e) {
  if (memo_.size() > kMaxMemo) memo_.clear();
  Hasher h(memo_);
  const uint64_t value = h.object(e);
  return {value, h.nodes()};
}

}  // namespace kiln::arith
