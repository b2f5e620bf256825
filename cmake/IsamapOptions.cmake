# The build's options, in one place (LLVM's HandleLLVMOptions.cmake is the model): warnings,
# assertions, sanitizers and fuzzing. Included once by the top CMakeLists.txt, before any target;
# what it sets applies to isamap's own code through isamap_add_library (IsamapLibrary.cmake) and
# ISAMAP_WARNINGS, and to everything through add_compile_options where a flag must be global.

# ---- warnings -------------------------------------------------------------------------------
# Warnings apply to our own code only; the generated parser is compiled quietly.
option(ISAMAP_WERROR "Treat warnings in isamap's own code as errors" OFF)
set(ISAMAP_WARNINGS -Wall -Wextra -Wno-unused-parameter)
if(ISAMAP_WERROR)
  list(APPEND ISAMAP_WARNINGS -Werror)
endif()

# ---- assertions -----------------------------------------------------------------------------
# ISAMAP_ENABLE_ASSERTIONS: `assert` runs, and the driver runs the IR verifiers (ir/, mapping/
# and schedule/Verify.h) after sema, mapping and scheduling. ON by default except in a Release
# build (as LLVM_ENABLE_ASSERTIONS); scripts/build.sh, which the test command uses, turns it on
# in its Release build, as LLVM's "Release+Asserts" developer builds do. Every target compiles
# with the definition ISAMAP_ENABLE_ASSERTIONS=1 or =0 (code asks `#if` or `if constexpr`), and
# NDEBUG agrees with it in every build type, so `assert` and the verifiers are on or off
# together. Switching it recompiles everything (NDEBUG changes with it).
if(NOT DEFINED ISAMAP_ENABLE_ASSERTIONS)
  if(CMAKE_BUILD_TYPE STREQUAL "Release")
    set(isamap_assertions_default OFF)
  else()
    set(isamap_assertions_default ON)
  endif()
endif()
option(ISAMAP_ENABLE_ASSERTIONS "Enable assertions and the IR verifiers"
       ${isamap_assertions_default})
if(ISAMAP_ENABLE_ASSERTIONS)
  add_compile_definitions(ISAMAP_ENABLE_ASSERTIONS=1)
  # CMake puts -DNDEBUG into the flags of the optimised build types; take it out there.
  foreach(flags CMAKE_C_FLAGS CMAKE_CXX_FLAGS)
    foreach(type RELEASE RELWITHDEBINFO MINSIZEREL)
      string(REGEX REPLACE "(^| )[/-]D *NDEBUG($| )" " " ${flags}_${type} "${${flags}_${type}}")
    endforeach()
  endforeach()
else()
  # The optimised build types define NDEBUG already.
  add_compile_definitions(ISAMAP_ENABLE_ASSERTIONS=0
                          $<$<NOT:$<CONFIG:Release,RelWithDebInfo,MinSizeRel>>:NDEBUG>)
endif()

# ---- instrumented builds (each in its own build tree; see README "Testing") -----------------
# ISAMAP_SANITIZE: AddressSanitizer and UndefinedBehaviorSanitizer on all of isamap's code
# (scripts/test.sh runs the unit and CLI tests so in build-asan). Undefined behaviour stops the
# program like an ASan error does, so a test cannot pass over it. LLVM, ANTLR's runtime and the
# other libraries are not instrumented; LLVM is built without RTTI, so UBSan's vptr check,
# which reads the dynamic type's RTTI, cannot look at its objects and is left out.
option(ISAMAP_SANITIZE "Instrument with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
# ISAMAP_FUZZ (clang only): the same sanitizers, and coverage for libFuzzer on everything, so
# that the fuzz targets in tests/fuzz see the parser's and the server's branches
# (scripts/fuzz.sh builds build-fuzz so).
option(ISAMAP_FUZZ "Build the libFuzzer targets (clang only)" OFF)
set(ISAMAP_SANITIZER_FLAGS -fsanitize=address,undefined -fno-sanitize=vptr
    -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
if(ISAMAP_SANITIZE OR ISAMAP_FUZZ)
  add_compile_options(${ISAMAP_SANITIZER_FLAGS})
  add_link_options(-fsanitize=address,undefined)
endif()
if(ISAMAP_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "ISAMAP_FUZZ needs clang (libFuzzer): configure with CXX=clang++-16")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()

message(STATUS "isamap: assertions ${ISAMAP_ENABLE_ASSERTIONS}, warnings as errors "
               "${ISAMAP_WERROR}, sanitizers ${ISAMAP_SANITIZE}, fuzzing ${ISAMAP_FUZZ}")
