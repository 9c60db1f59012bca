#!/bin/sh
# A new thread's ring faulted in ahead of it (BPRINT_PREFAULT, issue 29):
#
#  - the faults a thread takes in its first 20,000 calls: a few with the
#    pool (its ring was resident before its first call), one every 4 KiB
#    without (BPRINT_PREFAULT=0, the differential), in shared memory and
#    with BPRINT_FILE; the bprint-prefault thread runs only with the pool;
#  - the faults of a thread's first call: none with the pool (its
#    descriptor made ahead too), its ring's and its descriptor's without;
#  - a ring waiting in the pool is no thread and no damage: stats and
#    report of the file of a program that ended with one, of one killed
#    with one (SIGKILL), bprint record's stream of such a program, and
#    recover of a killed recorder's stream: every record exactly, no
#    thread but the program's, nothing said damaged;
#  - a pool whose fill failed (the file could not grow) refills once a
#    thread that found it empty has rung it;
#  - a bad BPRINT_PREFAULT is said, and the default kept.
. "$(dirname "$0")/rt_lib.sh"

threads=5
calls=20000

# median_faults OUT: the median of the threads' fault counts
median_faults() {
	awk -v what="${2:-faults}" '$1 == what { print $3 }' "$1" | sort -n |
		awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] + 0 }'
}
# exact WHAT STATS N PER: N threads of PER records each, whole, no other
exact() {
	awk -v n="$3" -v per="$4" '
		/^# threads/ { t = 1; next }
		t && $1 ~ /^-?[0-9]+$/ { th++; w += $3; o += $4; d += $5; r += $6; if ($3 == per && $6 == per) whole++ }
		END { if (th != n || w != n * per || r != w || o || d || whole != n) {
			print "threads " th " written " w " overwritten " o " discarded " d " read " r " whole " whole; exit 1 } }' "$2" > "$2.why" &&
		ok "$1: $3 threads of $4 records, whole, no other thread" ||
		fail "$1: accounting: $(cat "$2.why")"
}

# waiting_rings FILE: ring chunks of state 0 in FILE (docs/file-format.md:
# a chunk header every chunk size from 4096; type 3 a ring)
waiting_rings() {
	size=$(wc -c < "$1")
	o=4096
	n=0
	while [ $o -lt "$size" ]; do
		sz=$(od -A n -t u8 -j $((o + 8)) -N 8 "$1" | tr -d ' ')
		type=$(od -A n -t u4 -j $((o + 4)) -N 4 "$1" | tr -d ' ')
		state=$(od -A n -t u4 -j $((o + 16)) -N 4 "$1" | tr -d ' ')
		[ "${sz:-0}" -gt 0 ] || { echo -1; return; }
		[ "$type" = 3 ] && [ "$state" = 0 ] && n=$((n + 1))
		o=$((o + sz))
	done
	echo $n
}

# ---- the faults, with and without the pool -----------------------------
# run WAY POOL [GAP_MS [THREADS]]: the program's output into WAY.POOL.out
run() {
	rm -f "$1.$2.dat"
	if [ "$1" = file ]; then
		BPRINT_FILE=$1.$2.dat BPRINT_PREFAULT=$2 RT_PREFAULT_GAP_MS=${3:-50} "$PROG" ${4:-$threads} $calls
	else
		BPRINT_PREFAULT=$2 RT_PREFAULT_GAP_MS=${3:-50} "$PROG" ${4:-$threads} $calls
	fi > "$1.$2.out" || fail "$1, BPRINT_PREFAULT=$2: the program failed"
}
# per_thread OUT: each thread's faults in its calls, then in its first
per_thread() {
	awk '$1 == "faults" { c = c " " $3 } $1 == "first" { f = f " " $3 } END { print c " /" f }' "$1"
}
# kept_up OUT WITHOUT: did the pool hold a ring for the median thread?
kept_up() {
	[ "$(median_faults "$1" first)" -eq 0 ] && [ $(($(median_faults "$1") * 4)) -le "$2" ]
}
# The pool's refill runs on its own thread.  Once, while two other test
# suites ran (ASan and TSan), it fell behind for over 150 ms: three
# threads in a row found no ring, and 5 runs of 25 at the same time (8
# busy loops alone never did it; the cause is not known).  A run where
# the median thread found no ring is run once more, and says so with its
# threads' faults: a pool that does not refill fails both.  Under a
# sanitizer (its shadow memory faults in both runs) "kept up" is only
# fewer faults than without: once, under TSan, the median thread had as
# many (490), with both cores busy.
fell_behind() {	# OUT WITHOUT
	if [ -n "${RT_SANITIZE:-}" ]; then
		[ "$(median_faults "$1")" -ge "$2" ]
	else
		! kept_up "$1" "$2"
	fi
}
for way in memory file; do
	run $way 0
	without=$(median_faults $way.0.out)
	run $way 1
	if fell_behind $way.1.out "$without"; then
		echo "note: $way: the median thread found the pool empty (faults: $(per_thread $way.1.out)); once more"
		run $way 1
	fi
	with=$(median_faults $way.1.out)
	check "$way: faults in a thread's first $calls calls without the pool" "$without" -ge 40
	if [ -n "${RT_SANITIZE:-}" ]; then	# its shadow memory's faults in both
		check "$way: and fewer with it ($RT_SANITIZE)" "$with" -lt "$without"
	else
		check "$way: and with it, at most a quarter" "$((with * 4))" -le "$without"
	fi
	if [ -z "${RT_SANITIZE:-}" ]; then
		check "$way: faults in a thread's first call with the pool" "$(median_faults $way.1.out first)" -eq 0
		check "$way: and without it" "$(median_faults $way.0.out first)" -ge 2
	fi
	check "$way: the prefault thread with the pool" "$(value prefault_thread $way.1.out)" -eq 1
	check "$way: none without" "$(value prefault_thread $way.0.out)" -eq 0
