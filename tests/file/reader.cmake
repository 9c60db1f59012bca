# Tests of the trace-file reader (src/reader/reading.h): reader_*.
# file_traced is the traced program they read the files of (and tests/tools'
# tool_*).
add_executable(file_traced ${CMAKE_CURRENT_LIST_DIR}/traced.c)
target_link_libraries(file_traced PRIVATE bprint_static)
bp_set_test_warnings(file_traced)
# Threads that trace the seed message flat out: bprint record's modes.
add_executable(file_burst ${CMAKE_CURRENT_LIST_DIR}/burst.c)
target_link_libraries(file_burst PRIVATE bprint_static Threads::Threads)
bp_set_test_warnings(file_burst)
# Rolls a stream's accounts back to before its last pages chunk: a
# recorder killed between the two, made on purpose (tool_account).
add_executable(file_accounts_rollback ${CMAKE_CURRENT_LIST_DIR}/accounts_rollback.c)
target_link_libraries(file_accounts_rollback PRIVATE bprint_internal)
bp_set_test_warnings(file_accounts_rollback)

if(TARGET bprint_tool)
  bp_add_test(reader_corrupt SOURCES ${CMAKE_CURRENT_LIST_DIR}/reader_corrupt.c
    ARGS $<TARGET_FILE:file_traced> $<TARGET_FILE:bprint_tool>
         ${CMAKE_CURRENT_BINARY_DIR}/reader_corrupt.d
    TIMEOUT 600)
  # Stream files of every pages chunk type (4, 6, 7) read alike.
  bp_add_test(stream_types SOURCES ${CMAKE_CURRENT_LIST_DIR}/stream_types.c
    ARGS $<TARGET_FILE:bprint_tool> $<TARGET_FILE:file_traced>
         ${CMAKE_CURRENT_BINARY_DIR}/stream_types.d
    TIMEOUT 120)
endif()

# A live file's reader knows a site filed after it opened, before any refresh.
bp_add_test(reader_live_site SOURCES ${CMAKE_CURRENT_LIST_DIR}/reader_live_site.c TIMEOUT 60)
set_tests_properties(reader_live_site PROPERTIES
  ENVIRONMENT "BPRINT_FILE=${CMAKE_CURRENT_BINARY_DIR}/reader_live_site.dat")

# A live file that stops growing half-way: a thread's ring and new call
# sites it has no room for are counted, never lost silently (tool_full).
add_executable(file_full ${CMAKE_CURRENT_LIST_DIR}/file_full.c)
target_link_libraries(file_full PRIVATE bprint_internal Threads::Threads)
bp_set_test_warnings(file_full)

# The reading library's caller-allocated structs begin with their size.
bp_add_test(reader_sized SOURCES ${CMAKE_CURRENT_LIST_DIR}/reader_sized.c ARGS sized TIMEOUT 60)
bp_add_test(text_api SOURCES ${CMAKE_CURRENT_LIST_DIR}/text_api.c ARGS text TIMEOUT 60)
bp_add_test(control_api SOURCES ${CMAKE_CURRENT_LIST_DIR}/control_api.c ARGS control TIMEOUT 60)
bp_add_test(record_api SOURCES ${CMAKE_CURRENT_LIST_DIR}/record_api.c ARGS record TIMEOUT 60)
bp_add_test(reader_args_only SOURCES ${CMAKE_CURRENT_LIST_DIR}/reader_args_only.c ARGS args TIMEOUT 60)

# The stream chunks' checksum is CRC32C, whichever way it is computed.
bp_add_test(crc32c_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/crc32c_test.c TIMEOUT 60)

# Every damaged file says so: thousands of mutants of every kind of file.
if(TARGET bprint_tool)
  bp_add_test(reader_mutants SOURCES ${CMAKE_CURRENT_LIST_DIR}/reader_mutants.c
    ARGS $<TARGET_FILE:file_traced> $<TARGET_FILE:bprint_tool>
         ${CMAKE_CURRENT_BINARY_DIR}/reader_mutants.d
    TIMEOUT 900)
endif()

# Reading many threads' records is linear in records, in both readers.
bp_add_test(reader_scale SOURCES ${CMAKE_CURRENT_LIST_DIR}/reader_scale.c TIMEOUT 300)
set_tests_properties(reader_scale PROPERTIES
  ENVIRONMENT "BPRINT_PAGE_SIZE=1K;BPRINT_BUFFER_SIZE=4K;BPRINT_RETAIN=1G")

