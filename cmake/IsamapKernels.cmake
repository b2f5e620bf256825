# isamap_add_kernels(<target> SOURCES <kernels.isam>... TARGET <description>
#                    [INSTANCES <instance>...] [SEARCH beam|exhaustive|random]
#                    [INCLUDE_DIRS <dir>...])
#
# Compiles kernels during the build and links them into <target>. Each source (or, with
# INSTANCES, each named instance of each source) becomes one `isamap compile` step that writes
# an object and its C header together (<stem>.h, or <stem>_<instance>.h, in a directory added to
# <target>'s include path) and a depfile naming every file it read, so Ninja reruns exactly the
# steps whose kernel or imported description changed, and runs them in parallel like any other
# compile. <description> is a shipped target (host, x86_avx512, ...) or one found through
# INCLUDE_DIRS. The generated code calls the OpenMP runtime and libm, which are linked too.
function(isamap_add_kernels target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "TARGET;SEARCH" "SOURCES;INSTANCES;INCLUDE_DIRS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "isamap_add_kernels(${target}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "isamap_add_kernels(${target}): no SOURCES")
  endif()
  if(NOT ARG_TARGET)
    message(FATAL_ERROR "isamap_add_kernels(${target}): no TARGET (a target description, "
                        "such as host)")
  endif()
  set(outdir ${CMAKE_CURRENT_BINARY_DIR}/isamap/${target})
  file(MAKE_DIRECTORY ${outdir})
  set(options --target ${ARG_TARGET})
  if(ARG_SEARCH)
    list(APPEND options --search ${ARG_SEARCH})
  endif()
  foreach(dir IN LISTS ARG_INCLUDE_DIRS)
    get_filename_component(dir ${dir} ABSOLUTE)
    list(APPEND options -I ${dir})
  endforeach()
  set(instances "${ARG_INSTANCES}")
  if(NOT instances)
    set(instances "-") # every instance of the file, in one object
  endif()
  foreach(source IN LISTS ARG_SOURCES)
    get_filename_component(path ${source} ABSOLUTE)
    get_filename_component(stem ${source} NAME_WE)
    foreach(instance IN LISTS instances)
      set(name ${stem})
      set(select)
      if(NOT instance STREQUAL "-")
        set(name ${stem}_${instance})
        set(select --instance ${instance})
      endif()
      add_custom_command(
        OUTPUT ${outdir}/${name}.o ${outdir}/${name}.h
        COMMAND isamap::isamap compile ${path} ${options} ${select} -o ${outdir}/${name}.o
                --header ${outdir}/${name}.h --depfile ${outdir}/${name}.d
        DEPENDS ${path} isamap::isamap
        DEPFILE ${outdir}/${name}.d
        COMMENT "isamap: compiling ${source} ${select} for ${ARG_TARGET}"
        VERBATIM)
      target_sources(${target} PRIVATE ${outdir}/${name}.o ${outdir}/${name}.h)
    endforeach()
  endforeach()
  target_include_directories(${target} PRIVATE ${outdir})
  target_link_libraries(${target} PRIVATE gomp m)
endfunction()
