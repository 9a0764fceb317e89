#include "graph/memory_plan.h"

#include <algorithm>
#include <iterator>
#include <map>

namespace kiln::graph {
namespace {

int64_t aligned(int64_t bytes) {
  const int64_t a = MemoryPlan::kAlignment;
  return (bytes + a - 1) / a * a;
}

// The free ranges of an arena that grows at its end.
class Arena {
 public:
  int64_t allocate(int64_t bytes) {
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      if (it->second < bytes) continue;
      const int64_t at = it->first, left = it->second - bytes;
      free_.erase(it);
      if (left > 0) free_.emplace(at + bytes, left);
      return at;
    }
    // Nothing fits: take the free range at the end, if any, and grow.
    int64_t at = end_;
    if (!free_.empty()) {
      auto last = std::prev(free_.end());
      if (last->first + last->second == end_) {
        at = last->first;
        free_.erase(last);
      }
    }
    end_ = std::max(end_, at + bytes);
    return at;
  }

  void release(int64_t at, int64_t bytes) {
    auto next = free_.lower_bound(at);
    if (next != free_.end() && at + bytes == next->first) {  // merge with the range after
      bytes += next->second;
      next = free_.erase(next);
    }
    if (next != free_.begin()) {  // and with the one before
      auto prev = std::prev(next);
      if (prev->first + prev->second == at) {
        prev->second += bytes;
        return;
      }
    }
    free_.emplace(at, bytes);
  }

  int64_t size() const { return end_; }

 private:
  std::map<int64_t, int64_t> free_;  // offset -> bytes
  int64_t end_ = 0;
};

}  // namespace

MemoryPlan plan_memory(const Graph& g, const std::vector<FusedGroup>& groups) {
  MemoryPlan plan;
  plan.offset.assign(g.values.size(), MemoryPlan::kNotPlanned);
  std::vector<bool> external(g.values.size(), false);
  for (int id : g.inputs) external[static_cast<size_t>(id)] = true;
  for (int id : g.outputs) external[static_cast<size_t>(id)] = true;
  for (const FusedGroup& gr : groups)  // the input itself, by another shape
    if (is_input_view(g, gr)) external[static_cast<size_t>(gr.outputs[0])] = true;
  // The last step that reads each value (its own step when nothing does).
  std::vector<int64_t> last_use(g.values.size(), -1);
  for (size_t s = 0; s < groups.size(); ++s) {
    for (int id : groups[s].outputs) last_use[static_cast<size_t>(id)] = static_cast<int64_t>(s);
    for (int id : groups[s].inputs) last_use[static_cast<size_t>(id)] = static_cast<int64_t>(s);
  }
  auto planned = [&](int id) { return !external[static_cast<size_t>(id)] && !g.value(id).is_constant(); };
  auto bytes_of = [&](int id) { return aligned(g.value(id).numel() * g.value(id).dtype.bytes()); };

  Arena arena;
  for (size_t s = 0; s < groups.size(); ++s) {
    for (int id : groups[s].outputs) {
      if (!planned(id)) continue;
      plan.offset[static_cast<size_t>(id)] = arena.allocate(bytes_of(id));
      plan.separate_bytes += bytes_of(id);
    }
    auto free_dead = [&](const std::vector<int>& ids) {
      for (int id : ids)
        if (planned(id) && last_use[static_cast<size_t>(id)] == static_cast<int64_t>(s)) {
          arena.release(plan.offset[static_cast<size_t>(id)], bytes_of(id));
          last_use[static_cast<size_t>(id)] = -2;  // released once
        }
    };
    free_dead(groups[s].inputs);
    free_dead(groups[s].outputs);
  }
  plan.arena_bytes = arena.size();
  return plan;
}

}  // namespace kiln::graph
