# The tracer core's tests (trace_printk, registry, per-thread rings,
# readers, dumps).  Configuration is by environment variable, so one
# executable is often registered several times with a different
# ENVIRONMENT.  BPRINT_TEST_QUICK=1 (sanitizer builds) cuts the counts.

function(tracer_env name)
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${ARGN}")
endfunction()

# 1. Stress: writers x 10^6 records, a concurrent consumer, exact accounting.
add_executable(tracer_stress tracer_stress.c)
if(CMAKE_CXX_COMPILER)
  target_sources(tracer_stress PRIVATE tracer_stress_cxx.cpp)
  target_compile_definitions(tracer_stress PRIVATE TRACER_STRESS_CXX=1)
endif()
target_link_libraries(tracer_stress PRIVATE bprint_internal)
target_include_directories(tracer_stress PRIVATE ${PROJECT_SOURCE_DIR}/tests)
bp_set_test_warnings(tracer_stress)
foreach(n 2 4 16)
  add_test(NAME tracer_stress_overwrite_${n} COMMAND tracer_stress overwrite ${n} live)
  tracer_env(tracer_stress_overwrite_${n} "BPRINT_MODE=overwrite;BPRINT_BUFFER_SIZE=64K")
  add_test(NAME tracer_stress_overwrite_slow_${n} COMMAND tracer_stress overwrite ${n} slow)
  tracer_env(tracer_stress_overwrite_slow_${n} "BPRINT_MODE=overwrite;BPRINT_BUFFER_SIZE=64K")
  add_test(NAME tracer_stress_discard_${n} COMMAND tracer_stress discard ${n} slow)
  tracer_env(tracer_stress_discard_${n} "BPRINT_MODE=discard;BPRINT_BUFFER_SIZE=64K")
  add_test(NAME tracer_stress_lossless_${n} COMMAND tracer_stress discard ${n} lossless)
  tracer_env(tracer_stress_lossless_${n} "BPRINT_MODE=discard;BPRINT_BUFFER_SIZE=1M")
  set_tests_properties(tracer_stress_overwrite_${n} tracer_stress_overwrite_slow_${n}
    tracer_stress_discard_${n} tracer_stress_lossless_${n} PROPERTIES TIMEOUT 300)
endforeach()

# The same with a scalar payload: every record through the inline fast path.
foreach(n 2 4)
  add_test(NAME tracer_stress_scalar_overwrite_${n} COMMAND tracer_stress overwrite ${n} live scalar)
  tracer_env(tracer_stress_scalar_overwrite_${n} "BPRINT_MODE=overwrite;BPRINT_BUFFER_SIZE=64K")
  add_test(NAME tracer_stress_scalar_discard_${n} COMMAND tracer_stress discard ${n} slow scalar)
  tracer_env(tracer_stress_scalar_discard_${n} "BPRINT_MODE=discard;BPRINT_BUFFER_SIZE=64K")
  add_test(NAME tracer_stress_scalar_lossless_${n} COMMAND tracer_stress discard ${n} lossless scalar)
  tracer_env(tracer_stress_scalar_lossless_${n} "BPRINT_MODE=discard;BPRINT_BUFFER_SIZE=1M")
  set_tests_properties(tracer_stress_scalar_overwrite_${n} tracer_stress_scalar_discard_${n}
    tracer_stress_scalar_lossless_${n} PROPERTIES TIMEOUT 300)
  # every kind of call site in one run: scalar, %s, %c and C++
  add_test(NAME tracer_stress_mixed_overwrite_${n} COMMAND tracer_stress overwrite ${n} live mixed)
  tracer_env(tracer_stress_mixed_overwrite_${n} "BPRINT_MODE=overwrite;BPRINT_BUFFER_SIZE=64K")
  add_test(NAME tracer_stress_mixed_discard_${n} COMMAND tracer_stress discard ${n} slow mixed)
  tracer_env(tracer_stress_mixed_discard_${n} "BPRINT_MODE=discard;BPRINT_BUFFER_SIZE=64K")
  set_tests_properties(tracer_stress_mixed_overwrite_${n} tracer_stress_mixed_discard_${n}
    PROPERTIES TIMEOUT 300)
endforeach()

# A test executable from one source; extra arguments are linked libraries.
function(tracer_exe name)
  add_executable(${name} ${name}.c)
  target_link_libraries(${name} PRIVATE bprint_internal ${ARGN})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  bp_set_test_warnings(${name})
