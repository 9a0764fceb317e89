#include "search/strategy.h"

#include <algorithm>

namespace kiln::search {

std::string trace_key(const Trace& t) { return t.to_json().dump(); }

std::vector<Candidate> draw_candidates(SearchContext& ctx, int n, ThreadPool* pool) {
  std::vector<Candidate> out;
  std::unordered_set<uint64_t> taken;
  if (ctx.sketches.empty()) return out;
  // Draws go in chunks, in parallel; each is seeded by its number alone and
  // they are kept in that order, so the result never depends on the threads.
  for (int draws = 0; static_cast<int>(out.size()) < n && draws < 16 * n;) {
    const int chunk = n - static_cast<int>(out.size());
    std::vector<std::optional<Candidate>> drawn(chunk);
    std::vector<SampleFailure> why(chunk);
    auto draw = [&](int64_t i) {
      const uint64_t seed = ctx.seed + static_cast<uint64_t>(i);
      drawn[i] = sample_candidate(ctx.func, ctx.sketches[seed % ctx.sketches.size()], seed, &why[i]);
    };
    if (pool) pool->parallel_for_dynamic(chunk, draw);
    else for (int i = 0; i < chunk; ++i) draw(i);
    ctx.seed += static_cast<uint64_t>(chunk);
    draws += chunk;
    for (int i = 0; i < chunk; ++i) {
      if (!drawn[i]) {
        if (why[i].kind) ++ctx.failed_draws[*why[i].kind];
        continue;
      }
      const uint64_t key = drawn[i]->trace.fingerprint();
      if (ctx.measured.count(key) || !taken.insert(key).second) continue;
      out.push_back(std::move(*drawn[i]));
    }
  }
  return out;
}

namespace {

class RandomSearch final : public SearchStrategy {
 public:
  explicit RandomSearch(int threads) : pool_(std::max(1, threads)) {}
  std::vector<Candidate> propose(SearchContext& ctx, int n) override { return draw_candidates(ctx, n, &pool_); }
  void update(SearchContext&, const std::vector<Candidate>&, const std::vector<std::optional<double>>&) override {}

 private:
  ThreadPool pool_;
};

}  // namespace

std::unique_ptr<SearchStrategy> make_random_search(int threads) { return std::make_unique<RandomSearch>(threads); }

}  // namespace kiln::search
