#include "search/evolutionary.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "costmodel/features.h"
#include "search/mutate.h"
#include "search/register_tile.h"
#include "tir/transform/lower.h"

namespace kiln::search {
namespace {

struct Scored {
  Candidate candidate;
  uint64_t key = 0;  // Trace::fingerprint
  double score = 0;
};

class EvolutionarySearch final : public SearchStrategy {
 public:
  EvolutionarySearch(std::unique_ptr<costmodel::CostModel> model, EvolutionaryOptions o)
      : model_(std::move(model)), o_(o), pool_(std::max(1, o.threads)) {}

  std::vector<Candidate> propose(SearchContext& ctx, int n) override {
    if (!resumed_) resume(ctx);
    RandomState rand(ctx.seed * 0x9E3779B97F4A7C15ULL + 1);
    features_.clear();  // this round's population only; the training set keeps its own
    population_ = round_population(ctx);
    // A model that cannot rank picks nothing from a population: the batch
    // is fresh draws, and drawing more than it takes is time lost (a
    // Winograd candidate takes 10 ms to draw).
    if (!model_->ranks()) population_ = std::min(population_, std::max(n, 1));
    std::vector<Candidate> population = initial_population(ctx);
    std::unordered_map<uint64_t, Scored> explored;
    const auto start = std::chrono::steady_clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
    double generation_s = 0;  // the last generation's scoring and breeding
    for (int g = 0; g < o_.generations && !population.empty(); ++g) {
      const double generation_start = elapsed();
      std::vector<uint64_t> keys(population.size());
      for (size_t i = 0; i < population.size(); ++i) keys[i] = population[i].trace.fingerprint();
      std::vector<double> scores = score(population, keys);
      for (size_t i = 0; i < population.size(); ++i)
        if (!ctx.measured.count(keys[i])) explored.emplace(keys[i], Scored{population[i], keys[i], scores[i]});
      // A model that scores everything alike (XGBoost before its first
      // batch) selects nothing: its generations would be random walks, so
      // the first batch is the fresh draws themselves.
      if (std::adjacent_find(scores.begin(), scores.end(), std::not_equal_to<>()) == scores.end()) break;
      if (g + 1 == o_.generations) break;
      // Past the first generation of children, none that would end past
      // the budget starts (the last one's time is the estimate).
      if (g >= 1 && ctx.search_budget_s > 0 && elapsed() + generation_s > ctx.search_budget_s) break;
      population = next_generation(ctx, population, scores, rand);
      generation_s = elapsed() - generation_start;
    }
    std::vector<Scored> ranked;
    for (auto& [key, s] : explored) ranked.push_back(std::move(s));
    std::sort(ranked.begin(), ranked.end(), [](const Scored& a, const Scored& b) {
      return a.score != b.score ? a.score > b.score : a.key < b.key;
    });
    const int greedy = std::max(0, static_cast<int>(n - std::ceil(o_.epsilon * n)));
    std::vector<Candidate> out;
    std::unordered_set<uint64_t> taken;
    for (Candidate& c : carried_over(ctx)) {
      if (static_cast<int>(out.size()) >= greedy) break;
      if (taken.insert(c.trace.fingerprint()).second) out.push_back(std::move(c));
    }
    const int near = std::min(greedy - static_cast<int>(out.size()),
                              static_cast<int>(std::ceil(o_.neighbour_share * n)));
    for (Candidate& c : neighbours(ctx, near, taken, rand)) {
      taken.insert(c.trace.fingerprint());
      out.push_back(std::move(c));
    }
    for (const Scored& s : ranked) {
      if (static_cast<int>(out.size()) >= greedy) break;
      if (taken.insert(s.key).second) out.push_back(s.candidate);
    }
    for (Candidate& c : draw_candidates(ctx, n - static_cast<int>(out.size()) + 4, &pool_)) {
      if (static_cast<int>(out.size()) >= n) break;
      if (taken.insert(c.trace.fingerprint()).second) out.push_back(std::move(c));
    }
    return out;
  }

  void update(SearchContext&, const std::vector<Candidate>& batch,
              const std::vector<std::optional<double>>& secs) override {
    for (size_t i = 0; i < batch.size(); ++i)
      if (secs[i] && *secs[i] > 0) learn(batch[i], *secs[i]);
    retrain();
  }