endfunction()

# 2. Signal nesting: a 20 us timer signal traces while the main loop does.
tracer_exe(tracer_signal)
add_test(NAME tracer_signal COMMAND tracer_signal)
set_tests_properties(tracer_signal PROPERTIES TIMEOUT 120
  ENVIRONMENT "BPRINT_BUFFER_SIZE=64M")
add_test(NAME tracer_signal_cold COMMAND tracer_signal cold)
set_tests_properties(tracer_signal_cold PROPERTIES TIMEOUT 120
  ENVIRONMENT "BPRINT_BUFFER_SIZE=64M")
add_test(NAME tracer_signal_scalar COMMAND tracer_signal scalar)
set_tests_properties(tracer_signal_scalar PROPERTIES TIMEOUT 120
  ENVIRONMENT "BPRINT_BUFFER_SIZE=64M")
add_test(NAME tracer_signal_counter COMMAND tracer_signal)
set_tests_properties(tracer_signal_counter PROPERTIES TIMEOUT 120
  ENVIRONMENT "BPRINT_BUFFER_SIZE=64M;BPRINT_CLOCK=counter")

# A signal raised while a thread ends, after its descriptor was let go.
tracer_exe(tracer_exit_signal)
add_test(NAME tracer_exit_signal COMMAND tracer_exit_signal)
set_tests_properties(tracer_exit_signal PROPERTIES TIMEOUT 30)
add_test(NAME tracer_exit_signal_fault COMMAND tracer_exit_signal fault)
set_tests_properties(tracer_exit_signal_fault PROPERTIES TIMEOUT 30)

# 3. fork: the child has fresh buffers; the parent keeps its own.
tracer_exe(tracer_fork_start)
add_test(NAME tracer_fork_start COMMAND tracer_fork_start)
set_tests_properties(tracer_fork_start PROPERTIES TIMEOUT 120)
tracer_exe(tracer_fork)
add_test(NAME tracer_fork COMMAND tracer_fork)
set_tests_properties(tracer_fork PROPERTIES TIMEOUT 60)

# 4. Short-lived threads: names, tids, reclaim of dead threads' buffers.
tracer_exe(tracer_threads)
add_test(NAME tracer_threads COMMAND tracer_threads)
add_test(NAME tracer_threads_stats COMMAND tracer_threads stats)
set_tests_properties(tracer_threads tracer_threads_stats PROPERTIES TIMEOUT 120)

# 4b. Thread churn: exited threads keep only the pages holding records,
# within BPRINT_RETAIN; creation and exit cost O(1) in the threads seen.
tracer_exe(tracer_churn)
add_test(NAME tracer_churn_rss COMMAND tracer_churn rss)
add_test(NAME tracer_churn_budget COMMAND tracer_churn budget)
tracer_env(tracer_churn_budget "BPRINT_RETAIN=256K")
add_test(NAME tracer_churn_scale COMMAND tracer_churn scale)
add_test(NAME tracer_churn_file COMMAND tracer_churn file)
tracer_env(tracer_churn_file
  "BPRINT_FILE=${CMAKE_CURRENT_BINARY_DIR}/tracer_churn.dat;BPRINT_BUFFER_SIZE=64K;BPRINT_RETAIN=256K")
set_tests_properties(tracer_churn_rss tracer_churn_budget tracer_churn_scale tracer_churn_file
  PROPERTIES TIMEOUT 300)

# 5. dlopen/dlclose: a traced library's records decode after it is gone.
# The library links nothing of bprint's: the executable exports the API.
add_library(tracer_dso_lib SHARED tracer_dso_lib.c)
target_include_directories(tracer_dso_lib PRIVATE ${PROJECT_SOURCE_DIR}/include)
bp_set_test_warnings(tracer_dso_lib)
# A test that dlopens tracer_dso_lib (TRACER_DSO_PATH) and exports the API to it.
function(tracer_dso_exe name)
  tracer_exe(${name} ${CMAKE_DL_LIBS})
  set_target_properties(${name} PROPERTIES ENABLE_EXPORTS ON)
  target_compile_definitions(${name} PRIVATE
    TRACER_DSO_PATH="$<TARGET_FILE:tracer_dso_lib>")
  add_dependencies(${name} tracer_dso_lib)
