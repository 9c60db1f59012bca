# The live trace file writer (BPRINT_FILE) and the drainer of bprint record.
# The tests run a small tracing child (writer_child) with BPRINT_FILE set,
# then decode what it left with file_check.h, an independent minimal
# decoder.  BPRINT_TEST_QUICK=1 (sanitizer builds) cuts the counts.

# The tracing child: writer_child THREADS COUNT [PACE [spawn]] (COUNT 0: forever).
add_executable(writer_child writer_child.c)
target_link_libraries(writer_child PRIVATE bprint_internal)
bp_set_test_warnings(writer_child)

# bp_ring_copy_page against a live writer, both modes.
bp_add_test(drain_copy_page SOURCES drain_copy_page.c TIMEOUT 120)

# Compact (type 6) and dense (type 7) page entries: round trips,
# truncations, bit flips, encoder speed.
bp_add_test(compact_page SOURCES page_entry.c ARGS compact TIMEOUT 300)
add_test(NAME dense_page COMMAND compact_page dense)
set_tests_properties(dense_page PROPERTIES TIMEOUT 300)

# The dense decoder's fast paths against the plain reading of the rules
# (dense_reference.h): the same verdict and page on encoded, truncated,
# overwritten and random entries.
bp_add_test(dense_differential SOURCES dense_differential.c TIMEOUT 120)

# kill -9 at random moments; every file must decode, exactly.
foreach(mode overwrite discard)
  bp_add_test(postmortem_kill9_${mode} SOURCES postmortem_kill9.c
    ARGS $<TARGET_FILE:writer_child> ${mode} TIMEOUT 600)
  add_dependencies(postmortem_kill9_${mode} writer_child)
endforeach()

# bp_drain_run on a child in discard mode: decoded = written - exact loss.
bp_add_test(drain_discard SOURCES drain_discard.c
  ${PROJECT_SOURCE_DIR}/tools/bprint/supervise.c
  ARGS $<TARGET_FILE:writer_child> 64K 0 TIMEOUT 600)
target_include_directories(drain_discard PRIVATE ${PROJECT_SOURCE_DIR}/tools/bprint)
add_dependencies(drain_discard writer_child)
add_test(NAME drain_discard_paced COMMAND drain_discard $<TARGET_FILE:writer_child> 1M 200)
add_test(NAME drain_follow COMMAND drain_discard $<TARGET_FILE:writer_child> 256K 0 spawn)
set_tests_properties(drain_discard_paced drain_follow PROPERTIES TIMEOUT 600)

# A dlopen'ed-then-dlclosed library's records decode from the file.
add_library(writer_dlmod MODULE writer_dlmod.c)
target_include_directories(writer_dlmod PRIVATE ${PROJECT_SOURCE_DIR}/include)
bp_set_test_warnings(writer_dlmod)
bp_add_test(writer_sites_dlopen SOURCES writer_sites_dlopen.c
  ARGS $<TARGET_FILE:writer_dlmod> TIMEOUT 60 LIBS ${CMAKE_DL_LIBS})
set_target_properties(writer_sites_dlopen PROPERTIES ENABLE_EXPORTS ON)
add_dependencies(writer_sites_dlopen writer_dlmod)

# The header's end never past the file's size while threads take rings
# side by side (a copy or a killed program's file must not read as cut).
bp_add_test(writer_end_in_file SOURCES ${CMAKE_CURRENT_LIST_DIR}/writer_end_in_file.c TIMEOUT 60)
set_tests_properties(writer_end_in_file PROPERTIES
  ENVIRONMENT "BPRINT_FILE=${CMAKE_CURRENT_BINARY_DIR}/writer_end_in_file.dat;BPRINT_BUFFER_SIZE=64K")
