#include "tir/schedule/random.h"

#include <algorithm>

#include "core/error.h"

namespace kiln {

uint64_t RandomState::next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

int64_t RandomState::uniform_int(int64_t n) {
  KILN_ICHECK(n > 0) << "uniform_int over an empty range";
  // Rejection keeps the draw exactly uniform.
  const uint64_t un = static_cast<uint64_t>(n);
  const uint64_t limit = UINT64_MAX - UINT64_MAX % un;
  uint64_t x;
  do {
    x = next();
  } while (x >= limit);
  return static_cast<int64_t>(x % un);
}

double RandomState::uniform_real() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

int64_t RandomState::weighted_index(const std::vector<double>& weights) {
  double total = 0;
  for (double w : weights) total += w;
  KILN_ICHECK(total > 0) << "weighted_index needs a positive weight";
  double x = uniform_real() * total;
  for (size_t i = 0; i < weights.size(); ++i) {
    if (x < weights[i]) return static_cast<int64_t>(i);
    x -= weights[i];
  }
  for (size_t i = weights.size(); i-- > 0;)
    if (weights[i] > 0) return static_cast<int64_t>(i);
  return 0;
}

std::vector<int64_t> prime_factors(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t p = 2; p * p <= n; ++p)
    while (n % p == 0) {
      out.push_back(p);
      n /= p;
    }
  if (n > 1) out.push_back(n);
  return out;
}

std::vector<int64_t> sample_perfect_tile(RandomState& rand, int64_t extent, int n, int64_t max_innermost) {
  KILN_ICHECK(n >= 1 && extent >= 1) << "sample_perfect_tile of " << extent << " into " << n;
  if (n == 1) return {extent};
  const std::vector<int64_t> primes = prime_factors(extent);
  // The innermost can always be 1, so a draw that fits exists; a bounded
  // number of tries keeps huge prime counts from spinning, then falls back to
  // moving the innermost's surplus outward.
  std::vector<int64_t> f;
  for (int attempt = 0; attempt < 64; ++attempt) {
    f.assign(n, 1);
    for (int64_t p : primes) f[rand.uniform_int(n)] *= p;
    if (max_innermost <= 0 || f[n - 1] <= max_innermost) return f;
  }
  while (f[n - 1] > max_innermost) {
    int64_t p = prime_factors(f[n - 1]).back();
    f[n - 1] /= p;
    f[n > 1 ? n - 2 : 0] *= p;
  }
  return f;
}

std::vector<int64_t> sample_tile(RandomState& rand, int64_t extent, int n, int64_t max_innermost) {
  KILN_ICHECK(n >= 1 && extent >= 1) << "sample_tile of " << extent << " into " << n;
  if (n == 1 || rand.uniform_int(2) == 0) return sample_perfect_tile(rand, extent, n, max_innermost);
  const int64_t limit = max_innermost > 0 ? std::min(extent, max_innermost) : extent;
  const int64_t innermost = 1 + rand.uniform_int(limit);
  std::vector<int64_t> f = sample_perfect_tile(rand, covering_outer(extent, {innermost}), n - 1, 0);
  f.push_back(innermost);
  return f;
}

int64_t tile_product(const std::vector<int64_t>& factors) {
  int64_t product = 1;
  for (int64_t x : factors) product *= x;
  return product;
}

int64_t covering_outer(int64_t extent, const std::vector<int64_t>& inner) {
  const int64_t product = tile_product(inner);
  return (extent + product - 1) / product;
}

}  // namespace kiln
