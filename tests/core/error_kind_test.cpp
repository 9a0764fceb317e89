// Error kinds: a user-level failure is its stage's kind, a compiler bug is
// internal wherever it is caught.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "core/error.h"
#include "core/error_kind.h"

namespace kiln {
namespace {

template <typename F>
CaughtError caught_at(ErrorKind stage, F&& throws) {
  try {
    throws();
  } catch (...) {
    return caught_error(stage);
  }
  ADD_FAILURE() << "nothing was thrown";
  return {};
}

TEST(ErrorKind, AUserErrorIsItsStagesKind) {
  CaughtError e = caught_at(ErrorKind::kLowering, [] { KILN_USER_ERROR() << "loop 'i' has no extent"; });
  EXPECT_EQ(e.kind, ErrorKind::kLowering);
  EXPECT_EQ(e.message, "loop 'i' has no extent");
  EXPECT_EQ(caught_at(ErrorKind::kRuntimeError, [] { throw std::runtime_error("dlopen failed"); }).kind,
            ErrorKind::kRuntimeError);
}

TEST(ErrorKind, ABrokenInvariantIsInternalWhereverItIsCaught) {
  CaughtError check = caught_at(ErrorKind::kLowering, [] { KILN_ICHECK(1 + 1 == 3) << "arithmetic"; });
  EXPECT_EQ(check.kind, ErrorKind::kInternal);
  EXPECT_NE(check.message.find("internal error at"), std::string::npos) << check.message;
  CaughtError range = caught_at(ErrorKind::kCompile, [] { (void)std::vector<int>{}.at(3); });
  EXPECT_EQ(range.kind, ErrorKind::kInternal);
  EXPECT_EQ(range.message.rfind("internal error: ", 0), 0u) << range.message;
}

TEST(ErrorKind, NamesRoundTrip) {
  for (ErrorKind k : {ErrorKind::kNone, ErrorKind::kLowering, ErrorKind::kWrongAnswer, ErrorKind::kInternal})
    EXPECT_EQ(parse_error_kind(error_kind_name(k)), k);
  EXPECT_STREQ(error_kind_name(ErrorKind::kInternal), "internal");
  EXPECT_FALSE(parse_error_kind("segfault").has_value());
}

}  // namespace
}  // namespace kiln