endfunction()
tracer_dso_exe(tracer_dlopen)
add_test(NAME tracer_dlopen COMMAND tracer_dlopen)
set_tests_properties(tracer_dlopen PROPERTIES TIMEOUT 60)

# 5b. Fork storm: children forked while parent threads trace, toggle sites,
# read, dlopen and dlclose; no child may hang, each reads its own records.
tracer_dso_exe(tracer_fork_storm)
add_test(NAME tracer_fork_storm COMMAND tracer_fork_storm)
set_tests_properties(tracer_fork_storm PROPERTIES TIMEOUT 300)
if(BPRINT_SANITIZE MATCHES "thread")	# a false race on a reused address: tsan.supp
  set_tests_properties(tracer_fork_storm PROPERTIES
    ENVIRONMENT "TSAN_OPTIONS=suppressions=${CMAKE_CURRENT_LIST_DIR}/tsan.supp")
endif()

# 6. Text fallbacks: non-constant formats, trace_puts, > 32 arguments, long %s.
tracer_exe(tracer_snapshot)
add_test(NAME tracer_snapshot COMMAND tracer_snapshot)
set_tests_properties(tracer_snapshot PROPERTIES TIMEOUT 60)

# Runtime formats that ask for more arguments than the call passed: read
# only as far as it passed (run under ASan in CI).
tracer_exe(tracer_runtime_args)
add_test(NAME tracer_runtime_args COMMAND tracer_runtime_args)
set_tests_properties(tracer_runtime_args PROPERTIES TIMEOUT 60)

tracer_exe(tracer_dynamic)
add_test(NAME tracer_dynamic COMMAND tracer_dynamic)
if(TARGET bprint_tool)
  add_test(NAME tracer_cut_file
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tracer_cut_file.sh $<TARGET_FILE:bprint_tool>
            $<TARGET_FILE:tracer_dynamic> ${CMAKE_CURRENT_BINARY_DIR}/tracer_cut_file.d
            ${PROJECT_SOURCE_DIR}/tests/tools)
  set_tests_properties(tracer_cut_file PROPERTIES TIMEOUT 60)
endif()
add_test(NAME tracer_dynamic_bigpage COMMAND tracer_dynamic)
set_tests_properties(tracer_dynamic_bigpage PROPERTIES ENVIRONMENT "BPRINT_PAGE_SIZE=64K;BPRINT_BUFFER_SIZE=1M")
set_tests_properties(tracer_dynamic tracer_dynamic_bigpage PROPERTIES TIMEOUT 60)

# 6b. The inline fast path: scalar formats packed at the call site, read
# back exactly; a site not allowed inline; off, disabled; exact counters.
# With the mono clock every call goes out of line: the same results.
tracer_exe(tracer_fast)
add_test(NAME tracer_fast COMMAND tracer_fast)
add_test(NAME tracer_fast_mono COMMAND tracer_fast)
add_test(NAME tracer_fast_smallpage COMMAND tracer_fast)
tracer_env(tracer_fast "BPRINT_BUFFER_SIZE=8M")
tracer_env(tracer_fast_mono "BPRINT_BUFFER_SIZE=8M;BPRINT_CLOCK=mono")
tracer_env(tracer_fast_smallpage "BPRINT_BUFFER_SIZE=8M;BPRINT_PAGE_SIZE=1K")
set_tests_properties(tracer_fast tracer_fast_mono tracer_fast_smallpage PROPERTIES TIMEOUT 60)

# 6c. Strings and chars without a va_list: at the call site, on the
# window, through the ring; texts against the C library, payloads against
# bp_bin_printf(), a string changed under the tracer, exact counters.
tracer_exe(copy_string)
add_test(NAME copy_string COMMAND copy_string)
tracer_exe(tracer_strings)
add_test(NAME tracer_strings COMMAND tracer_strings)
add_test(NAME tracer_strings_mono COMMAND tracer_strings)
add_test(NAME tracer_strings_smallpage COMMAND tracer_strings)
tracer_env(tracer_strings "BPRINT_BUFFER_SIZE=8M")
tracer_env(tracer_strings_mono "BPRINT_BUFFER_SIZE=8M;BPRINT_CLOCK=mono")
tracer_env(tracer_strings_smallpage "BPRINT_BUFFER_SIZE=8M;BPRINT_PAGE_SIZE=1K")
set_tests_properties(tracer_strings tracer_strings_mono tracer_strings_smallpage
  PROPERTIES TIMEOUT 120)

