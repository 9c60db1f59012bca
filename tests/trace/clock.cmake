# The tracer's clocks and CPU lookup.  cpu_test runs twice: as is (the rseq
# path, where glibc registers rseq) and with rseq switched off through the
# glibc tunable (the sched_getcpu() path).
bp_add_test(clock_test SOURCES clock_test.c TIMEOUT 120)
bp_add_test(cpu_test SOURCES cpu_test.c TIMEOUT 60)
add_test(NAME cpu_test_norseq COMMAND cpu_test)
set_tests_properties(cpu_test_norseq PROPERTIES
  ENVIRONMENT "GLIBC_TUNABLES=glibc.pthread.rseq=0;BP_EXPECT_NORSEQ=1"
  TIMEOUT 60)
