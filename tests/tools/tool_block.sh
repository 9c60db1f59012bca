# tool_block: `bprint record` in each mode with threads tracing flat out.
#   - exact accounting per thread (read + overwritten + discarded ==
#     written) in block, discard and overwrite mode with 1, 2 and 4 threads;
#     in block mode nothing lost at all;
#   - record's defaults keep a 2,000,000-record burst from one thread whole;
#   - block mode with the copier late (stopped before it found the live
#     file): the writer waits from its first page on, nothing lost;
#   - block mode with the copier stopped (SIGSTOP) for 200 ms: the writer
#     waits, times out, and the discards are counted;
#   - block mode never hangs: with signal handlers that trace, with fork()
#     in the program, when bprint record is killed, and when it is killed
#     while writers of a program that survives it wait for it.
# BPRINT_TEST_QUICK=1 divides the record counts by 10.
. "$(dirname "$0")/tool_lib.sh"
BURST=$TRACED
scale=1
[ "${BPRINT_TEST_QUICK:-0}" = 1 ] && scale=10

# stats FILE: the thread lines, "TID COMM WRITTEN OVERWRITTEN DISCARDED READ ..."
threads() {
	awk '/^# threads/ { t = 1; getline; next } t' "$1"
}

# exact FILE THREADS RECORDS MODE: accounting per thread; block mode loses nothing
exact() {
	threads "$1" | awk -v n="$2" -v r="$3" -v mode="$4" '
		{ rows++ }
		$3 != $4 + $5 + $6 { print "does not add up:", $0; bad = 1 }
		$3 != r { print "written", $3, "want", r; bad = 1 }
		mode == "block" && ($6 != r || $4 != 0 || $5 != 0) { print "lost in block mode:", $0; bad = 1 }
		END { if (rows != n) { print rows, "thread lines, want", n; bad = 1 } exit bad }'
}

for spec in "1 1000000" "2 2000000" "4 4000000"; do
	set -- $spec
	t=$1 r=$(($2 / scale))
	for mode in block discard overwrite; do
		f=$mode-$t.dat
		# A long timeout: "nothing lost in block mode" must not hang on
		# how soon a loaded machine (or a sanitizer build) schedules the
		# copier; the timeout itself is the stalled copier's test below.
		"$BPRINT" record -q -o $f --mode $mode --block-timeout 10s -- \
			"$BURST" --threads $t --records $r; rc=$?
		[ $rc -eq 0 ] || fail "$mode, $t threads: record exit $rc"
		"$BPRINT" stats $f > $f.stats || fail "$mode, $t threads: stats"
		if exact $f.stats $t $r $mode; then
			ok "$mode, $t threads x $r"
		else
			# in every build: the waits and their time say whether a
			# timeout was reached
			fail "$mode, $t threads x $r"; cat $f.stats
		fi
		rm -f $f
	done
done
grep -q 'mode: block' block-1.dat.stats || fail "stats names block mode"
grep -q 'WAITS' block-1.dat.stats || fail "stats shows the waits in block mode"

# record's defaults, a 2M burst from one thread: all of it
r=$((2000000 / scale))
"$BPRINT" record -q -o d.dat -- "$BURST" --records $r || fail "defaults: record"
"$BPRINT" stats d.dat > d.stats || fail "defaults: stats"
if threads d.stats | awk -v r=$r '$6 != r || $3 != r { bad = 1 } END { exit bad || NR != 1 }'; then
	ok "defaults keep a burst of $r"
else
	fail "defaults lost records of a burst of $r"; cat d.stats
fi

# the copier late: the program stops bprint record before it can find the
# live file, then traces; its ring is full long before the drainer attaches.
# The ring starts with bprint record marked as its consumer, so the writer
# waits from its first page on instead of discarding (docs/ring-buffer.md,
# "Page switch, block mode").
r=$((1000000 / scale))
"$BPRINT" record -q -o late.dat --buffer-size 16K --block-timeout 10s -- \
	sh -c 'kill -STOP $PPID; exec "$0" "$@"' "$BURST" --records $r &
