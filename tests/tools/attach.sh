# tool_attach: programs started with no bprint variable at all, read from
# outside while they run (docs/attach.md): bprint snapshot and bprint
# record --pid, checked record by record (every thread's seq numbers in
# order, a gap only where a loss line says so), and their refusals, each
# one line and its own exit status.
#
#   sh attach.sh BPRINT ATTACH_TRACED ATTACH_FAKE WORKDIR
set -u
BPRINT=$1
TRACED=$2
FAKE=$3
WORK=$4
ATTACH_LIB=$(cd "$(dirname "$0")" && pwd)
. "$ATTACH_LIB/attach_lib.sh"

# check_seqs RAW WHAT [FROM0]: per thread, "tick thread T seq S" lines count
# up by one, a gap exactly as large as the loss line before it says;
# FROM0: every thread's first record is seq 0 (nothing before it lost).
# Prints "T first last" per thread to WHAT.seqs.
check_seqs() {
	awk -v from0="${3:-0}" '
	/records? lost/ { for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+$/) lost[$2] += substr($i, 2); next }
	/tick thread/ {
		for (i = 1; i <= NF; i++) { if ($i == "thread") t = $(i + 1); if ($i == "seq") s = $(i + 1) }
		if (t in next_) { want = next_[t] + lost[t] } else { want = (from0 ? lost[t] : s); first[t] = s }
		if (s != want) { printf "thread %s: seq %s, want %s\n", t, s, want; bad = 1 }
		lost[t] = 0; next_[t] = s + 1; n[t]++
	}
	END {
		for (t in n) printf "%s %s %s\n", t, first[t], next_[t] - 1 > "/dev/stderr"
		exit bad
	}' "$1" 2> "$2.seqs" || return 1
	[ -s "$2.seqs" ]
}

start_traced() {	# THREADS PAUSE_US NAME: pid in $tpid
	"$TRACED" run "$1" "$2" "$3.ready" > "$3.out" &
	tpid=$!
	pids="$pids $tpid"
	wait_ready "$3.ready"
}

# ---- snapshot, twice, while 2 threads trace --------------------------------
start_traced 2 200 a
for n in 1 2; do
	"$BPRINT" snapshot -o snap$n.dat $tpid 2> snap$n.err; rc=$?
	[ $rc -eq 0 ] || { fail "snapshot $n: exit $rc"; cat snap$n.err; }
	"$BPRINT" stats snap$n.dat > snap$n.stats || fail "snapshot $n: stats exit $?"
	grep -q 'closed cleanly' snap$n.stats || fail "snapshot $n: not closed cleanly"
	"$BPRINT" report --raw snap$n.dat > snap$n.raw || fail "snapshot $n: report exit $?"
	"$BPRINT" export -f chrome -o snap$n.json snap$n.dat || fail "snapshot $n: export exit $?"
	check_seqs snap$n.raw snap$n 1 && ok "snapshot $n: both threads from seq 0, in order" ||
		fail "snapshot $n: records out of order or lost"
	[ "$(wc -l < snap$n.seqs)" -eq 2 ] || fail "snapshot $n: $(wc -l < snap$n.seqs) threads, want 2"
	sleep 0.2
done
# the program kept its records (the second starts at 0 too) and went on
for t in 0 1; do
	l1=$(awk -v t=$t '$1 == t { print $3 }' snap1.seqs)
	l2=$(awk -v t=$t '$1 == t { print $3 }' snap2.seqs)
	[ "${l2:-0}" -gt "${l1:-0}" ] || fail "thread $t: second snapshot ends at ${l2:-?}, first at ${l1:-?}"
done
ok "second snapshot goes further"

# ---- record --pid for 1 s ------------------------------------------------
"$BPRINT" record --pid $tpid -o rec.dat --duration 1s 2> rec.err; rc=$?
[ $rc -eq 0 ] || { fail "record --pid: exit $rc"; cat rec.err; }
"$BPRINT" report --raw rec.dat > rec.raw || fail "record --pid: report exit $?"
check_seqs rec.raw rec 1 && ok "record --pid: from seq 0 (what the rings held), in order" ||
	fail "record --pid: records out of order or lost"
for t in 0 1; do
	l2=$(awk -v t=$t '$1 == t { print $3 }' snap2.seqs)
	lr=$(awk -v t=$t '$1 == t { print $3 }' rec.seqs)
	# 1 s at 200 us a record: well past the second snapshot
	[ "${lr:-0}" -gt $(( ${l2:-0} + 500 )) ] || fail "thread $t: record ends at ${lr:-?}, snapshot at ${l2:-?}"
done

