# tool_bigring: a live file whose rings are as large as BPRINT_RETAIN (64M,
# the budget for exited threads' rings) keeps the records of the threads
# that exited.  An exited thread's ring in the file used to be retired at
# its exit as soon as it alone exceeded the budget: a small program whose
# workers did the tracing left a file with none of their records ("0
# records", counted only as retired).  A ring in the file is retired when
# a new thread needs its chunk, never just because its thread ended.
. "$(dirname "$0")/tool_lib.sh"

# the rings are reserved whole: 3 x 64M, and the writer keeps 64M free
avail=$(df -Pk . | awk 'NR == 2 { print $4 }')
[ "${avail:-0}" -gt $((400 * 1024)) ] || { echo "SKIP: less than 400 MiB free here"; exit 77; }

BPRINT_FILE=x.dat BPRINT_BUFFER_SIZE=64M "$TRACED" --threads 2 --records 100 ||
	fail "traced failed"
"$BPRINT" stats x.dat > x.stats || fail "stats exit status $?"
awk '/^# threads/ { t = 1; next }
	t && $1 == "-1" { bad++ }
	t && $1 ~ /^[0-9]+$/ { n++; if ($3 != 100 || $6 != 100) bad++ }
	END { exit !(n == 3 && !bad) }' x.stats &&
	ok "64M rings: every thread's 100 records read, none retired" ||
	{ cat x.stats; fail "64M rings: accounting"; }
"$BPRINT" report x.dat | grep -q "entries-written: 300   lost: 0 " &&
	ok "report: 300 written, 0 lost" || fail "report's header: $("$BPRINT" report x.dat | sed -n 3p)"
rm -f x.dat
finish
