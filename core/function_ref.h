// A non-owning reference to a callable: what a function that only calls its
// callback before returning should take. Unlike std::function it never
// allocates and never copies the callable, which matters on the paths that
// run once per IR node (child visits and rewrites, core/functor.h).
//
//   void each(FunctionRef<void(int)> fn);
//   each([&](int i) { sum += i; });   // the lambda lives until each returns
#pragma once

#include <memory>
#include <type_traits>
#include <utility>

namespace kiln {

template <typename Fn>
class FunctionRef;

template <typename R, typename... Args>
class FunctionRef<R(Args...)> {
 public:
  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, FunctionRef> &&
                                                    std::is_invocable_r_v<R, F&, Args...>>>
  FunctionRef(F&& f)  // NOLINT(google-explicit-constructor): converts like std::function
      : obj_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* obj, Args... args) -> R {
          return (*static_cast<std::remove_reference_t<F>*>(obj))(std::forward<Args>(args)...);
        }) {}

  R operator()(Args... args) const { return call_(obj_, std::forward<Args>(args)...); }

 private:
  void* obj_;
  R (*call_)(void*, Args...);
};

}  // namespace kiln
