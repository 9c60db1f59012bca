#!/bin/sh
# tool_trigger: bprint record --pid PID --trigger on a program started with
# no bprint variable (docs/attach.md, "Triggers").  3 threads trace 10^6
# fast records (dur_us < 100) paced over about 1.2 s, and thread 0 three
# slow ones (dur_us > 1000) 300 ms apart; the watcher must write exactly
# 3 windows of 5 ms either side, each a complete trace file (stats, report,
# export) holding its slow record, and every thread's records of that
# window: the program's own numbering (seq) and clock say which ones
# (trigger_traced.c); each must be in the window or counted lost in place.
# The program's only variable is its ring size (below).
#   sh trigger.sh BPRINT TRIGGER_TRACED WORKDIR
set -u
BPRINT=$1 TRACED=$2 WORK=$3
ATTACH_LIB=$(cd "$(dirname "$0")" && pwd)
. "$ATTACH_LIB/attach_lib.sh"

# start_watched READY PROGRAM...: PROGRAM in the background ($prog), until
# it has made READY
start_watched() {
	ready=$1
	shift
	"$@" &
	prog=$!
	pids="$pids $prog"
	wait_ready "$ready"
}

# watch OUT [OPTION...]: record --pid $prog in the background ($rec): the
# windows of the slow records, 5 ms either side, into OUT.K; its stderr in
# OUT less .dat, .err
watch() {
	out=$1
	shift
	"$BPRINT" record --pid "$prog" --trigger 'fmt:request*' --where 'dur_us>1000' \
		--before 5ms --after 5ms "$@" -o "$out" 2> "${out%.dat}.err" &
	rec=$!
	pids="$pids $rec"
}

events=$(scale 1000000)
# Rings that hold a thread's whole run (about 11 MB of its 333,333
# records): the windows are under test, not the watcher's speed.  With the
# default 1 MiB a watcher held off the CPU for 40 ms (a loaded machine)
# found records, and once a window's slow record, overwritten before it
# copied them (said, as "records overwritten before the watcher copied
# them"), and the windows then differed from the program's.
start_watched ready env BPRINT_BUFFER_SIZE="$(scale 16)M" "$TRACED" 3 "$events" ready go expect ||
	exit 1
watch w.dat --max 10
sleep 0.3	# attached (what it missed is in the rings anyway)
touch go
wait "$rec"; rc=$?
wait "$prog" || fail "the traced program failed"
cat w.err
# the program ends first: exit 10 says so, the windows were written before
[ $rc -eq 10 ] || [ $rc -eq 0 ] || fail "record --trigger: exit $rc"

n=$(ls w.dat.* 2>/dev/null | wc -l)
check "windows written" "$n" -eq 3
[ -s expect ] || fail "the program's expectations are missing"

for k in 1 2 3; do
	w=w.dat.$k
	[ -f "$w" ] || { fail "$w missing"; continue; }
	"$BPRINT" stats "$w" > $k.stats; src=$?
	[ $src -eq 0 ] || fail "$w: stats exit $src"
	grep -q 'closed cleanly' $k.stats || fail "$w: not closed cleanly"
	"$BPRINT" export -f chrome -o $k.json "$w" 2> /dev/null || fail "$w: export exit $?"
	slow=$("$BPRINT" report --raw --where 'dur_us>1000' "$w" | grep -c ' request ')
	check "$w: its slow record" "$slow" -eq 1
	"$BPRINT" report --raw "$w" > $k.raw || fail "$w: report exit $?"
	"$BPRINT" report "$w" | grep -q '\[???\]' && fail "$w: records without their CPU"
	# per thread: seqs count up by one, a gap only as large as the loss
	# line before it says; the first (less a loss right before it) at most
	# the program's first of the window, the last at least its last
	awk -v k=$k '
	FNR == NR { if ($2 == k) { from[$4] = $6; to[$4] = $8 } next }
	/records? lost/ { for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+$/) lost[$2] += substr($i, 2); next }
	/ request thread / {
		for (i = 1; i <= NF; i++) { if ($i == "thread") t = $(i + 1); if ($i == "seq") s = $(i + 1) }
		tid = $2
		if (tid in next_) {
			if (s != next_[tid] + lost[tid]) { printf "thread %s: seq %s after %s\n", t, s, next_[tid] - 1; bad = 1 }
		} else {
			first[t] = s - lost[tid]
		}
		lost[tid] = 0; next_[tid] = s + 1; last[t] = s; seen[t] = 1
	}
	END {
		for (t in from) {
			if (!(t in seen)) { printf "thread %s: no record (want %s..%s)\n", t, from[t], to[t]; bad = 1; continue }
			if (first[t] > from[t] || last[t] < to[t]) {
				printf "thread %s: %s..%s, want %s..%s\n", t, first[t], last[t], from[t], to[t]; bad = 1
			}
		}
		exit bad
	}' expect $k.raw > $k.check && ok "$w: every thread's records of the window, in order" ||
		{ fail "$w: records of the window missing"; cat $k.check; }
