// What every fuzz target shares: a kiln::Error is the answer to bad input,
// so it is caught; anything else (a KILN_ICHECK's InternalError, another
// exception, a crash, a sanitizer report) escapes and is a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.h"

namespace kiln::fuzz {

inline std::string as_string(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

template <typename F>
void user_errors_are_fine(F&& body) {
  try {
    body();
  } catch (const Error&) {
  }
}

}  // namespace kiln::fuzz