# 7. Per-site filters: the API, BPRINT_FILTER at start-up, BPRINT_DISABLE.
add_executable(tracer_filter tracer_filter.c tracer_filter_other.c)
target_link_libraries(tracer_filter PRIVATE bprint_internal)
target_include_directories(tracer_filter PRIVATE ${PROJECT_SOURCE_DIR}/tests)
bp_set_test_warnings(tracer_filter)
add_test(NAME tracer_filter COMMAND tracer_filter api)
add_test(NAME tracer_filter_env_only COMMAND tracer_filter env-only)
tracer_env(tracer_filter_env_only "BPRINT_FILTER=+func:only_*,-fmt:*skip*")
add_test(NAME tracer_filter_env_minus COMMAND tracer_filter env-minus)
tracer_env(tracer_filter_env_minus "BPRINT_FILTER=-func:off_*,-file:tracer_filter_other.c")
add_test(NAME tracer_filter_env_off COMMAND tracer_filter env-off)
tracer_env(tracer_filter_env_off "BPRINT_DISABLE=1")
set_tests_properties(tracer_filter tracer_filter_env_only tracer_filter_env_minus
  tracer_filter_env_off PROPERTIES TIMEOUT 60)

# A site compiled against another bprint.h layout: refused once, on stderr, never misread.
tracer_exe(tracer_layout)
add_test(NAME tracer_layout COMMAND tracer_layout)
set_tests_properties(tracer_layout PROPERTIES TIMEOUT 60)

# 8. Every clock, selected by BPRINT_CLOCK.
tracer_exe(tracer_clock)
foreach(clk tsc mono mono_raw boot counter)
  add_test(NAME tracer_clock_${clk} COMMAND tracer_clock ${clk})
  set_tests_properties(tracer_clock_${clk} PROPERTIES ENVIRONMENT "BPRINT_CLOCK=${clk}"
    SKIP_RETURN_CODE 77 TIMEOUT 60)
endforeach()

# 9. The format check rejects a mismatched argument (and accepts the right
# one, so the rejection is for the right reason); bprint.h from C++.
set(tracer_cc_flags "")
if(BPRINT_SANITIZE)
  set(tracer_cc_flags "-fsanitize=${BPRINT_SANITIZE}")
endif()
add_test(NAME tracer_compile_fail COMMAND ${CMAKE_COMMAND}
  -DCC=${CMAKE_C_COMPILER} -DINC=${PROJECT_SOURCE_DIR}/include
  -DSRC=${CMAKE_CURRENT_SOURCE_DIR}/tracer_compile_fail.c -DEXPECT=fail
  -P ${CMAKE_CURRENT_SOURCE_DIR}/tracer_compile.cmake)
add_test(NAME tracer_compile_control COMMAND ${CMAKE_COMMAND}
  -DCC=${CMAKE_C_COMPILER} -DINC=${PROJECT_SOURCE_DIR}/include
  -DSRC=${CMAKE_CURRENT_SOURCE_DIR}/tracer_compile_fail.c -DEXPECT=pass
  -P ${CMAKE_CURRENT_SOURCE_DIR}/tracer_compile.cmake)
# 65 arguments: one clear error, the static assertion naming the limit
# (and 64 compile), with gcc and clang, C and C++.
foreach(cc gcc clang g++ clang++)
  string(REPLACE "+" "x" cc_id ${cc})
  find_program(TRACER_ARGS_${cc_id} NAMES ${cc})
  if(TRACER_ARGS_${cc_id})
    set(lang_flag "")
    if(cc MATCHES "\\+\\+")
      set(lang_flag "-x c++")
    endif()
    add_test(NAME tracer_compile_args_${cc_id} COMMAND ${CMAKE_COMMAND}
      -DCC=${TRACER_ARGS_${cc_id}} -DINC=${PROJECT_SOURCE_DIR}/include "-DFLAGS=${lang_flag}"
      "-DMATCH=at most 64 arguments after the format"
      -DSRC=${CMAKE_CURRENT_SOURCE_DIR}/tracer_compile_args.c -DEXPECT=fail
      -P ${CMAKE_CURRENT_SOURCE_DIR}/tracer_compile.cmake)
    add_test(NAME tracer_compile_args_control_${cc_id} COMMAND ${CMAKE_COMMAND}
      -DCC=${TRACER_ARGS_${cc_id}} -DINC=${PROJECT_SOURCE_DIR}/include
      "-DFLAGS=${lang_flag} -Wall -Wextra -Werror"
      -DSRC=${CMAKE_CURRENT_SOURCE_DIR}/tracer_compile_args.c -DEXPECT=pass
      -P ${CMAKE_CURRENT_SOURCE_DIR}/tracer_compile.cmake)
  endif()
