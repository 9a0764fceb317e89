// What a call throws, as text: tests that check an error's message read
// `EXPECT_NE(error_of([&] { ... }).find("..."), npos)`.
#pragma once

#include <functional>
#include <string>

#include "core/error.h"

namespace kiln::testing {

// The message of the kiln::Error fn throws; "(no error)" when it returns.
inline std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace kiln::testing
