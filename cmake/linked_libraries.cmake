# How SuiteSparse and SUNDIALS are linked.
#
# With LOOPDYN_STATIC_ARCHIVES (the default) an executable takes them from Debian's static archives
# and maps 8 shared libraries at its start instead of 22: `loopdyn --version` 4.4 -> 2.8 ms on the
# 2-core VM (the minimum of 60 runs in turn, docs/performance.md), a millisecond and more of every
# run's process. A shared object (the Python module) takes the shared libraries: Debian's archives
# are compiled for executables (position-independent executables, not shared code).
option(LOOPDYN_STATIC_ARCHIVES "Link SuiteSparse, LAPACK, BLAS and SUNDIALS into executables from their static archives" ON)
# true where the target being linked is an executable (in a link interface, TARGET_PROPERTY names
# the consumer)
set(LOOPDYN_LINKS_EXECUTABLE "$<AND:$<BOOL:${LOOPDYN_STATIC_ARCHIVES}>,$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>>")

# a static archive of the compiler's own runtime (libgfortran.a, libquadmath.a), or the shared one
function(loopdyn_compiler_archive variable name)
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=lib${name}.a
                  OUTPUT_VARIABLE path OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(IS_ABSOLUTE "${path}" AND EXISTS "${path}")
    set(${variable} "${path}" PARENT_SCOPE)
  else()
    set(${variable} ${name} PARENT_SCOPE)
  endif()
endfunction()

# LOOPDYN_SPARSE_LIBRARIES (loopdyn_core, by path: the installed package exports the paths): the
# large models' sparse routes (linalg/sparse_null_space.cpp), SPQR's rank-revealing sparse QR and
# the CHOLMOD it stands on (SuiteSparse 5.12, libsuitesparse-dev; Debian ships no CMake package for
# it), through Eigen's SPQRSupport. Their archives need the orderings (AMD, CAMD, COLAMD, CCOLAMD),
# LAPACK, BLAS and the Fortran runtime; METIS has no archive and stays shared.
find_path(SUITESPARSE_INCLUDE_DIR SuiteSparseQR.hpp PATH_SUFFIXES suitesparse REQUIRED)
find_library(SPQR_LIBRARY spqr REQUIRED)
find_library(CHOLMOD_LIBRARY cholmod REQUIRED)
find_library(SUITESPARSE_CONFIG_LIBRARY suitesparseconfig REQUIRED)
set(shared_sparse ${SPQR_LIBRARY} ${CHOLMOD_LIBRARY} ${SUITESPARSE_CONFIG_LIBRARY})
set(LOOPDYN_SPARSE_LIBRARIES)
foreach(library ${shared_sparse})
  list(APPEND LOOPDYN_SPARSE_LIBRARIES "$<$<NOT:${LOOPDYN_LINKS_EXECUTABLE}>:${library}>")
endforeach()
if(LOOPDYN_STATIC_ARCHIVES)
  set(saved_suffixes ${CMAKE_FIND_LIBRARY_SUFFIXES})
  set(CMAKE_FIND_LIBRARY_SUFFIXES .a)
  set(archives)
  foreach(name spqr cholmod ccolamd camd colamd amd suitesparseconfig lapack blas)
    find_library(LOOPDYN_${name}_ARCHIVE ${name} REQUIRED)
    list(APPEND archives ${LOOPDYN_${name}_ARCHIVE})
  endforeach()
  set(CMAKE_FIND_LIBRARY_SUFFIXES ${saved_suffixes})
  find_library(LOOPDYN_METIS_LIBRARY NAMES metis libmetis.so.5 REQUIRED)  # (the runtime package alone)
  loopdyn_compiler_archive(gfortran gfortran)
  loopdyn_compiler_archive(quadmath quadmath)
  foreach(library ${archives} ${LOOPDYN_METIS_LIBRARY} ${gfortran} ${quadmath} m)
    list(APPEND LOOPDYN_SPARSE_LIBRARIES "$<${LOOPDYN_LINKS_EXECUTABLE}:${library}>")
  endforeach()
endif()

# LOOPDYN_SUNDIALS_LIBRARIES (loopdyn_sim): the integrators' SUNDIALS parts, its CMake package's
# static or shared targets
set(LOOPDYN_SUNDIALS_LIBRARIES)
foreach(part arkode cvode nvecserial sunnonlinsolfixedpoint)
  list(APPEND LOOPDYN_SUNDIALS_LIBRARIES
       "$<IF:${LOOPDYN_LINKS_EXECUTABLE},SUNDIALS::${part}_static,SUNDIALS::${part}_shared>")
endforeach()
