// Printed functions with random edits (characters deleted, replaced or
// inserted): the parser either reads them or throws kiln::Error naming a
// position, never an internal error or a crash. Fixed seed, so a failure
// reproduces.
#include <random>

#include "ops/workload.h"
#include "round_trip.h"
#include "tir/transform/lower.h"

namespace kiln {
namespace {

TEST(ParseMutatedText, OnlyUserErrorsWithAPosition) {
  std::vector<std::string> texts;
  for (const char* w : {"matmul:M=4,N=4,K=4", "softmax:M=3,N=5", "layer_norm:M=3,N=5",
                        "conv2d_nchw:N=1,C=2,H=5,W=5,K=2,R=3,S=3,stride=1,pad=1"}) {
    PrimFunc f = ops::build_workload(ops::parse_workload(w));
    texts.push_back(to_string(f));
    texts.push_back(to_string(lower(f)));
  }
  const char* const pieces[] = {"(", ")", "[", "]", ",", ":", "=", "+", "T.", "x", "0", "\n", "    ",
                                "\"", "-", "T.int64(", "axis=", "with ", "for ", "T.Ramp(0, 1, 4)"};
  std::mt19937 rng(7);
  int parsed = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    std::string t = texts[rng() % texts.size()];
    for (int edits = 1 + rng() % 3; edits > 0; --edits) {
      size_t pos = rng() % t.size();
      switch (rng() % 3) {
        case 0: t.erase(pos, 1 + rng() % 4); break;
        case 1: t.insert(pos, pieces[rng() % std::size(pieces)]); break;
        default: t[pos] = "()[],:=+-x0 \n\"."[rng() % 15]; break;
      }
    }
    try {
      parse_prim_func(t);
      ++parsed;
    } catch (const Error& e) {
      ASSERT_EQ(std::string(e.what()).rfind("line ", 0), 0u) << e.what() << "\nin\n" << t;
    } catch (const std::exception& e) {
      FAIL() << "not a user error: " << e.what() << "\nin\n" << t;
    }
  }
  // Some edits (inside a float literal, a name) still give a valid program.
  EXPECT_GT(parsed, 0);
}

}  // namespace
}  // namespace kiln
