#pragma once
/// LOOPDYN_CHECK: public-API precondition, throws loopdyn::InvalidArgument with a message built
/// from the remaining arguments. LOOPDYN_ASSERT: internal invariant, checked in debug builds.

#include <cassert>

#include "loopdyn/common/errors.hpp"

#define LOOPDYN_CHECK(cond, ...)                                                  \
  do {                                                                            \
    if (!(cond)) throw ::loopdyn::InvalidArgument(::loopdyn::detail::concat(__VA_ARGS__)); \
  } while (false)

#define LOOPDYN_ASSERT(cond) assert(cond)