endforeach()
# bprint.h under -Wpedantic -Werror, with gcc and clang if there (clang
# once rejected the header's ", ##__VA_ARGS__"); and arguments as
# function calls under the warnings strict projects use (a word's cast of
# a call once tripped -Wbad-function-cast).
foreach(cc gcc clang)
  find_program(TRACER_PEDANTIC_${cc} NAMES ${cc})
  if(NOT TRACER_PEDANTIC_${cc})
    continue()
  endif()
  foreach(kind pedantic strict)
    if(kind STREQUAL "pedantic")
      set(flags "-std=c11 -Wall -Wextra -Wpedantic -Werror")
      set(src tracer_compile_fail.c)
    else()
      set(flags "-std=c11 -O2 -Wall -Wextra -Wpedantic -Wconversion -Wsign-conversion -Wbad-function-cast -Werror")
      set(src tracer_compile_strict.c)
    endif()
    add_test(NAME tracer_compile_${kind}_${cc} COMMAND ${CMAKE_COMMAND}
      -DCC=${TRACER_PEDANTIC_${cc}} -DINC=${PROJECT_SOURCE_DIR}/include "-DFLAGS=${flags}"
      -DSRC=${CMAKE_CURRENT_SOURCE_DIR}/${src} -DEXPECT=pass
      -P ${CMAKE_CURRENT_SOURCE_DIR}/tracer_compile.cmake)
  endforeach()
endforeach()
# A C++ compiler of the same family as the C compiler (sanitizer runtimes must match).
if(CMAKE_C_COMPILER_ID MATCHES "Clang")
  find_program(TRACER_CXX NAMES clang++ c++ g++)
else()
  find_program(TRACER_CXX NAMES g++ c++ clang++)
endif()
if(TRACER_CXX)
  add_test(NAME tracer_cxx COMMAND ${CMAKE_COMMAND}
    -DCC=${TRACER_CXX} -DINC=${PROJECT_SOURCE_DIR}/include
    "-DFLAGS=-std=c++17 -Wall -Wextra -Werror ${tracer_cc_flags}"
    -DSRC=${CMAKE_CURRENT_SOURCE_DIR}/tracer_cxx.cpp -DEXPECT=run
    -DOUT=${CMAKE_CURRENT_BINARY_DIR}/tracer_cxx
    "-DLINK=$<TARGET_FILE:bprint_static>;-lpthread;-ldl;-lm"
    -P ${CMAKE_CURRENT_SOURCE_DIR}/tracer_compile.cmake)
  set_tests_properties(tracer_cxx PROPERTIES TIMEOUT 120)
endif()

