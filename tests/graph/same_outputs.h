// What the graph passes' tests share: whether a pass kept what a graph
// computes (both graphs run on the reference executor with one seeded
// random input), and the operators a graph holds, in order.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/reference.h"

namespace kiln::graph::testing {

// One array per input of `g`, filled at random from `seed`.
inline std::vector<NDArray> random_inputs(const Graph& g, uint64_t seed) {
  std::vector<NDArray> in;
  for (int id : g.inputs) {
    in.emplace_back(g.value(id).dtype, g.value(id).shape);
    in.back().fill_random(seed);
  }
  return in;
}

inline std::vector<std::string> ops_of(const Graph& g) {
  std::vector<std::string> out;
  for (const Node& n : g.nodes) out.push_back(n.op);
  return out;
}

inline void expect_same_outputs(const Graph& before, const Graph& after) {
  std::vector<NDArray> in = random_inputs(before, 11);
  std::vector<NDArray> in2;
  for (const NDArray& a : in) in2.push_back(a.copy());
  const std::vector<NDArray> want = run_reference(before, in), got = run_reference(after, in2);
  ASSERT_EQ(want.size(), got.size());
  for (size_t k = 0; k < want.size(); ++k) {
    ASSERT_EQ(got[k].shape(), want[k].shape()) << "output " << k;
    for (int64_t i = 0; i < want[k].numel(); ++i)
      ASSERT_NEAR(got[k].get(i), want[k].get(i), 1e-5 + 1e-4 * std::abs(want[k].get(i))) << k << ":" << i;
  }
}

}  // namespace kiln::graph::testing
