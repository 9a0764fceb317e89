# kiln_module(NAME DEPS ...): one static library per top-level folder, built from
# every .cpp under it (so adding a file needs no CMake edit). Headers are included
# as "module/file.h" relative to the repository root, and, installed
# (cmake/KilnInstall.cmake), relative to include/kiln.
function(kiln_module name)
  cmake_parse_arguments(ARG "" "" "DEPS;EXCLUDE" ${ARGN})
  file(GLOB_RECURSE srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  foreach(ex ${ARG_EXCLUDE})
    list(FILTER srcs EXCLUDE REGEX "${ex}")
  endforeach()
  if(srcs)
    add_library(kiln_${name} STATIC ${srcs})
    target_include_directories(kiln_${name} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}> $<INSTALL_INTERFACE:include/kiln>)
    target_link_libraries(kiln_${name} PUBLIC ${ARG_DEPS})
  else()
    # A module whose sources have not been written yet: headers only.
    add_library(kiln_${name} INTERFACE)
    target_include_directories(kiln_${name} INTERFACE $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}> $<INSTALL_INTERFACE:include/kiln>)
    target_link_libraries(kiln_${name} INTERFACE ${ARG_DEPS})
  endif()
endfunction()