rpid=$!
stopped() { [ "$(awk '{ print $3 }' /proc/$1/stat 2> /dev/null)" = T ]; }
wait_until 5 stopped $rpid
sleep 0.3
kill -CONT $rpid
wait $rpid || fail "late copier: record exit $?"
"$BPRINT" stats late.dat > late.stats || fail "late copier: stats"
if exact late.stats 1 $r block && threads late.stats | awk '$9 < 1 { exit 1 }'; then
	ok "late copier: the writer waited for it, nothing lost"
else
	fail "late copier"; cat late.stats
fi
rm -f late.dat

# the copier stopped for 200 ms: waits, a timeout, discards counted (not
# scaled: the burst must outlast the stop)
"$BPRINT" record -q -o s.dat --buffer-size 64K --block-timeout 50ms -- \
	"$BURST" --records 20000000 &
rpid=$!
wait_until 5 test -f s.dat.live
sleep 0.05
kill -STOP $rpid
sleep 0.2
kill -CONT $rpid
wait $rpid || fail "stalled: record exit $?"
"$BPRINT" stats s.dat > s.stats || fail "stalled: stats"
if threads s.stats | awk '$3 != $4 + $5 + $6 || $4 != 0 || $5 == 0 || $9 < 1 { bad = 1 }
			   END { exit bad || NR != 1 }'; then
	ok "stalled copier: waits, discards counted"
else
	fail "stalled copier"; cat s.stats
fi
rm -f s.dat

# the live file full before the threads' rings: each ring falls back to
# memory, which no copier reads.  Those rings must not wait for one (the
# old code waited the whole timeout, once per thread), and the records
# they took are counted as not in the file, exactly (they are in no
# ring chunk, so nothing else can say so).  prlimit stops the file's
# growth past its header and first chunks; SIGXFSZ is ignored, so growing
# fails with EFBIG instead of killing the program.
if command -v prlimit > /dev/null; then
	f0=$fails r=$((1000000 / scale))
	t0=$(date +%s%N)
	"$BPRINT" record -o m.dat --buffer-size 64K --block-timeout 20s -- \
		sh -c 'trap "" XFSZ; exec prlimit --fsize=65536 "$0" "$@"' \
		"$BURST" --threads 2 --records $r 2> m.err; rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	[ $rc -eq 3 ] || fail "file full: record exit $rc, want 3 (the trace lacks records)"
	grep -q 'trace file is full' m.err || fail "file full: the program said nothing: $(cat m.err)"
	grep -q "2 buffers kept in memory only, $((2 * r)) records not in the file" m.err ||
		fail "file full: record's summary: $(cat m.err)"
	# no wait for a copier that cannot come: far below one 20 s timeout
	[ $ms -lt 10000 ] || fail "file full: the writers waited (${ms} ms)"
	"$BPRINT" stats m.dat > m.stats 2> m.serr; rc=$?
	[ $rc -eq 4 ] || fail "file full: stats exit $rc, want 4"
	grep -q "incomplete: the trace file was full, 2 buffers were kept in memory only; $((2 * r)) records written are not in the file" m.serr ||
		fail "file full: stats said: $(cat m.serr)"
	"$BPRINT" report m.dat > m.report 2> m.rerr; rc=$?
	[ $rc -eq 4 ] || fail "file full: report exit $rc, want 4"
	grep -q "lost: $((2 * r))" m.report || fail "file full: report's header: $(head -3 m.report)"
	[ $fails -eq $f0 ] && ok "file full: rings in memory do not wait, their $((2 * r)) records counted"
else
	echo "skipped: file full (no prlimit)"
fi

# signal handlers that trace (nested rings discard, never wait)
"$BPRINT" record -q -o g.dat --buffer-size 64K -- "$BURST" --threads 2 \
	--records $((1000000 / scale)) --timer 200 || fail "signals: record"