done

# ---- threads 0.4 s apart: the pool's thread asleep, woken by the take ----
# (it polls for 20 ms after a take and then sleeps on the doorbell: the
# third thread finds a ring only if the second one's take woke it)
# Each thread against the same thread of a run without the pool: under a
# sanitizer the first threads take its runtime's own faults too (TSan:
# 484 and 482 without the pool, 326 and 323 with it, the third 292 and
# 134), so "fewer", and elsewhere at most a quarter.
found_empty() {	# did a thread of asleep.1.out find the pool empty?
	awk -v san="${RT_SANITIZE:-}" '
		$1 == "faults" { if (FILENAME ~ /[.]0[.]out$/) w[$2] = $3; else p[$2] = $3 }
		END { for (t in p) if (san != "" ? p[t] >= w[t] : p[t] * 4 > w[t]) bad = 1; exit !bad }' \
		asleep.0.out asleep.1.out
}
run asleep 0 400 3
run asleep 1 400 3
if found_empty; then
	echo "note: asleep: a thread found the pool empty (faults: $(per_thread asleep.1.out)); once more"
	run asleep 1 400 3
fi
if found_empty; then
	fail "asleep: a thread found the pool empty: faults $(per_thread asleep.1.out), without the pool $(per_thread asleep.0.out)"
else
	ok "asleep: every thread's faults $([ -n "${RT_SANITIZE:-}" ] && echo "fewer than" ||
		echo "at most a quarter of") the same thread's without the pool ($(per_thread asleep.1.out) against $(per_thread asleep.0.out))"
fi

# ---- a fill that failed: the pool rung when found empty ----------------
# (prefault.c, RT_PREFAULT_NO_ROOM: the file may not grow while thread 0's
# take has the pool refill; thread 1 finds it empty, and its take must
# ring the pool, which sleeps with no timeout after a failed fill, so
# that thread 2 finds a ring.  A pool held off past the 100 ms the file
# is full refills in time and thread 1 finds a ring: run once more.)
no_room() {
	rm -f nr.dat
	BPRINT_FILE=nr.dat BPRINT_PREFAULT=1 RT_PREFAULT_NO_ROOM=1 RT_PREFAULT_GAP_MS=100 \
		"$PROG" 3 $calls > nr.out || fail "no room: the program failed"
}
thread_faults() {
	awk -v t="$2" '$1 == "faults" && $2 == t { print $3 }' "$1"
}
no_room
if [ "$(thread_faults nr.out 1)" -lt 40 ]; then
	echo "note: no room: thread 1 found a ring (faults: $(per_thread nr.out)); once more"
	no_room
fi
check "no room: thread 1 found the pool empty (its fill failed)" "$(thread_faults nr.out 1)" -ge 40
if [ -n "${RT_SANITIZE:-}" ]; then
	check "no room: thread 2 fewer faults than without the pool" "$(thread_faults nr.out 2)" -lt "$without"