# lost_before counts every kind of loss, and lost_kind says which.
if(TARGET bprint_tool)
  bp_add_test(reader_lost SOURCES ${CMAKE_CURRENT_LIST_DIR}/reader_lost.c
    ARGS $<TARGET_FILE:file_traced> $<TARGET_FILE:file_burst> $<TARGET_FILE:bprint_tool>
         ${CMAKE_CURRENT_BINARY_DIR}/reader_lost.d
    TIMEOUT 300)
endif()

# The stream bprint record is writing: real times, every thread.
if(TARGET bprint_tool)
  bp_add_test(reader_recording SOURCES ${CMAKE_CURRENT_LIST_DIR}/reader_recording.c
    ARGS $<TARGET_FILE:file_traced> $<TARGET_FILE:bprint_tool>
         ${CMAKE_CURRENT_BINARY_DIR}/reader_recording.d
    TIMEOUT 120)
endif()

# New rings join a consuming session in time order (src/trace/reader.c).
bp_add_test(reader_join SOURCES ${CMAKE_CURRENT_LIST_DIR}/reader_join.c TIMEOUT 60)

# A live file whose ring chunks are reused (format 1.3): followed and read
# at the end, every record once and the retired threads counted; a chunk
# caught in the middle of a reuse is no damage.
bp_add_test(reader_reuse SOURCES ${CMAKE_CURRENT_LIST_DIR}/reader_reuse.c TIMEOUT 60)
set_tests_properties(reader_reuse PROPERTIES
  ENVIRONMENT "BPRINT_FILE=${CMAKE_CURRENT_BINARY_DIR}/reader_reuse.dat;BPRINT_BUFFER_SIZE=64K;BPRINT_RETAIN=100K")

# The reader's key map (sources by ring index, first ring by tid) against a
# linear search.
bp_add_test(reader_keymap SOURCES ${CMAKE_CURRENT_LIST_DIR}/keymap_test.c)

# Discard-mode losses shown in place: numbered records, every gap announced
# before the first record after it, on its ring, in live files and streams.
add_executable(file_numbered ${CMAKE_CURRENT_LIST_DIR}/numbered.c)
target_link_libraries(file_numbered PRIVATE bprint_static Threads::Threads)
bp_set_test_warnings(file_numbered)
if(TARGET bprint_tool)
  bp_add_test(discard_in_place SOURCES ${CMAKE_CURRENT_LIST_DIR}/discard_in_place.c
    ARGS $<TARGET_FILE:bprint_tool> $<TARGET_FILE:file_numbered>
         ${CMAKE_CURRENT_BINARY_DIR}/discard_in_place.d
    TIMEOUT 120)
endif()
# bprint record killed with SIGKILL at random moments: bprint recover
# finishes its streams from the live files it left, nothing lost silently.
if(TARGET bprint_tool)
  bp_add_test(record_killed SOURCES ${CMAKE_CURRENT_LIST_DIR}/record_killed.c
    ARGS $<TARGET_FILE:bprint_tool> $<TARGET_FILE:file_numbered>
         ${CMAKE_CURRENT_BINARY_DIR}/record_killed.d
    TIMEOUT 300)
  foreach(mode discard overwrite)
    add_test(NAME record_killed_${mode} COMMAND record_killed $<TARGET_FILE:bprint_tool>
             $<TARGET_FILE:file_numbered> ${CMAKE_CURRENT_BINARY_DIR}/record_killed_${mode}.d
             6 ${mode})
    set_tests_properties(record_killed_${mode} PROPERTIES TIMEOUT 300)
  endforeach()
endif()
# bp_trace_probe(): the command's look at a path before opening it.
bp_add_traced_test(reader_probe ${CMAKE_CURRENT_LIST_DIR}/reader_probe.c
  ${CMAKE_CURRENT_BINARY_DIR}/reader_probe.dat)
bp_add_test(reader_growing SOURCES ${CMAKE_CURRENT_LIST_DIR}/reader_growing.c TIMEOUT 60)
set_tests_properties(reader_growing PROPERTIES
  ENVIRONMENT "BPRINT_FILE=${CMAKE_CURRENT_BINARY_DIR}/reader_growing.dat;BPRINT_PREFAULT=0")
