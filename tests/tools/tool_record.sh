# tool_record: `bprint record` runs a traced program and leaves a complete
# stream file: in discard mode with room enough every record arrives; the
# counters add up per thread; each thread's sequence numbers increase; Ctrl-C
# (SIGINT to bprint record) ends it with the file finished; the live file is
# removed; a command that cannot run gives exit status 3.
. "$(dirname "$0")/tool_lib.sh"

seq_increasing() {	# raw report: "... seq N of thread W"
	awk '/ seq [0-9]+ of thread [0-9]+$/ {
		n = $(NF - 3); w = $NF
		if ((w in last) && n <= last[w]) { bad = 1; print "not increasing:", $0 }
		last[w] = n; seen++
	} END { if (!seen) { print "no seq records"; bad = 1 } exit bad }' "$1"
}

counters_add_up() {	# stats output: written = overwritten + discarded + read
	awk '/^# threads/ { t = 1; getline; next }
	     t && $3 != $4 + $5 + $6 { print "does not add up:", $0; bad = 1 }
	     END { exit bad }' "$1"
}

"$BPRINT" record -q -o r.dat --mode discard --clock counter -- \
	"$TRACED" --threads 2 --records 3000 --sleep-us 20; rc=$?
[ $rc -eq 0 ] || fail "record exit $rc"
[ -e r.dat.live ] && fail "the live file was left behind"
"$BPRINT" report --raw r.dat > r.raw || fail "report of the stream"
[ "$(wc -l < r.raw)" -eq 9000 ] || fail "stream holds $(wc -l < r.raw) records, want 9000"
seq_increasing r.raw || fail "sequence numbers"
"$BPRINT" stats r.dat > r.stats || fail "stats of the stream"
counters_add_up r.stats || fail "counters"
grep -q '^# file: r.dat (stream, closed cleanly)' r.stats || fail "stream flags"
"$BPRINT" report r.dat | sed 3d > r.report
[ "$(grep -vc '^#' r.report)" -eq 9000 ] || fail "ftrace form"

# interrupted: the child is stopped, the file finished
"$BPRINT" record -q -o i.dat --mode overwrite --buffer-size 64K -- "$TRACED" --threads 2 --spin &
rpid=$!
wait_until 20 test -f i.dat.live || fail "interrupted: no i.dat.live within 20 s"
sleep 0.3
kill -INT $rpid
wait $rpid; rc=$?
[ $rc -eq 0 ] || fail "interrupted record exit $rc"
"$BPRINT" report --raw i.dat > i.raw; rc=$?
[ $rc -eq 0 ] || fail "report of the interrupted stream: exit $rc"
[ -s i.raw ] || fail "interrupted stream is empty"
seq_increasing i.raw || fail "interrupted: sequence numbers"
"$BPRINT" stats i.dat > i.stats || fail "stats of the interrupted stream"
counters_add_up i.stats || fail "interrupted: counters"

# a command that cannot be run
"$BPRINT" record -q -o n.dat -- ./no-such-program 2> n.err; rc=$?
[ $rc -eq 3 ] || fail "record of a missing program: exit $rc"
grep -q 'no-such-program: No such file or directory' n.err || fail "message for a missing program"
finish
