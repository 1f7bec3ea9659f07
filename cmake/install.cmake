# `cmake --install`: the public headers, the library as a shared (variate::variate) and a static
# (variate::variate_static) library, the `variate` tool, a CMake package for
# find_package(variate CONFIG [COMPONENTS MPI]) and a pkg-config file (variate.pc; static linking
# with `pkg-config --static`).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set_target_properties(variate PROPERTIES EXPORT_NAME variate_static)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/variate TYPE INCLUDE)
install(TARGETS variate variate_shared EXPORT variate_targets)
install(TARGETS variate_cli)
set(VARIATE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/variate)
install(EXPORT variate_targets NAMESPACE variate:: FILE variate-targets.cmake DESTINATION ${VARIATE_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/variate-config.cmake.in
                              ${PROJECT_BINARY_DIR}/variate-config.cmake INSTALL_DESTINATION ${VARIATE_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/variate-config-version.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/variate-config.cmake ${PROJECT_BINARY_DIR}/variate-config-version.cmake
        DESTINATION ${VARIATE_CMAKE_DIR})

# pkg-config: a static link (`pkg-config --static`) also needs the libraries variate links privately.
set(VARIATE_PC_REQUIRES_PRIVATE "libpng zlib")
if(VARIATE_HAVE_MPI)
  string(APPEND VARIATE_PC_REQUIRES_PRIVATE " ompi")
endif()
if(VARIATE_HAVE_NETCDF)
  string(APPEND VARIATE_PC_REQUIRES_PRIVATE " netcdf")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/variate.pc.in ${PROJECT_BINARY_DIR}/variate.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/variate.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# `variate build` compiles plugins against this build tree's headers and shared library or, for an
# installed tool, those beside its bin/ directory; the plugin links the shared library (the tool's
# own, once loaded into it) and finds it by its run path.
target_compile_definitions(variate_cli PRIVATE VARIATE_COMPILER="${CMAKE_CXX_COMPILER}"
  VARIATE_INSTALL_INCLUDEDIR="${CMAKE_INSTALL_INCLUDEDIR}" VARIATE_INSTALL_LIBDIR="${CMAKE_INSTALL_LIBDIR}"
  VARIATE_BUILD_TOOL_DIR="$<TARGET_FILE_DIR:variate_cli>" VARIATE_BUILD_INCLUDE_DIR="${PROJECT_SOURCE_DIR}/include"
  VARIATE_BUILD_LIBRARY_DIR="$<TARGET_FILE_DIR:variate_shared>"
  VARIATE_LIBRARY_FILE="$<TARGET_LINKER_FILE_NAME:variate_shared>")
set_target_properties(variate_cli PROPERTIES INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
