# Run by CTest in script mode:
#   cmake -DCC=... -DINC=... -DSRC=... -DEXPECT=fail|pass [-DFLAGS=...] -P tracer_compile.cmake
# EXPECT=fail: compiling SRC with -DTRACER_BAD must fail with a format diagnostic
#              (or, with -DMATCH=REGEX, a diagnostic that matches REGEX, and
#              no other error).
# EXPECT=pass: compiling SRC as is must succeed (the control).
# EXPECT=run:  compile and link SRC with LINK (a ;-list) into OUT, then run it.
separate_arguments(flag_list UNIX_COMMAND "${FLAGS}")
if(EXPECT STREQUAL "fail")
  execute_process(COMMAND ${CC} ${flag_list} -Werror=format -I${INC} -DTRACER_BAD -fsyntax-only ${SRC}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0)
    message(FATAL_ERROR "a mismatched trace_printk() argument compiled")
  endif()
  if(NOT MATCH)
    set(MATCH "format")
  endif()
  if(NOT err MATCHES "${MATCH}")
    message(FATAL_ERROR "compilation failed, but not on ${MATCH}:\n${err}")
  endif()
  string(REGEX MATCHALL "error:" errors "${err}")
  list(LENGTH errors nerrors)
  if(NOT MATCH STREQUAL "format" AND nerrors GREATER 1)
    message(FATAL_ERROR "${nerrors} errors where one was expected:\n${err}")
  endif()
  message(STATUS "rejected as expected:\n${err}")
elseif(EXPECT STREQUAL "pass")
  execute_process(COMMAND ${CC} ${flag_list} -Werror=format -I${INC} -fsyntax-only ${SRC}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the correct version does not compile:\n${err}")
  endif()
elseif(EXPECT STREQUAL "run")
  execute_process(COMMAND ${CC} ${flag_list} -I${INC} -o ${OUT} ${SRC} ${LINK}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "compiling ${SRC} failed:\n${err}")
  endif()
  execute_process(COMMAND ${OUT} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${OUT} failed (${rc}):\n${out}${err}")
  endif()
  message(STATUS "${out}")
else()
  message(FATAL_ERROR "EXPECT must be fail, pass or run")
endif()