# ---- a second reader is refused, one line --------------------------------
"$BPRINT" record --pid $tpid -o rec_a.dat 2> rec_a.err &
rpid=$!
pids="$pids $rpid"
wait_ready rec_a.dat	# made once it holds the reader's lock (attach.c)
"$BPRINT" record --pid $tpid -o rec_b.dat 2> rec_b.err; rc=$?
[ $rc -eq 9 ] && [ "$(wc -l < rec_b.err)" -eq 1 ] && grep -q 'reads this process already' rec_b.err &&
	ok "second reader refused: $(cat rec_b.err)" || { fail "second reader: exit $rc"; cat rec_b.err; }

# ---- kill -9 of the reader: the target goes on tracing, and may be read -----
kill -9 $rpid
wait $rpid 2>/dev/null
sleep 0.1
"$BPRINT" snapshot -o after_kill.dat $tpid 2>/dev/null || fail "snapshot after kill -9: exit $?"
"$BPRINT" report --raw after_kill.dat > after_kill.raw || fail "after kill -9: report exit $?"
check_seqs after_kill.raw after_kill || fail "after kill -9: records out of order"
for t in 0 1; do
	lr=$(awk -v t=$t '$1 == t { print $3 }' rec.seqs)
	lk=$(awk -v t=$t '$1 == t { print $3 }' after_kill.seqs)
	[ "${lk:-0}" -gt "${lr:-0}" ] || fail "thread $t: no records after kill -9 of the reader"
done
"$BPRINT" record --pid $tpid -o rec_c.dat --duration 100ms 2> rec_c.err ||
	{ fail "record --pid after kill -9 of the last: exit $?"; cat rec_c.err; }
ok "kill -9 of record --pid: target traces on, a new reader is let in"

# ---- the target exits while recorded: complete up to its exit ------------
"$BPRINT" record --pid $tpid -o exit.dat 2> exit.err &
rpid=$!
wait_ready exit.dat	# attached: made once it reads the process
kill -TERM $tpid
wait $tpid || fail "traced exit $?"
wait $rpid; rc=$?
[ $rc -eq 10 ] && grep -q 'exited while recorded' exit.err && ok "exit while recorded: $(tail -1 exit.err)" ||
	{ fail "exit while recorded: exit $rc"; cat exit.err; }
"$BPRINT" report --raw exit.dat > exit.raw || fail "exit.dat: report exit $?"
check_seqs exit.raw exit 1 || fail "exit.dat: records out of order or lost"
for t in 0 1; do
	want=$(awk -v t=$t '$2 == t { print $4 }' a.out)
	got=$(awk -v t=$t '$1 == t { print $3 }' exit.seqs)
	[ "$got" = "$want" ] || fail "thread $t: exit.dat ends at seq $got, the program's last was $want"
done
ok "exit.dat holds every thread's last record"

# ---- losses: small buffers lapped by writers flat out ---------------------
env BPRINT_BUFFER_SIZE=64K "$TRACED" run 2 0 lossy.ready > lossy.out &
lpid=$!
pids="$pids $lpid"
wait_ready lossy.ready
sleep 0.2
"$BPRINT" snapshot -o lossy_snap.dat $lpid 2>/dev/null || fail "lossy snapshot: exit $?"
"$BPRINT" report --raw lossy_snap.dat > lossy_snap.raw || fail "lossy snapshot: report exit $?"
# Every thread in order, and losses said.  (Pages the writers recycle
# while they are copied leave gaps that the stream, as bprint record -M
# overwrite writes it too, does not always count in place: so not every
# gap is checked against a loss line here, as it is above.)
in_order() {	# RAW [FIRST]: 0 if every thread counts up (FIRST: its first after its losses)
	awk -v first="${2:-0}" '/records? lost/ { for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+$/) lost[$2] += substr($i, 2); next }
	/tick thread/ { for (i = 1; i <= NF; i++) { if ($i == "thread") t = $(i + 1); if ($i == "seq") s = $(i + 1) }
		if (first && !(t in last) && s != lost[t] + 0) { printf "thread %s: first seq %s after %d lost\n", t, s, lost[t]; bad = 1 }
		if ((t in last) && s <= last[t]) bad = 1
		last[t] = s; n++ } END { exit bad || !n }' "$1"
}
in_order lossy_snap.raw && grep -q 'records lost' lossy_snap.raw &&
	ok "lapped buffers: in order, losses said" ||
	fail "lapped buffers: snapshot's counts do not add up"
"$BPRINT" record --pid $lpid -o lossy_rec.dat --duration 300ms 2>/dev/null ||
	fail "lossy record --pid: exit $?"
"$BPRINT" report --raw lossy_rec.dat > lossy_rec.raw || fail "lossy record --pid: report exit $?"
in_order lossy_rec.raw &&
	ok "record --pid under loss: every thread in order" || fail "record --pid under loss: out of order"
kill $lpid
wait $lpid

