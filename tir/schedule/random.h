// The schedule's random state: seeded, reproducible on every platform.
//
// The search replays traces on other machines and in other processes, so a
// seed must give the same samples everywhere: the generator (splitmix64) and
// the way draws become integers are written out here, not taken from the
// standard library, whose distributions differ between implementations.
#pragma once

#include <cstdint>
#include <vector>

namespace kiln {

class RandomState {
 public:
  explicit RandomState(uint64_t seed = 0) : state_(seed) {}
  uint64_t next();
  // Uniform in [0, n), n > 0.
  int64_t uniform_int(int64_t n);
  // Uniform in [0, 1).
  double uniform_real();
  // An index drawn with the given (non-negative, not all zero) weights.
  int64_t weighted_index(const std::vector<double>& weights);
  // A new independent state drawn from this one (for parallel samplers).
  RandomState fork() { return RandomState(next()); }
  uint64_t raw() const { return state_; }

 private:
  uint64_t state_;
};

// The prime factors of n > 0, ascending, with repetition.
std::vector<int64_t> prime_factors(int64_t n);

// n factors whose product is `extent`, the innermost at most max_innermost
// (<= 0: no limit): each prime factor of extent goes to a uniformly chosen
// position, redrawn until the innermost fits.
std::vector<int64_t> sample_perfect_tile(RandomState& rand, int64_t extent, int n, int64_t max_innermost);

// n factors that cover `extent` (sample_tile in schedule.h): half the draws
// are perfect tiles, the other half take the innermost uniformly from
// [1, min(extent, max_innermost)] and tile ceil(extent / innermost)
// perfectly among the others, so that a register tile of 6 rows exists
// for 1024 rows (171 x 6, the last tile predicated).
std::vector<int64_t> sample_tile(RandomState& rand, int64_t extent, int n, int64_t max_innermost);

// The product of tile factors.
int64_t tile_product(const std::vector<int64_t>& factors);

// The outermost factor that makes `inner` (the other n - 1 factors) cover
// `extent`: ceil(extent / product of inner).
int64_t covering_outer(int64_t extent, const std::vector<int64_t>& inner);

}  // namespace kiln
