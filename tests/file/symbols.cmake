# %pS and %ps (src/reader/symbols.c offline, src/trace/reader.c in process):
# symbols_traced records them for functions of its own and of a dlopen'ed
# library; symbols_check compares bprint report, the reader (both symbol
# backends) and the program's own bprint_dump() with what nm -S says, then
# rebuilds the library under the recorded path (stale build-id) and
# deletes it.  The GNU build-ids are asked for explicitly: the stale check
# depends on them.
add_library(symbols_dlmod MODULE ${CMAKE_CURRENT_LIST_DIR}/symbols_dlmod.c)
add_library(symbols_dlmod_rebuilt MODULE ${CMAKE_CURRENT_LIST_DIR}/symbols_dlmod.c)
target_compile_definitions(symbols_dlmod_rebuilt PRIVATE SYMBOLS_REBUILT)
foreach(m symbols_dlmod symbols_dlmod_rebuilt)
  target_include_directories(${m} PRIVATE ${PROJECT_SOURCE_DIR}/include)
  target_link_options(${m} PRIVATE -Wl,--build-id)
  bp_set_test_warnings(${m})
endforeach()

add_executable(symbols_traced ${CMAKE_CURRENT_LIST_DIR}/symbols_traced.c)
target_link_libraries(symbols_traced PRIVATE bprint_static ${CMAKE_DL_LIBS})
target_link_options(symbols_traced PRIVATE -Wl,--build-id)
set_target_properties(symbols_traced PROPERTIES ENABLE_EXPORTS ON)	# dladdr() sees its functions
bp_set_test_warnings(symbols_traced)

if(TARGET bprint_tool AND CMAKE_NM)
  bp_add_test(symbols_check SOURCES ${CMAKE_CURRENT_LIST_DIR}/symbols_check.c
    ARGS $<TARGET_FILE:symbols_traced> $<TARGET_FILE:symbols_dlmod>
         $<TARGET_FILE:symbols_dlmod_rebuilt> $<TARGET_FILE:bprint_tool> ${CMAKE_NM}
         ${CMAKE_CURRENT_BINARY_DIR}/symbols_check.d
    TIMEOUT 120)
  add_dependencies(symbols_check symbols_traced symbols_dlmod symbols_dlmod_rebuilt bprint_tool)
endif()
