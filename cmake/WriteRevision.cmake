# Script mode: writes OUT, a header defining ISAMAP_REVISION as the source tree's revision
# (`git describe --always --dirty`, or "unknown" outside a git checkout). The file is rewritten
# only when the revision changed, so a build after a commit recompiles only what prints it.
#   cmake -DSOURCE=<repository> -DOUT=<header> -P WriteRevision.cmake
cmake_minimum_required(VERSION 3.25)
execute_process(COMMAND git -C ${SOURCE} describe --always --dirty --abbrev=12
                OUTPUT_VARIABLE rev OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR rev STREQUAL "")
  set(rev "unknown")
endif()
file(CONFIGURE OUTPUT ${OUT} CONTENT "#define ISAMAP_REVISION \"@rev@\"\n" @ONLY)
