#include "support/expect_ir.h"

#include <optional>
#include <sstream>
#include <vector>

#include "core/error.h"
#include "core/structural.h"
#include "tir/parser/parser.h"
#include "tir/printer.h"

namespace kiln::testing {
namespace {

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(line);
  return out;
}

}  // namespace

std::string line_diff(const std::string& a, const std::string& b) {
  const std::vector<std::string> x = lines_of(a), y = lines_of(b);
  // Longest common subsequence of lines, then walked from the front.
  std::vector<std::vector<int>> lcs(x.size() + 1, std::vector<int>(y.size() + 1, 0));
  for (size_t i = x.size(); i-- > 0;)
    for (size_t j = y.size(); j-- > 0;)
      lcs[i][j] = x[i] == y[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  std::ostringstream os;
  size_t i = 0, j = 0;
  while (i < x.size() || j < y.size()) {
    if (i < x.size() && j < y.size() && x[i] == y[j]) {
      os << "  " << x[i++] << "\n";
      ++j;
    } else if (j < y.size() && (i == x.size() || lcs[i][j + 1] >= lcs[i + 1][j])) {
      os << "+ " << y[j++] << "\n";
    } else {
      os << "- " << x[i++] << "\n";
    }
  }
  return os.str();
}

::testing::AssertionResult ir_matches(const PrimFunc& actual, const std::string& expected_text) {
  std::optional<PrimFunc> parsed;
  try {
    parsed = parse_prim_func(expected_text);
  } catch (const Error& e) {
    return ::testing::AssertionFailure() << "the expected IR does not parse: " << e.what();
  }
  const PrimFunc& expected = *parsed;
  if (structural_equal(actual, expected)) return ::testing::AssertionSuccess();
  // Printed as kiln prints both, so that only real differences show.
  const std::string want = to_string(expected), got = to_string(actual);
  return ::testing::AssertionFailure() << "the IR differs from the expected (- expected, + actual):\n"
                                       << line_diff(want, got) << (want == got ? "(the texts print alike: "
                                                                                  "the difference is in types "
                                                                                  "or binding)\n"
                                                                                : "");
}

}  // namespace kiln::testing