done

# ---- a thread whose every record of a window went before it was copied --
# The watcher is stopped while thread 1 laps its 64 KiB ring many times
# over the window of thread 0's slow record: the window must hold that
# thread's loss, not leave the thread out as if it had traced nothing.
start_watched gready env BPRINT_BUFFER_SIZE=64K "$TRACED" gap gready ggo gdone ggo2 || exit 1
watch g.dat --max 1
sleep 0.5	# attached: both rings' first pages copied
kill -STOP "$rec"
touch ggo
wait_until 20 test -e gdone || fail "the gap program never finished its burst"
kill -CONT "$rec"
sleep 0.2
touch ggo2
wait "$rec"
wait "$prog" || fail "the gap program failed"
cat g.err
if [ -f g.dat.1 ]; then
	slow=$("$BPRINT" report --raw --where 'dur_us>1000' g.dat.1 | grep -c ' request ')
	check "g.dat.1: its slow record" "$slow" -eq 1
	"$BPRINT" stats g.dat.1 > g.stats || fail "g.dat.1: stats exit $?"
	check "g.dat.1: both threads" "$(sed -n '/^# threads/,$p' g.stats | grep -c '^ *[0-9]')" -eq 2
	"$BPRINT" report --raw g.dat.1 | grep -q 'records\{0,1\} lost' ||
		fail "g.dat.1: thread 1's overwritten records not counted in place"
else
	fail "g.dat.1: no window"
fi

# ---- a quiet thread's match: in a page it never completes ---------------
# While the program runs (its window written while it waits for it), and
# when it has just ended (the window written at the watch's end).
for how in running ended; do
	want=$([ $how = running ] && echo q$how.dat.1 || echo -)
	start_watched q$how.ready "$TRACED" quiet q$how.ready q$how.go "$want" || exit 1
	watch q$how.dat
	sleep 0.3	# attached
	touch q$how.go
	wait "$prog"; qrc=$?
	wait "$rec"
	cat q$how.err
	check "a quiet thread's match, $how: the program's status" "$qrc" -eq 0
	slow=$("$BPRINT" report --raw --where 'dur_us>1000' q$how.dat.1 2> /dev/null | grep -c ' request ')
	check "a quiet thread's match, $how: its window" "$slow" -eq 1
done

# ---- windows numbered in time order -------------------------------------
# At attach the watcher reads the rings one after another: the first ring
# holds the later match (thread 0's), the second the earlier (thread 1's).
start_watched oready "$TRACED" order oready ogo || exit 1
watch o.dat --max 2
wait_until 20 test -e o.dat.2 || fail "order: no second window within 20 s"
touch ogo
wait "$rec"
wait "$prog" || fail "the order program failed"
cat o.err
for k in 1 2; do
	"$BPRINT" report --raw --where 'dur_us>1000' o.dat.$k 2> /dev/null |
		sed -n 's/.* request thread \([0-9]*\) .*/\1/p' > o$k.slow
done
check "order: o.dat.1 is the earlier match's (thread 1)" "$(cat o1.slow)" = 1
check "order: o.dat.2 is the later match's (thread 0)" "$(cat o2.slow)" = 0

# ---- the same for a program record starts: overwrite mode, --max 2 ------
touch go2
"$BPRINT" record --trigger 'fmt:request*' --where 'dur_us>1000' --before 5ms --after 5ms \
	--max 2 -q -o c.dat -- "$TRACED" 3 "$(scale 300000)" ready2 go2 expect2; rc=$?
check "record --trigger -- COMMAND: exit status" "$rc" -eq 0
check "record --trigger -- COMMAND: windows (--max 2)" "$(ls c.dat.* 2>/dev/null | wc -l)" -eq 2
for k in 1 2; do
	"$BPRINT" stats c.dat.$k > c$k.stats || fail "c.dat.$k: stats exit $?"
	grep -q 'mode: overwrite' c$k.stats || fail "c.dat.$k: the program did not run in overwrite mode"
	slow=$("$BPRINT" report --raw --where 'dur_us>1000' c.dat.$k | grep -c ' request ')
	check "c.dat.$k: its slow record" "$slow" -eq 1
done
finish
