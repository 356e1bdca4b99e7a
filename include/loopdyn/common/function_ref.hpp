#pragma once
/// A non-owning reference to a callable (as C++26's std::function_ref): passes a lambda to a
/// function defined in a .cpp without a template and without std::function's allocation (a
/// closure larger than its small buffer is copied to the heap: the DCA's passes allocate nothing,
/// tests/allocation). The callable must outlive the call it is passed to.

#include <type_traits>
#include <utility>

namespace loopdyn {

template <class Signature>
class FunctionRef;

template <class R, class... Args>
class FunctionRef<R(Args...)> {
 public:
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, FunctionRef>>>
  FunctionRef(const F& f)  // NOLINT(google-explicit-constructor): passed like a std::function
      : object_(static_cast<const void*>(&f)), call_([](const void* object, Args... args) -> R {
          return (*static_cast<const F*>(object))(std::forward<Args>(args)...);
        }) {}

  R operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

 private:
  const void* object_;
  R (*call_)(const void*, Args...);
};

}  // namespace loopdyn
