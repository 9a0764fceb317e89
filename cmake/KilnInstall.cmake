# `cmake --install BUILD --prefix PREFIX` installs kiln for C++ users:
#
#   PREFIX/bin/kiln, kilnd
#   PREFIX/include/kiln/<module>/*.h          headers, included as "core/expr.h"
#   PREFIX/lib/libkiln_<module>.a
#   PREFIX/lib/cmake/kiln/kilnConfig.cmake    find_package(kiln) -> kiln::kiln
#
# kiln::kiln links every library (kiln::core, kiln::tir, ... kiln::driver
# one by one); the static libraries bring their dependencies, found again by
# kilnConfig.cmake from the same Debian packages (scripts/packages.txt).
# examples/cpp is a project built against it, by the test suite (docs/build.md).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(KILN_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/kiln)
set(kiln_installed_modules core tir ops targets rpc tuning_logs costmodel search graph farm driver)
set(kiln_installed_libs kiln_rpc_proto)
foreach(m ${kiln_installed_modules})
  list(APPEND kiln_installed_libs kiln_${m})
  set_target_properties(kiln_${m} PROPERTIES EXPORT_NAME ${m})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${m}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kiln/${m}
          COMPONENT devel FILES_MATCHING PATTERN "*.h")
endforeach()
set_target_properties(kiln_rpc_proto PROPERTIES EXPORT_NAME rpc_proto)
# The protocol's generated headers (rpc/proto/*.pb.h), which rpc/'s include.
install(DIRECTORY ${CMAKE_BINARY_DIR}/gen/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kiln COMPONENT devel
        FILES_MATCHING PATTERN "*.h")

add_library(kiln_all INTERFACE)
target_link_libraries(kiln_all INTERFACE ${kiln_installed_libs})
set_target_properties(kiln_all PROPERTIES EXPORT_NAME kiln)

install(TARGETS ${kiln_installed_libs} kiln_all EXPORT kilnTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT devel
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kiln)
install(TARGETS kiln kilnd RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT devel)
if(KILN_CROSS_WORKERS)
  install(PROGRAMS ${CMAKE_BINARY_DIR}/bin/kiln-worker-aarch64-linux-gnu DESTINATION ${CMAKE_INSTALL_BINDIR}
          COMPONENT devel)
endif()
install(EXPORT kilnTargets NAMESPACE kiln:: DESTINATION ${KILN_INSTALL_CMAKEDIR} COMPONENT devel)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/kilnConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/kilnConfig.cmake INSTALL_DESTINATION ${KILN_INSTALL_CMAKEDIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/kilnConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/kilnConfig.cmake ${CMAKE_BINARY_DIR}/kilnConfigVersion.cmake
        DESTINATION ${KILN_INSTALL_CMAKEDIR} COMPONENT devel)