 private:
  // Earlier runs' measurements (ctx.earlier, fastest first), replayed: they
  // seed the population and train the model as this run's own do. At most
  // kResumeLimit, the fastest, so that a large database resumes quickly.
  void resume(SearchContext& ctx) {
    resumed_ = true;
    constexpr size_t kResumeLimit = 2048;
    for (size_t i = 0; i < ctx.earlier.size() && i < kResumeLimit; ++i) {
      SampleFailure why;
      std::optional<Candidate> c = replay_candidate(ctx.func, ctx.earlier[i].first, &why);
      if (c) learn(*c, ctx.earlier[i].second);
      else if (why.kind) ++ctx.failed_draws[*why.kind];
    }
    retrain();
  }

  // The designs of similar workloads (ctx.similar, which the tuner reads
  // again every round) and, once, before anything else is measured, those
  // with register tiles sized from the target (ctx.register_designs): the
  // ones not measured yet, replayed. They lead the batch, whatever the
  // model (untrained at first) would say.
  std::vector<Candidate> carried_over(SearchContext& ctx) {
    std::vector<const Trace*> designs;
    for (const Trace& t : ctx.similar) designs.push_back(&t);
    if (!carried_)
      for (const Trace& t : ctx.register_designs) designs.push_back(&t);
    carried_ = true;
    std::vector<Candidate> out;
    for (size_t i = 0; i < designs.size(); ++i) {
      SampleFailure why;
      // Seeded by the design, so that one offered again round after round
      // replays as the same candidate.
      std::optional<Candidate> c = replay_candidate(ctx.func, *designs[i], &why, ctx.seed + designs[i]->fingerprint());
      if (!c) {
        if (why.kind) ++ctx.failed_draws[*why.kind];
      } else if (!ctx.measured.count(c->trace.fingerprint())) {
        out.push_back(std::move(*c));
      }
    }
    return out;
  }

  void learn(const Candidate& c, double secs) {
    measured_.push_back({c, c.trace.fingerprint(), secs});
    train_x_.push_back(features(c));
  }

  void retrain() {
    if (measured_.empty()) return;
    double best = measured_[0].score;
    for (const Scored& m : measured_) best = std::min(best, m.score);
    std::vector<double> y;
    for (const Scored& m : measured_) y.push_back(best / m.score);
    model_->update(train_x_, y);
  }

  // The `k` fastest measured designs, fastest first.
  std::vector<const Scored*> fastest_measured(size_t k) const {
    std::vector<const Scored*> best;
    for (const Scored& m : measured_) best.push_back(&m);
    k = std::min(k, best.size());
    std::partial_sort(best.begin(), best.begin() + static_cast<std::ptrdiff_t>(k), best.end(),
                      [](const Scored* a, const Scored* b) { return a->score < b->score; });
    best.resize(k);
    return best;
  }

  // The best measured designs (a share of the population), then fresh draws.
  std::vector<Candidate> initial_population(SearchContext& ctx) {
    const size_t share = static_cast<size_t>(o_.measured_share * population_);
    const std::vector<const Scored*> best = fastest_measured(share);
    std::vector<Candidate> pop;
    for (size_t i = 0; i < best.size(); ++i) {
      pop.push_back(best[i]->candidate);
      // Featurized when it was measured: its row of the training set.
      features_.emplace(best[i]->key, train_x_[static_cast<size_t>(best[i] - measured_.data())]);
    }
    for (Candidate& c : draw_candidates(ctx, population_ - static_cast<int>(pop.size()), &pool_)) pop.push_back(std::move(c));
    return pop;
  }

  // `parent` with one decision mutated, replayed (seeded by `seed`); a tile
  // mutation that grows the register tile beyond the registers is repaired
  // as a fresh draw is (register_tile.h).
  static std::optional<Candidate> child_of(const SearchContext& ctx, const Candidate& parent, uint64_t seed,
                                           SampleFailure* why) {
    RandomState r(seed);
    std::optional<Trace> design = mutate(parent.trace.without_postproc(), r);
    if (!design) return std::nullopt;
    return replay_candidate(ctx.func, fit_register_tiles(*design, r), why, r.next());
  }

