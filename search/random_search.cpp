#include "search/strategy.h"

namespace kiln::search {

std::string trace_key(const Trace& t) { return t.to_json().dump(); }

std::vector<Candidate> draw_candidates(SearchContext& ctx, int n) {
  std::vector<Candidate> out;
  std::unordered_set<uint64_t> taken;
  if (ctx.sketches.empty()) return out;
  for (int draw = 0; static_cast<int>(out.size()) < n && draw < 16 * n; ++draw) {
    const Trace& sketch = ctx.sketches[ctx.seed % ctx.sketches.size()];
    SampleFailure why;
    std::optional<Candidate> c = sample_candidate(ctx.func, sketch, ctx.seed++, &why);
    if (!c) {
      ++ctx.failed_draws[why.kind];
      continue;
    }
    const uint64_t key = c->trace.fingerprint();
    if (ctx.measured.count(key) || !taken.insert(key).second) continue;
    out.push_back(std::move(*c));
  }
  return out;
}

namespace {

class RandomSearch final : public SearchStrategy {
 public:
  std::vector<Candidate> propose(SearchContext& ctx, int n) override { return draw_candidates(ctx, n); }
  void update(SearchContext&, const std::vector<Candidate>&, const std::vector<std::optional<double>>&) override {}
};

}  // namespace

std::unique_ptr<SearchStrategy> make_random_search() { return std::make_unique<RandomSearch>(); }

}  // namespace kiln::search