# ---- refusals ------------------------------------------------------------
refused() {	# WANT_RC WHAT PATTERN CMD...
	want=$1 what=$2 pat=$3
	shift 3
	"$@" > refused.out 2> refused.err; rc=$?
	if [ $rc -eq "$want" ] && [ "$(wc -l < refused.err)" -eq 1 ] && grep -q "$pat" refused.err; then
		ok "$what: exit $rc, $(cat refused.err)"
	else
		fail "$what: exit $rc, want $want"
		cat refused.err
	fi
}
sleep 60 &
spid=$!
pids="$pids $spid"
refused 7 "no libbprint" "no libbprint" "$BPRINT" snapshot -o x.dat $spid
refused 7 "no libbprint (record)" "no libbprint" "$BPRINT" record --pid $spid -o x.dat
kill $spid
wait $spid 2>/dev/null
refused 5 "no such process" "no such process" "$BPRINT" snapshot -o x.dat $spid

"$FAKE" fake.ready &
fpid=$!
pids="$pids $fpid"
wait_ready fake.ready
refused 8 "another layout" "trace format 99.0" "$BPRINT" snapshot -o x.dat $fpid
kill $fpid

BPRINT_ATTACH=0 "$TRACED" run 1 1000 off.ready > off.out &
opid=$!
pids="$pids $opid"
wait_ready off.ready
refused 7 "BPRINT_ATTACH=0" "BPRINT_ATTACH=0" "$BPRINT" snapshot -o x.dat $opid
kill $opid

# another user: refused, the target unaffected
if [ "$(id -u)" -eq 0 ] && command -v setpriv > /dev/null; then
	start_traced 1 500 u
	mkdir other && chmod 777 other
	for cmd in "snapshot -o other/x.dat $tpid" "record --pid $tpid -o other/x.dat --duration 100ms"; do
		# shellcheck disable=SC2086
		refused 6 "another user: ${cmd%% *}" "the kernel's ptrace access rule" \
			setpriv --reuid nobody --regid nogroup --clear-groups "$BPRINT" $cmd
	done
	[ -e other/x.dat ] && fail "another user: a file was written"
	"$BPRINT" snapshot -o u.dat $tpid 2>/dev/null || fail "snapshot after the refusals: exit $?"
	"$BPRINT" report --raw u.dat > u.raw || fail "another user: report exit $?"
	check_seqs u.raw u 1 && ok "another user: the target traces on, untouched" ||
		fail "after the refusals: records out of order"
	kill $tpid
	wait $tpid
else
	echo "skip: another user (needs root and setpriv)"
fi

# ---- tail PID follows the shared memory to the program's end -------------
start_traced 1 1000 tl
"$BPRINT" tail --raw --interval 10 $tpid > tail.raw 2> tail.err &
bpid=$!
# attached: it printed a record
wait_until 20 test -s tail.raw || fail "tail PID: no record within 20 s"
kill -TERM $tpid
wait $tpid
wait $bpid || { fail "tail PID: exit $?"; cat tail.err; }
check_seqs tail.raw tail 1 || fail "tail PID: records out of order or lost"
want=$(awk '$2 == 0 { print $4 }' tl.out)
[ "$(awk '$1 == 0 { print $3 }' tail.seqs)" = "$want" ] && ok "tail PID: every record to the last, $want" ||
	fail "tail PID: ends at $(awk '$1 == 0 { print $3 }' tail.seqs), the program's last was $want"

# ---- a program that closes every descriptor: its files are left alone -----
# Without the ring pool: its thread's refill uses the file's descriptor
# while the program closes it (README, BPRINT_PREFAULT).
BPRINT_PREFAULT=0 "$TRACED" closefds own.txt > closefds.out 2> closefds.err; rc=$?
[ $rc -eq 0 ] && grep -q 'after close 9' closefds.out && grep -q 'before close 0' closefds.out &&
	ok "descriptors closed under the trace: the program's file intact, every record kept" ||
	{ fail "closefds: exit $rc"; cat closefds.err; }

# ---- a forking target: the child is its own PID -------------------------
"$TRACED" fork fork.ready &
fpid=$!
pids="$pids $fpid"
wait_ready fork.ready
read -r parent child < fork.ready
pids="$pids $child"
"$BPRINT" snapshot -o parent.dat "$parent" 2>/dev/null || fail "snapshot parent: exit $?"
"$BPRINT" snapshot -o child.dat "$child" 2>/dev/null || fail "snapshot child: exit $?"
"$BPRINT" report -m parent.dat > parent.msg
"$BPRINT" report -m child.dat > child.msg
grep -q '^parent seq' parent.msg && ! grep -q child parent.msg && ok "fork: the parent's own records" ||
	fail "fork: parent.dat holds $(sort -u parent.msg | cut -c1-6 | sort -u | tr '\n' ' ')"
grep -q '^child seq' child.msg && ! grep -q parent child.msg && ok "fork: the child's own records" ||
	fail "fork: child.dat holds $(cut -c1-6 child.msg | sort -u | tr '\n' ' ')"
kill $fpid
wait $fpid

if [ "$fails" -ne 0 ]; then
	echo "$fails failure(s)"
	exit 1
fi
echo "all passed"