  // Up to `n` neighbours of the best measured designs: for each of the
  // `parents` fastest, kNeighbourDraws children of one mutation (fewer in
  // a round whose population is cut, in proportion), new to
  // ctx.measured and to `taken`, the model's favourite first; taken in
  // turns, the fastest parent's first, so that each parent has its share.
  std::vector<Candidate> neighbours(SearchContext& ctx, int n, const std::unordered_set<uint64_t>& taken,
                                    RandomState& rand) {
    constexpr int kNeighbourDraws = 32, kLeastNeighbourDraws = 8;
    if (n <= 0) return {};
    const int draws = std::max(kLeastNeighbourDraws, kNeighbourDraws * population_ / std::max(1, o_.population));
    const std::vector<const Scored*> best = fastest_measured(static_cast<size_t>(std::max(0, o_.neighbour_parents)));
    if (best.empty()) return {};
    struct Attempt {
      size_t parent;
      uint64_t seed;
      std::optional<Candidate> child;
      SampleFailure why;
    };
    std::vector<Attempt> attempts;
    for (size_t p = 0; p < best.size(); ++p)
      for (int k = 0; k < draws; ++k) attempts.push_back({p, rand.next(), std::nullopt, {}});
    pool_.parallel_for_dynamic(static_cast<int64_t>(attempts.size()), [&](int64_t i) {
      Attempt& a = attempts[i];
      a.child = child_of(ctx, best[a.parent]->candidate, a.seed, &a.why);
    });
    std::vector<Candidate> children;
    std::vector<size_t> parent_of;
    std::vector<uint64_t> keys;
    std::unordered_set<uint64_t> seen;
    for (Attempt& a : attempts) {
      if (!a.child) {
        if (a.why.kind) ++ctx.failed_draws[*a.why.kind];
        continue;
      }
      const uint64_t key = a.child->trace.fingerprint();
      if (ctx.measured.count(key) || taken.count(key) || !seen.insert(key).second) continue;
      children.push_back(std::move(*a.child));
      parent_of.push_back(a.parent);
      keys.push_back(key);
    }
    if (children.empty()) return {};
    const std::vector<double> scores = score(children, keys);
    std::vector<std::vector<size_t>> by_parent(best.size());
    for (size_t i = 0; i < children.size(); ++i) by_parent[parent_of[i]].push_back(i);
    for (std::vector<size_t>& c : by_parent)
      std::stable_sort(c.begin(), c.end(), [&](size_t a, size_t b) { return scores[a] > scores[b]; });
    std::vector<Candidate> out;
    for (size_t turn = 0; static_cast<int>(out.size()) < n; ++turn) {
      bool any = false;
      for (const std::vector<size_t>& c : by_parent)
        if (turn < c.size() && static_cast<int>(out.size()) < n) {
          out.push_back(children[c[turn]]);
          any = true;
        }
      if (!any) break;
    }
    return out;
  }

  // Children of parents drawn in proportion to their scores. Attempts go in
  // chunks: the parents, the coin flips and a seed per attempt come from
  // `rand` in order, the mutations and replays run in parallel, and the
  // children are kept in attempt order, so the threads change nothing.
  std::vector<Candidate> next_generation(SearchContext& ctx, const std::vector<Candidate>& pop,
                                         const std::vector<double>& scores, RandomState& rand) {
    std::vector<double> weights(scores.size());
    for (size_t i = 0; i < scores.size(); ++i) weights[i] = std::max(scores[i], 0.0) + 1e-6;
    std::vector<Candidate> next;
    std::unordered_set<uint64_t> seen;
    struct Attempt {
      size_t parent;
      bool mutates;
      uint64_t seed;
      std::optional<Candidate> child;
      SampleFailure why;
    };
    for (int attempts = 0; static_cast<int>(next.size()) < population_ && attempts < 4 * population_;) {
      std::vector<Attempt> chunk(population_ - next.size());
      for (Attempt& a : chunk) {
        a.parent = rand.weighted_index(weights);
        a.mutates = rand.uniform_real() < o_.mutation_probability;
        a.seed = rand.next();
      }
      attempts += static_cast<int>(chunk.size());
      pool_.parallel_for_dynamic(static_cast<int64_t>(chunk.size()), [&](int64_t i) {
        Attempt& a = chunk[i];
        if (a.mutates) a.child = child_of(ctx, pop[a.parent], a.seed, &a.why);
      });
      for (Attempt& a : chunk) {
        if (a.mutates && !a.child) {
          if (a.why.kind) ++ctx.failed_draws[*a.why.kind];
          continue;
        }
        const uint64_t key = (a.mutates ? *a.child : pop[a.parent]).trace.fingerprint();
        if (ctx.measured.count(key) || !seen.insert(key).second) continue;
        next.push_back(a.mutates ? std::move(*a.child) : pop[a.parent]);
      }
    }
    return next;
  }

