# One function sets the project's warnings on a target.  -Wconversion is on:
# the printf engine and the ring buffer move integers between widths all the
# time, and every narrowing there should be visible and deliberate.
function(bp_set_warnings target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wformat=2 -Wshadow -Wconversion -Wsign-conversion
    -Wstrict-prototypes -Wmissing-prototypes -Wpointer-arith -Wundef
    -Wcast-align -Wwrite-strings -Wvla)
  if(BPRINT_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# Tests, benchmarks and examples: the same minus the prototype rules that
# make small single-file programs noisy.
function(bp_set_test_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wformat=2 -Wshadow -Wvla)
  if(BPRINT_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
