// Linked into every test binary (tests/CMakeLists.txt): see
// support/internal_errors.h.
#include <gtest/gtest.h>

#include "core/error_kind.h"
#include "support/internal_errors.h"

namespace kiln::testing {
namespace {

int64_t g_seen_before = 0;

class FailOnInternalErrors final : public ::testing::EmptyTestEventListener {
  void OnTestStart(const ::testing::TestInfo&) override { g_seen_before = internal_errors_met(); }
  void OnTestEnd(const ::testing::TestInfo&) override {
    const int64_t met = internal_errors_met() - g_seen_before;
    EXPECT_EQ(met, 0) << met << " internal error(s) (compiler bugs) came back from workers or runners in this "
                      << "test: their records hold error kind 'internal' and the message";
  }
};

const bool g_registered = [] {
  ::testing::UnitTest::GetInstance()->listeners().Append(new FailOnInternalErrors);
  return true;
}();

}  // namespace

void acknowledge_internal_errors() { g_seen_before = internal_errors_met(); }

}  // namespace kiln::testing