  const costmodel::ProgramFeatures& features(const Candidate& c) {
    const uint64_t key = c.trace.fingerprint();
    auto it = features_.find(key);
    if (it == features_.end()) {
      double secs = 0;
      it = features_.emplace(key, extract(c, &secs)).first;
      note_extraction(secs);
    }
    return it->second;
  }

  // Lowers and featurizes `c`; `secs`: the time it took this thread.
  static costmodel::ProgramFeatures extract(const Candidate& c, double* secs) {
    const auto start = std::chrono::steady_clock::now();
    costmodel::ProgramFeatures f = costmodel::extract_features(lower_to_loops(c.func, {.verify = false}));
    *secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return f;
  }

  void note_extraction(double secs) {
    extract_s_ += secs;
    ++extracted_;
  }

  // The population of a round: o_.population, or fewer when scoring the
  // initial population and one generation of children (the least a round
  // scores) would overrun the round's search budget at this workload's
  // cost of lowering and featurizing a candidate, as timed so far. A space
  // whose programs take 100 ms to lower (a Winograd convolution's inlined
  // transforms) would otherwise search for several times its budget, and
  // its rounds would be mostly search. Never below kMinPopulation.
  int round_population(const SearchContext& ctx) const {
    constexpr int kMinPopulation = 64;
    if (ctx.search_budget_s <= 0 || extracted_ == 0) return o_.population;
    const double wall_s = extract_s_ / static_cast<double>(extracted_) / pool_.num_threads();
    const double fits = ctx.search_budget_s / (2 * wall_s);
    const int least = std::min(kMinPopulation, o_.population);
    return static_cast<int>(std::clamp(fits, static_cast<double>(least), static_cast<double>(o_.population)));
  }

  // The model's scores of a population (keys: their fingerprints); what is
  // not cached yet is lowered and featurized in parallel. All 0, nothing
  // lowered, while the model cannot rank (CostModel::ranks).
  std::vector<double> score(const std::vector<Candidate>& pop, const std::vector<uint64_t>& keys) {
    if (!model_->ranks()) return std::vector<double>(pop.size(), 0.0);
    std::vector<size_t> missing;
    for (size_t i = 0; i < pop.size(); ++i)
      if (!features_.count(keys[i])) missing.push_back(i);
    std::vector<costmodel::ProgramFeatures> fresh(missing.size());
    std::vector<double> secs(missing.size());
    pool_.parallel_for_dynamic(static_cast<int64_t>(missing.size()),
                               [&](int64_t i) { fresh[i] = extract(pop[missing[i]], &secs[i]); });
    for (size_t i = 0; i < missing.size(); ++i) {
      features_.emplace(keys[missing[i]], std::move(fresh[i]));
      note_extraction(secs[i]);
    }
    std::vector<costmodel::ProgramFeatures> xs;
    xs.reserve(pop.size());
    for (uint64_t k : keys) xs.push_back(features_.at(k));
    return model_->predict(xs);
  }

  std::unique_ptr<costmodel::CostModel> model_;
  EvolutionaryOptions o_;
  bool resumed_ = false;
  bool carried_ = false;
  std::vector<Scored> measured_;  // score: seconds
  std::vector<costmodel::ProgramFeatures> train_x_;
  std::unordered_map<uint64_t, costmodel::ProgramFeatures> features_;
  // Every extraction so far: seconds of one thread, and how many.
  double extract_s_ = 0;
  int64_t extracted_ = 0;
  int population_ = 0;  // this round's (round_population)
  ThreadPool pool_;
};

}  // namespace

std::unique_ptr<SearchStrategy> make_evolutionary_search(std::unique_ptr<costmodel::CostModel> model,
                                                         EvolutionaryOptions options) {
  return std::make_unique<EvolutionarySearch>(std::move(model), options);
}

}  // namespace kiln::search