else
	check "no room: thread 2 found a ring again" "$(($(thread_faults nr.out 2) * 4))" -le "$without"
fi
"$BPRINT" report --raw nr.dat > nr.raw 2> nr.err || fail "no room: report exit status $?"
[ -s nr.err ] && fail "no room: report said: $(cat nr.err)"
check "no room: report's records" "$(grep -c 'pf t=' nr.raw)" -eq $((3 * calls + 1))

# ---- a file with a ring in the pool at the end --------------------------
check "file: a ring waiting in the pool at the end" "$(waiting_rings file.1.dat)" -eq 1
check "file: none without the pool" "$(waiting_rings file.0.dat)" -eq 0
"$BPRINT" stats file.1.dat > f.stats 2> f.err || fail "file: stats exit status $?"
[ -s f.err ] && fail "file: stats said: $(cat f.err)"
exact "file" f.stats $threads $calls
"$BPRINT" report --raw file.1.dat > f.raw 2> f.rerr || fail "file: report exit status $?"
[ -s f.rerr ] && fail "file: report said: $(cat f.rerr)"
check "file: report's records" "$(grep -c 'pf t=' f.raw)" -eq $((threads * calls))

# ---- killed with a ring in the pool -------------------------------------
BPRINT_FILE=k.dat "$PROG" 3 1000 hold > k.out &
pid=$!
wait_until 20 grep -q '^ready' k.out || fail "killed: the program not ready within 20 s"
# the pool refilled (at once but on a machine busy with other work); the
# check after the kill says if it did not
one_waiting() { [ "$(waiting_rings "$1")" -eq 1 ]; }
wait_until 5 one_waiting k.dat
kill -KILL $pid
wait $pid 2> /dev/null
check "killed: a ring waiting in the pool" "$(waiting_rings k.dat)" -eq 1
"$BPRINT" stats k.dat > k.stats 2> k.err
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 4 ] || fail "killed: stats exit status $rc: $(cat k.err)"
grep -qi damage k.err && fail "killed: stats said: $(cat k.err)"
exact "killed" k.stats 3 1000
"$BPRINT" report --raw k.dat > k.raw 2> /dev/null
check "killed: report's records" "$(grep -c 'pf t=' k.raw)" -eq 3000

# ---- bprint record ------------------------------------------------------
"$BPRINT" record -o r.dat -- "$PROG" $threads $calls > r.out 2> r.err || fail "record: exit status $?"
grep -q "$threads rings, $((threads * calls)) records written, 0 discarded" r.err &&
	! grep -q "not copied" r.err && ok "record: summary" || fail "record: summary: $(cat r.err)"
"$BPRINT" stats r.dat > r.stats 2> r.serr || fail "record: stats exit status $?"
exact "record" r.stats $threads $calls
check "record: the prefault thread" "$(value prefault_thread r.out)" -eq 1

# ---- a recorder killed, its program too, a ring in the pool: recover ----
"$BPRINT" record -o v.dat -- "$PROG" 3 1000 hold > v.out 2> v.err &
rec=$!
wait_until 20 grep -q '^ready' v.out || fail "recover: the program not ready within 20 s"
sleep 0.3	# the pool refilled, the copier has seen its chunk
pid=$(value pid v.out)
kill -KILL $rec
wait $rec 2> /dev/null
kill -KILL "$pid" 2> /dev/null
# recover leaves alone the file of a process still running (exit 4): wait
# for it to end (gone, or a zombie), which takes a while for a large one
gone() {
	[ ! -e /proc/$1/stat ] || awk '{ exit !($3 == "Z" || $3 == "X") }' /proc/$1/stat 2> /dev/null
}
wait_until 30 gone "$pid" || fail "recover: the program $pid still runs 30 s after its kill"
"$BPRINT" recover -q v.dat > v.rout 2>&1 || fail "recover: exit status $?: $(cat v.rout)"
"$BPRINT" stats v.dat > v.stats 2> v.serr || fail "recover: stats exit status $?: $(cat v.serr)"
exact "recover" v.stats 3 1000

# ---- a bad value ---------------------------------------------------------
BPRINT_PREFAULT=lots "$PROG" 1 10 > b.out 2> b.err || fail "bad value: the program failed"
grep -q "BPRINT_PREFAULT" b.err && ok "bad value: said" || fail "bad value: not said"
check "bad value: the default kept" "$(value prefault_thread b.out)" -eq 1
finish
