# tracer_cut_file: a message cut at trace time is marked in the trace file
# as in the process.  tracer_dynamic traces strings longer than a record
# with BPRINT_FILE and prints, per cut record it read back in process, the
# whole length its mark gave; `bprint report` of the file must show the
# same marks (docs/trace-format.md, "Record").
# Usage: sh tracer_cut_file.sh BPRINT PROGRAM WORKDIR FILE_TESTS_DIR
. "$4/tool_lib.sh"

BPRINT_FILE=t.dat "$TRACED" > inproc.out || fail "tracer_dynamic failed"
sed -n 's/.* cut to [0-9]* of \([0-9]*\) bytes, marked$/\1/p' inproc.out > want
[ "$(wc -l < want)" -eq 3 ] || fail "3 cut records read in process ($(wc -l < want))"
"$BPRINT" report t.dat > report.out || fail "report exit $?"
sed -n 's/.*\[\.\.\.cut: \([0-9]*\) of \([0-9]*\) bytes\]$/\1 \2/p' report.out > marks
awk '{ print $2 }' marks > got
same want got "report marks each cut record with its whole length"
awk '$1 < 1000 || $1 >= $2 { bad++ } END { exit bad != 0 }' marks || fail "a mark's kept length"
finish
