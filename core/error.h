// Errors. Two different things, kept apart on purpose:
//  - kiln::Error is a user error (bad workload string, bad target, illegal
//    schedule). It carries a short message worded the LLVM way: lower-case
//    start, no trailing period, the numbers that matter.
//  - KILN_ICHECK is an internal invariant: a failure is a compiler bug, never
//    something a user can provoke with bad input.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace kiln {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& msg) : std::runtime_error(msg) {}
};

class InternalError : public std::logic_error {
 public:
  explicit InternalError(const std::string& msg) : std::logic_error(msg) {}
};

namespace detail {
// Collects a message with operator<< and throws on destruction of the statement.
template <typename E>
class Thrower {
 public:
  Thrower(const char* file, int line, const char* cond) {
    if (file) os_ << "internal error at " << file << ":" << line << ": check '" << cond << "' failed: ";
  }
  [[noreturn]] ~Thrower() noexcept(false) { throw E(os_.str()); }
  template <typename T>
  Thrower& operator<<(const T& v) {
    os_ << v;
    return *this;
  }

 private:
  std::ostringstream os_;
};
}  // namespace detail

}  // namespace kiln

// KILN_ICHECK(cond) << "details": a compiler bug if it fires.
#define KILN_ICHECK(cond) \
  if (cond) {             \
  } else                  \
    ::kiln::detail::Thrower<::kiln::InternalError>(__FILE__, __LINE__, #cond)

// KILN_USER_ERROR() << "message": throws kiln::Error.
#define KILN_USER_ERROR() ::kiln::detail::Thrower<::kiln::Error>(nullptr, 0, nullptr)
