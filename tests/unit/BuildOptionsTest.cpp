// The assertions option (cmake/IsamapOptions.cmake) as code sees it: ISAMAP_ENABLE_ASSERTIONS
// is defined to 1 or 0 in every build, and `assert` is on exactly when it is 1, so the
// verifiers (gated by ISAMAP_ENABLE_ASSERTIONS) and `assert` never disagree.
#include <gtest/gtest.h>

#include <cassert>

#ifndef ISAMAP_ENABLE_ASSERTIONS
#error "ISAMAP_ENABLE_ASSERTIONS is undefined: cmake/IsamapOptions.cmake defines it everywhere"
#endif

TEST(BuildOptions, AssertAgreesWithIsamapAssertions) {
#if ISAMAP_ENABLE_ASSERTIONS
  EXPECT_DEATH(assert(1 + 1 == 3), "1 \\+ 1 == 3");
#ifdef NDEBUG
  ADD_FAILURE() << "ISAMAP_ENABLE_ASSERTIONS is 1 but NDEBUG is defined: no assert() runs";
#endif
#else
#ifndef NDEBUG
  ADD_FAILURE() << "ISAMAP_ENABLE_ASSERTIONS is 0 but NDEBUG is not defined: assert() still runs";
#endif
  assert(1 + 1 == 3); // compiled out
#endif
}