# Call sites in every kind of C++ function (one TU), their records read
# back, and the same calls compiled as C and as C++ write the same bytes.
# Built with CMake's C++ compiler, and again with the other one of g++ and
# clang++ when there is one (not in sanitizer builds: their runtimes differ).
if(CMAKE_CXX_COMPILER)
  add_library(tracer_cxx_c OBJECT tracer_cxx_c.c)
  target_link_libraries(tracer_cxx_c PRIVATE bprint_internal)
  bp_set_test_warnings(tracer_cxx_c)
  add_executable(tracer_cxx_sites tracer_cxx_sites.cpp tracer_cxx_other.cpp
    $<TARGET_OBJECTS:tracer_cxx_c>)
  target_link_libraries(tracer_cxx_sites PRIVATE bprint_internal)
  target_compile_options(tracer_cxx_sites PRIVATE -std=c++17 -Wall -Wextra -Wpedantic
    -Wformat=2 -Wshadow -Werror)
  add_test(NAME tracer_cxx_sites COMMAND tracer_cxx_sites)
  set_tests_properties(tracer_cxx_sites PROPERTIES TIMEOUT 120)
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    find_program(TRACER_CXX_OTHER NAMES g++)
  else()
    find_program(TRACER_CXX_OTHER NAMES clang++)
  endif()
  if(TRACER_CXX_OTHER AND NOT BPRINT_SANITIZE)
    foreach(std c++11 c++20)
      add_test(NAME tracer_cxx_sites_other_${std} COMMAND ${CMAKE_COMMAND}
        -DCC=${TRACER_CXX_OTHER} -DINC=${PROJECT_SOURCE_DIR}/include
        "-DFLAGS=-std=${std} -O2 -Wall -Wextra -Wpedantic -Werror"
        "-DSRC=${CMAKE_CURRENT_SOURCE_DIR}/tracer_cxx_sites.cpp;${CMAKE_CURRENT_SOURCE_DIR}/tracer_cxx_other.cpp"
        -DEXPECT=run -DOUT=${CMAKE_CURRENT_BINARY_DIR}/tracer_cxx_sites_other_${std}
        "-DLINK=$<TARGET_OBJECTS:tracer_cxx_c>;$<TARGET_FILE:bprint_static>;-lpthread;-ldl;-lm"
        -P ${CMAKE_CURRENT_SOURCE_DIR}/tracer_compile.cmake)
      set_tests_properties(tracer_cxx_sites_other_${std} PROPERTIES TIMEOUT 120)
    endforeach()
  endif()
endif()

# C++ call sites named by their qualified function and template arguments
# (src/trace/funcname.c), built with CMake's C++ compiler and the other one
# of g++ and clang++; and the same names in the trace file, its report,
# formats and exports.
if(CMAKE_CXX_COMPILER)
  add_executable(tracer_cxx_names tracer_cxx_names.cpp)
  target_link_libraries(tracer_cxx_names PRIVATE bprint_internal)
  target_compile_options(tracer_cxx_names PRIVATE -std=c++17 -Wall -Wextra -Wpedantic -Werror)
  add_test(NAME tracer_cxx_names COMMAND tracer_cxx_names)
  set_tests_properties(tracer_cxx_names PROPERTIES TIMEOUT 60)
  if(TRACER_CXX_OTHER AND NOT BPRINT_SANITIZE)
    add_test(NAME tracer_cxx_names_other COMMAND ${CMAKE_COMMAND}
      -DCC=${TRACER_CXX_OTHER} -DINC=${PROJECT_SOURCE_DIR}/include
      "-DFLAGS=-std=c++17 -O2 -Wall -Wextra -Wpedantic -Werror"
      -DSRC=${CMAKE_CURRENT_SOURCE_DIR}/tracer_cxx_names.cpp
      -DEXPECT=run -DOUT=${CMAKE_CURRENT_BINARY_DIR}/tracer_cxx_names_other
      "-DLINK=$<TARGET_FILE:bprint_static>;-lpthread;-ldl;-lm"
      -P ${CMAKE_CURRENT_SOURCE_DIR}/tracer_compile.cmake)
    set_tests_properties(tracer_cxx_names_other PROPERTIES TIMEOUT 120)
  endif()
  if(TARGET bprint_tool)
    add_test(NAME tracer_cxx_names_file
      COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tracer_cxx_names_file.sh $<TARGET_FILE:bprint_tool>
              $<TARGET_FILE:tracer_cxx_names> ${CMAKE_CURRENT_BINARY_DIR}/tracer_cxx_names_file.d
              ${PROJECT_SOURCE_DIR}/tests/tools)
    set_tests_properties(tracer_cxx_names_file PROPERTIES TIMEOUT 120)
  endif()
endif()

# 10. Dumps at exit and on fatal signals (the test re-executes itself).
tracer_exe(tracer_dump)
add_test(NAME tracer_dump COMMAND tracer_dump)
set_tests_properties(tracer_dump PROPERTIES TIMEOUT 60)

# Caller-allocated structs begin with their size: only what fits is written.
tracer_exe(tracer_sized)
add_test(NAME tracer_sized COMMAND tracer_sized)
set_tests_properties(tracer_sized PROPERTIES TIMEOUT 60)

# Lazy registration while the registry is busy: the first call waits for
# another thread, a signal handler's own-thread case is dropped, counted.
tracer_exe(tracer_register Threads::Threads)
add_test(NAME tracer_register COMMAND tracer_register)
set_tests_properties(tracer_register PROPERTIES TIMEOUT 60)
