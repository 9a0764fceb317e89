// Evolutionary search guided by a cost model (Ansor, MetaSchedule; written
// anew). Each round:
//   1. a population of the best measured designs (a share) and fresh draws
//      from the sketches: EvolutionaryOptions::population of them, or as
//      few as 64 when scoring it and one generation of children would
//      overrun the round's search budget at the workload's measured cost
//      of lowering and featurizing a candidate;
//   2. a few generations (none, nothing lowered or featurized, and only as
//      many draws as the batch takes while the model cannot rank:
//      CostModel::ranks): the model scores the population, parents are
//      drawn in proportion to their scores, and each child is its parent
//      with one decision mutated (mutate.h) or, sometimes, the parent
//      again; nothing measured before enters; fewer generations when the
//      round's search budget (SearchContext::search_budget_s) runs out,
//      never fewer than one of children;
//   3. the batch: a share of neighbours of the best measured designs (one
//      decision mutated, the model's favourites among them), the
//      best-scored candidates seen in any generation, and an ε share of
//      fresh random draws, so the model keeps learning about the parts of
//      the space it rates low.
// After each measured batch the model is retrained on every valid
// measurement so far, labelled with throughput relative to the best. A job
// that resumes on a database starts from its earlier measurements
// (SearchContext::earlier): replayed, they train the model and seed the
// population before the first round.
#pragma once

#include <memory>

#include "costmodel/cost_model.h"
#include "search/strategy.h"

namespace kiln::search {

struct EvolutionaryOptions {
  int population = 512;
  int generations = 4;
  double mutation_probability = 0.85;
  double epsilon = 0.05;
  double measured_share = 0.2;  // of the initial population, from the best measured
  // Of each batch, neighbours of the best measured designs (one decision
  // mutated; of the `neighbour_parents` fastest), the model's favourites.
  double neighbour_share = 0.25;
  int neighbour_parents = 4;
  // Threads that draw, mutate, lower and featurize (the search runs between
  // batches, when the machine is otherwise idle). The candidates proposed
  // are the same for any number.
  int threads = 1;
};

std::unique_ptr<SearchStrategy> make_evolutionary_search(std::unique_ptr<costmodel::CostModel> model,
                                                         EvolutionaryOptions options = {});

}  // namespace kiln::search
