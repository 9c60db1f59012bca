# tool_tail: `bprint tail` follows a file while the traced program writes
# it: after SIGINT (FILE) or the program's end (PID), every record has been
# printed exactly once, each thread's in order: per thread, the tail's lines
# equal those of `bprint report` on the finished file.
. "$(dirname "$0")/tool_lib.sh"

has_chunk() {	# a header and at least one chunk
	[ -f "$1" ] && [ "$(wc -c < "$1")" -ge 8192 ]
}
wait_for_file() {
	wait_until 20 has_chunk "$1" || { fail "$1 never appeared"; return 1; }
}

per_thread_same() {	# tail output, report output, what
	for tid in $(awk '{ print $2 }' "$2" | sort -u); do
		awk -v t="$tid" '$2 == t' "$1" > "$1.$tid"
		awk -v t="$tid" '$2 == t' "$2" > "$2.$tid"
		same "$2.$tid" "$1.$tid" "$3: thread $tid"
	done
	[ "$(wc -l < "$1")" -eq "$(wc -l < "$2")" ] ||
		fail "$3: $(wc -l < "$1") lines, want $(wc -l < "$2")"
}

# FILE, interrupted
BPRINT_FILE=live.dat BPRINT_CLOCK=mono "$TRACED" --threads 2 --records 300 --sleep-us 1000 &
tpid=$!
wait_for_file live.dat
"$BPRINT" tail --raw --interval 10 live.dat > tail.out 2> tail.err &
bpid=$!
wait $tpid || fail "traced failed"
sleep 0.3
kill -INT $bpid
wait $bpid; rc=$?
[ $rc -eq 0 ] || { fail "tail exit $rc"; cat tail.err; }
"$BPRINT" report --raw live.dat > report.out || fail "report"
[ "$(wc -l < report.out)" -eq 900 ] || fail "report: $(wc -l < report.out) records, want 900"
per_thread_same tail.out report.out "tail FILE"

# PID: ends with the process; a relative BPRINT_FILE is found through its cwd
mkdir sub
(cd sub && BPRINT_FILE=pid.dat BPRINT_CLOCK=mono exec "$TRACED" --threads 1 --records 200 --sleep-us 1500) &
tpid=$!
wait_for_file sub/pid.dat
"$BPRINT" tail --raw --interval 10 $tpid > tailpid.out 2> tailpid.err; rc=$?
[ $rc -eq 0 ] || { fail "tail PID exit $rc"; cat tailpid.err; }
wait $tpid || fail "traced (pid) failed"
"$BPRINT" report --raw sub/pid.dat > reportpid.out || fail "report (pid)"
[ "$(wc -l < reportpid.out)" -eq 400 ] || fail "report (pid): $(wc -l < reportpid.out) records"
per_thread_same tailpid.out reportpid.out "tail PID"

# --site that matches no site (yet): not an error, but said
"$BPRINT" tail --raw --site nosuch_func live.dat > nosite.out 2> nosite.err &
bpid=$!
sleep 0.3
kill -INT $bpid
wait $bpid || fail "tail --site nosuch_func exit"
[ -s nosite.out ] && fail "tail --site nosuch_func printed records"
grep -q 'live.dat: --site nosuch_func matches no call site yet: waiting for one' nosite.err ||
	fail "tail --site nosuch_func said: $(cat nosite.err)"

# --new skips what is there already
"$BPRINT" tail --new --raw live.dat > new.out &
bpid=$!
sleep 0.3
kill -INT $bpid
wait $bpid || fail "tail --new exit"
[ -s new.out ] && fail "tail --new printed old records"
finish
