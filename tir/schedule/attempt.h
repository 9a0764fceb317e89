// Trying schedule steps that may not apply: what they made, or why not, as
// a value.
//
// A schedule rule tries primitives where they may not apply (a block that
// cannot be inlined, a reduction that cannot be factored over a piece, a
// write-back that does not fit) and keeps the schedule it had when they do
// not. attempt() runs the steps and hands back either their result or the
// ScheduleError's kind and message: a rule reads like the decision it
// makes, nothing is thrown through it, and it can ask why a step did not
// apply. Only a ScheduleError is taken: any other error (a bug in kiln, a
// bad argument from the rule itself) goes on up.
//
//   std::vector<Schedule> out = {in};
//   if (Attempt<Schedule> t = attempt(in, [&](Schedule& s) { s.rfactor(loop, 0); }))
//     out.push_back(std::move(*t));
#pragma once

#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "tir/schedule/error.h"
#include "tir/schedule/schedule.h"

namespace kiln {

template <typename T>
class Attempt {
 public:
  static Attempt made(T value) { return Attempt(std::move(value), std::nullopt, {}); }
  static Attempt refused(ScheduleErrorKind kind, std::string message) {
    return Attempt(std::nullopt, kind, std::move(message));
  }

  explicit operator bool() const { return value_.has_value(); }
  T& operator*() { return *value_; }
  const T& operator*() const { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

  // Why the steps did not apply; nullopt when they did.
  std::optional<ScheduleErrorKind> error() const { return error_; }
  const std::string& message() const { return message_; }

 private:
  Attempt(std::optional<T> value, std::optional<ScheduleErrorKind> error, std::string message)
      : value_(std::move(value)), error_(error), message_(std::move(message)) {}
  std::optional<T> value_;
  std::optional<ScheduleErrorKind> error_;
  std::string message_;
};

// f(), which schedules on schedules it owns or was handed: its result, or
// the schedule error that stopped it.
template <typename F>
auto attempt(F&& f) -> Attempt<std::invoke_result_t<F&>> {
  using T = std::invoke_result_t<F&>;
  try {
    return Attempt<T>::made(f());
  } catch (const ScheduleError& e) {
    return Attempt<T>::refused(e.kind(), e.what());
  }
}

// `steps` run on a copy of `in`: the copy, or why not. `in` is unchanged.
template <typename F>
Attempt<Schedule> attempt(const Schedule& in, F&& steps) {
  return attempt([&] {
    Schedule s = in;
    steps(s);
    return s;
  });
}

// `steps` run on `sch` if they all apply; if one does not, `sch` stays as
// it was (its trace too). Whether they applied.
template <typename F>
bool apply_if_possible(Schedule& sch, F&& steps) {
  Attempt<Schedule> t = attempt(sch, std::forward<F>(steps));
  if (t) sch = std::move(*t);
  return static_cast<bool>(t);
}

}  // namespace kiln
