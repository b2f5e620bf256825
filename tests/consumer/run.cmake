# The installed package as a consumer uses it (README, "Using isamap in a CMake build"):
# installs isamap from BUILD into WORK/prefix, builds examples/consumer against it with Ninja,
# runs its test, then checks the depfiles: editing one kernel file reruns its compile only, and
# editing the description both import reruns both.
#   cmake -DBUILD=<isamap's build tree> -DSOURCE=<the repository> -DWORK=<scratch> -P run.cmake
foreach(var BUILD SOURCE WORK)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run.cmake: -D${var}=... is required")
  endif()
endforeach()

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK})
run(${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK}/prefix)
# The manual page and the completions come along, where man and the shells look.
foreach(installed share/man/man1/isamap.1 share/bash-completion/completions/isamap
                  share/zsh/vendor-completions/_isamap)
  if(NOT EXISTS ${WORK}/prefix/${installed})
    message(FATAL_ERROR "the install has no ${installed}")
  endif()
endforeach()
# The packaged editor extension, when there is one (scripts/test.sh packages it before ctest).
if(EXISTS ${SOURCE}/editor-extension/isamap.vsix AND NOT EXISTS ${WORK}/prefix/share/isamap/isamap.vsix)
  message(FATAL_ERROR "the extension was packaged but the install has no share/isamap/isamap.vsix")
endif()
file(COPY ${SOURCE}/examples/consumer/ DESTINATION ${WORK}/src)
run(${CMAKE_COMMAND} -S ${WORK}/src -B ${WORK}/build -G Ninja -DCMAKE_PREFIX_PATH=${WORK}/prefix)
run(${CMAKE_COMMAND} --build ${WORK}/build)
run(${CMAKE_CTEST_COMMAND} --test-dir ${WORK}/build --output-on-failure)

# What a rebuild would run after an edit, counted by the compile steps' comments.
function(expect_recompiles touched count)
  file(TOUCH ${WORK}/src/${touched})
  run(ninja -C ${WORK}/build -n)
  string(REGEX MATCHALL "isamap: compiling" steps "${out}")
  list(LENGTH steps n)
  if(NOT n EQUAL count)
    message(FATAL_ERROR "after editing ${touched}, ${n} kernel compiles instead of ${count}:\n${out}")
  endif()
  run(${CMAKE_COMMAND} --build ${WORK}/build)
endfunction()
expect_recompiles(gemm.isam 1)
expect_recompiles(layers.isam 2)
expect_recompiles(main.c 0)
message(STATUS "consumer project: built, tested, and rebuilt exactly what each edit touched")
