# make install: headers, both libraries (each shared and static), their
# pkg-config files and a CMake package, so that a project finds bprint with
#   pkg-config --cflags --libs bprint          (the runtime: a traced program)
#   pkg-config --cflags --libs bprint-reader   (the reading library)
#   find_package(bprint) ... target_link_libraries(app bprint::bprint)
#                        ... target_link_libraries(tool bprint::reader)
include(CMakePackageConfigHelpers)

set_target_properties(bprint_reader PROPERTIES EXPORT_NAME reader)
set_target_properties(bprint_reader_static PROPERTIES EXPORT_NAME reader_static)
install(TARGETS bprint bprint_static bprint_reader bprint_reader_static
  EXPORT bprintTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(BPRINT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/bprint)
install(EXPORT bprintTargets NAMESPACE bprint:: DESTINATION ${BPRINT_CMAKE_DIR})
configure_package_config_file(cmake/bprintConfig.cmake.in
  ${PROJECT_BINARY_DIR}/bprintConfig.cmake INSTALL_DESTINATION ${BPRINT_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/bprintConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)	# 0.x: a minor version may break the API
install(FILES ${PROJECT_BINARY_DIR}/bprintConfig.cmake
  ${PROJECT_BINARY_DIR}/bprintConfigVersion.cmake DESTINATION ${BPRINT_CMAKE_DIR})

# The .pc file finds its prefix from its own place, so an install with
# --prefix or DESTDIR elsewhere still points at itself.
file(RELATIVE_PATH BPRINT_PC_TO_PREFIX "${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig" "${CMAKE_INSTALL_PREFIX}")
configure_file(cmake/bprint.pc.in ${PROJECT_BINARY_DIR}/bprint.pc @ONLY)
configure_file(cmake/bprint-reader.pc.in ${PROJECT_BINARY_DIR}/bprint-reader.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/bprint.pc ${PROJECT_BINARY_DIR}/bprint-reader.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
install(FILES LICENSE README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} FILES_MATCHING PATTERN "*.md")
