// Search strategies: what to measure next. The tuner (tuner.h) asks for a
// batch, measures it, and tells the strategy what it measured.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "search/sample.h"
#include "targets/runtime/thread_pool.h"

namespace kiln::search {

// What the strategies share with the tuner: the workload, its sketches, and
// the traces measured so far (this run and earlier runs in the database),
// which no strategy proposes again.
struct SearchContext {
  PrimFunc func;
  std::vector<Trace> sketches;
  // Fingerprints (Trace::fingerprint) of the traces measured: cheap to
  // compute for every candidate the search considers.
  std::unordered_set<uint64_t> measured;
  // Valid measurements of earlier runs (the database's records of this
  // workload and target), fastest first, in seconds: what a strategy that
  // learns starts from when a job resumes.
  std::vector<std::pair<Trace, double>> earlier;
  // The best designs of similar workloads (same operator, other shapes),
  // carried over to this one (transfer.h), most similar first: a strategy
  // that learns measures them first.
  std::vector<Trace> similar;
  // Designs whose register tiles are sized from the target
  // (register_designs.h): measured first too, after the similar ones.
  std::vector<Trace> register_designs;
  uint64_t seed = 1;
  // Seconds a propose may spend evolving (0: no limit). A strategy with
  // generations starts no new one it expects to finish past this, after
  // the first; the tuner sets it each round (TuneOptions::search_share).
  double search_budget_s = 0;
  // Draws (and mutations) that made no candidate, by failure kind: a space
  // whose draws keep failing says so instead of stalling.
  std::map<ScheduleErrorKind, int64_t> failed_draws;
};

// A trace's identity in the database: its JSON text (a record's trace_json).
std::string trace_key(const Trace& t);

class SearchStrategy {
 public:
  virtual ~SearchStrategy() = default;
  // Up to n candidates never measured, fewer when the space is exhausted.
  virtual std::vector<Candidate> propose(SearchContext& ctx, int n) = 0;
  // The batch just measured: seconds per run, nullopt for a failure.
  virtual void update(SearchContext& ctx, const std::vector<Candidate>& batch,
                      const std::vector<std::optional<double>>& secs) = 0;
};

// Draws from the sketches uniformly at random, on `threads` threads.
std::unique_ptr<SearchStrategy> make_random_search(int threads = 1);

// n fresh candidates drawn uniformly from the sketches, new to ctx.measured
// and to each other; gives up after 16 n draws. With a pool, draws run on
// its threads; the candidates are the same either way.
std::vector<Candidate> draw_candidates(SearchContext& ctx, int n, ThreadPool* pool = nullptr);

}  // namespace kiln::search
