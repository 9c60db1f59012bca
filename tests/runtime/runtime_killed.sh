#!/bin/sh
# bprint tail FILE when nothing will ever close FILE (issue 31): the file
# of a program killed with SIGKILL, and the stream of a bprint record
# killed with SIGKILL (its program dies with it).  tail prints what is
# there and ends (it polled forever), the records it printed those that
# report reads.  A timeout of 30 s stands for "never".
. "$(dirname "$0")/rt_lib.sh"

command -v timeout > /dev/null || { echo "timeout not found: skipped"; exit 0; }
# has_records FILE: bprint report reads a record in FILE
has_records() {
	"$BPRINT" report --raw "$1" 2> /dev/null | grep -q 'churn t='
}
# tail_ends WHAT FILE: tail FILE ends by itself, with every record report reads
tail_ends() {
	timeout 30 "$BPRINT" tail --raw "$2" > "$2.tail" 2> "$2.err"
	rc=$?
	[ $rc -ne 124 ] && ok "$1: tail ended (exit $rc)" || fail "$1: tail did not end"
	[ $rc -eq 0 ] || [ $rc -eq 4 ] || fail "$1: tail's exit status $rc: $(cat "$2.err")"
	"$BPRINT" report --raw "$2" > "$2.report" 2> /dev/null
	check "$1: records tail printed, as report reads them" \
		"$(grep -c 'churn t=' "$2.tail")" -eq "$(grep -c 'churn t=' "$2.report")"
	check "$1: records" "$(grep -c 'churn t=' "$2.tail")" -gt 0
}

# ---- a program killed: its live file is never closed --------------------
BPRINT_FILE=k.dat "$PROG" 100000 1 slow > k.out &
pid=$!
# the kill after the first record, however slow the start (60 s at most)
wait_until 60 has_records k.dat || fail "k.dat: no record after 60 s"
kill -KILL $pid
wait $pid 2> /dev/null
tail_ends "program killed" k.dat

# ---- a recorder killed: its stream is never closed ----------------------
"$BPRINT" record -o r.dat -- "$PROG" 100000 1 slow > r.out 2> r.err &
pid=$!
wait_until 60 has_records r.dat || fail "r.dat: no record after 60 s"	# copied into the stream
kill -KILL $pid
wait $pid 2> /dev/null
sleep 0.2	# its program, killed with it (PR_SET_PDEATHSIG), is gone
tail_ends "recorder killed" r.dat
finish
