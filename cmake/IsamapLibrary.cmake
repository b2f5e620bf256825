# isamap_add_library(NAME SOURCES file... [LINK_LIBS [PUBLIC|PRIVATE] lib...])
#
# One layer of isamap (ARCHITECTURE.md, "Layers") as a static library, with the same warnings,
# include directories and definitions as every other. LINK_LIBS names the layers (and outside
# libraries) this one uses directly, exactly as the layer table scripts/layers.txt lists them:
# the layer_rules test fails when the two disagree, and layer_links when a library uses a symbol
# of a layer it does not reach through what it declares (a static library hides such a missing
# dependency until some executable happens to link the other layer first).
#
# Headers are included from the source root ("backends/llvm/Jit.h") or, for the core, from
# core/ ("hw/Hardware.h").
set_property(GLOBAL PROPERTY ISAMAP_LIBRARIES "")

function(isamap_add_library name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "SOURCES;LINK_LIBS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "isamap_add_library(${name}): unexpected ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/core ${PROJECT_SOURCE_DIR})
  target_compile_options(${name} PRIVATE ${ISAMAP_WARNINGS})
  if(ARG_LINK_LIBS)
    list(GET ARG_LINK_LIBS 0 first)
    if(NOT first MATCHES "^(PUBLIC|PRIVATE|INTERFACE)$")
      list(PREPEND ARG_LINK_LIBS PUBLIC)
    endif()
    target_link_libraries(${name} ${ARG_LINK_LIBS})
  endif()
  # The declared isamap layers, for scripts/check-layers.py.
  set(layers "")
  foreach(lib IN LISTS ARG_LINK_LIBS)
    if(lib MATCHES "^isamap_")
      list(APPEND layers ${lib})
    endif()
  endforeach()
  set_property(TARGET ${name} PROPERTY ISAMAP_LAYER_DEPS "${layers}")
  set_property(GLOBAL APPEND PROPERTY ISAMAP_LIBRARIES ${name})
endfunction()

# Writes build/layers.txt: one line per library, "name archive dep...", which the layer tests
# compare with scripts/layers.txt and whose archives they read. Called once, after every
# library is declared.
function(isamap_write_layer_graph)
  get_property(libs GLOBAL PROPERTY ISAMAP_LIBRARIES)
  set(content "")
  foreach(lib IN LISTS libs)
    get_property(deps TARGET ${lib} PROPERTY ISAMAP_LAYER_DEPS)
    string(REPLACE ";" " " deps "${deps}")
    string(APPEND content "${lib} $<TARGET_FILE:${lib}> ${deps}\n")
  endforeach()
  file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/layers.txt CONTENT "${content}")
endfunction()