"$BPRINT" stats g.dat > g.stats || fail "signals: stats"
if threads g.stats | awk -v r=$((1000000 / scale)) '$3 != $4 + $5 + $6 || $4 != 0 || $3 < r { bad = 1 }
			   END { exit bad || NR != 2 }'; then
	ok "block mode with tracing signal handlers"
else
	fail "signals"; cat g.stats
fi

# fork() in the traced program: the child's rings have no consumer
"$BPRINT" record -q -o k.dat --buffer-size 64K -- "$BURST" --threads 2 \
	--records $((1000000 / scale)) --fork || fail "fork: record"
"$BPRINT" stats k.dat > k.stats || fail "fork: stats"
exact k.stats 2 $((1000000 / scale)) block && ok "block mode with fork" || fail "fork"

# bprint record killed: the program does not hang (it dies with it), and
# the file says what it holds
"$BPRINT" record -q -o x.dat --buffer-size 64K -- "$BURST" --records 2000000000 &
rpid=$!
wait_until 5 test -f x.dat.live
sleep 0.1
cpid=$(ps -o pid= --ppid $rpid | tr -d ' ')
kill -KILL $rpid
wait $rpid 2>/dev/null
ended() { ! kill -0 "$1" 2> /dev/null; }
[ -n "$cpid" ] && wait_until 10 ended "$cpid"
[ -n "$cpid" ] || fail "killed: no child found"
kill -0 "$cpid" 2>/dev/null && { fail "killed: the program still runs"; kill -KILL "$cpid"; }
"$BPRINT" stats x.dat > x.stats; rc=$?
{ [ $rc -eq 0 ] || [ $rc -eq 4 ]; } || fail "killed: stats exit $rc"
threads x.stats | grep -q file_burst || fail "killed: no thread counters"

# bprint record killed while the writers wait for it, the traced program
# surviving it (a grandchild: the death signal goes to the child only):
# each writer stops waiting within its timeout and goes on to its last
# record, which it discards at once.  Stopped first so that the rings are
# full and the writers in a wait when the kill comes.
r=$((10000000 / scale))
rm -f gc.pid
"$BPRINT" record -q -o w.dat --buffer-size 64K --block-timeout 2s -- \
	sh -c '"$0" "$@" & echo $! > gc.pid; wait' "$BURST" --threads 2 --records $r &
rpid=$!
wait_until 5 test -s gc.pid
gpid=$(cat gc.pid 2> /dev/null)
kill -STOP $rpid	# at once: the burst cannot end before (it needs the copier)
sleep 0.3
t0=$(date +%s%N)
kill -KILL $rpid
wait $rpid 2> /dev/null
# gone PID: not running (a zombie nobody reaped counts as gone)
gone() {
	[ ! -e /proc/$1/stat ] || awk '{ exit !($3 == "Z" || $3 == "X") }' /proc/$1/stat 2> /dev/null
}
[ -n "$gpid" ] && wait_until 30 gone "$gpid"
ms=$((($(date +%s%N) - t0) / 1000000))
if [ -z "$gpid" ]; then
	fail "killed while waiting: no traced program found"
elif ! gone "$gpid"; then
	fail "killed while waiting: the program still waits ${ms} ms after the kill"
	kill -KILL "$gpid"
else
	# Within the 2 s timeout, plus the rest of the burst discarded at
	# once; a writer that waited again at each page would take minutes.
	[ $ms -lt 15000 ] || fail "killed while waiting: the program took ${ms} ms to end"
	"$BPRINT" stats w.dat.live > w.stats 2> /dev/null
	if threads w.stats | awk -v r=$r '$3 != r || $5 == 0 || $3 != $4 + $5 + $6 { bad = 1 }
				   END { exit bad || NR != 2 }'; then
		ok "killed while waiting: the writers went on (${ms} ms), discards counted"
	else
		fail "killed while waiting: counts"; cat w.stats
	fi
fi
finish
