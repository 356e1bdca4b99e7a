# Precompiled third-party and standard headers (LOOPDYN_PRECOMPILE_HEADERS, on by default).
#
# Eigen's dense modules and the standard library take 2-3 s to parse in every translation unit
# (GoogleTest adds more in the tests); parsed once per target instead, README command 2's two
# builds each take minutes less. Only headers from outside loopdyn are precompiled, so editing a
# loopdyn header rebuilds what includes it and nothing more. A precompiled header hides an include
# a file forgot: the installed-package test (tests/package) and the Python module compile the
# public headers without them, but only a build with -DLOOPDYN_PRECOMPILE_HEADERS=OFF checks that
# every source file includes what it uses (not part of README command 2: it costs minutes).

option(LOOPDYN_PRECOMPILE_HEADERS "Precompile Eigen's, the standard library's and GoogleTest's headers" ON)

set(LOOPDYN_PCH_LIBRARY_HEADERS
  <algorithm> <array> <cmath> <functional> <limits> <memory> <numeric> <optional> <span> <sstream>
  <string> <string_view> <utility> <vector>
  <Eigen/Dense> <Eigen/SparseCore> <Eigen/SparseCholesky>)
set(LOOPDYN_PCH_TEST_HEADERS ${LOOPDYN_PCH_LIBRARY_HEADERS} <filesystem> <fstream> <random> <gtest/gtest.h>)

# loopdyn_precompile_headers(TARGET HEADERS...): TARGET's sources see HEADERS precompiled
function(loopdyn_precompile_headers target)
  if(LOOPDYN_PRECOMPILE_HEADERS)
    target_precompile_headers(${target} PRIVATE ${ARGN})
  endif()
endfunction()
