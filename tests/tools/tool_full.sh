# tool_full: a live trace file that stops growing half-way (file_full.c
# freezes it with RLIMIT_FSIZE, as a full disk would).  What it has no room
# for is counted, exactly, and every reader says so and exits 1:
#   - a thread's ring, kept in memory: its RECORDS records;
#   - the call sites of new runtime formats: their records print as
#     <unknown call site N>, one per missing site.
# Read from the live file itself (BPRINT_FILE: report, stats and tail) and
# from bprint record's stream file.
. "$(dirname "$0")/tool_lib.sh"
FULL=$TRACED
R=20000
# No ring faulted in ahead (BPRINT_PREFAULT): one reserved in the file
# before the freeze would be the thread's, which must find no room.
export BPRINT_PREFAULT=0

# check NAME FILE: report and stats of FILE account for everything
check() {
	name=$1 f=$2
	"$BPRINT" report "$f" > $name.report 2> $name.rerr; rc=$?
	[ $rc -eq 4 ] || fail "$name: report exit $rc, want 4"
	unknown=$(grep -c '<unknown call site' $name.report)
	known=$(grep -c 'runtime format' $name.report)
	[ "$unknown" -gt 0 ] || fail "$name: no site was missing: the freeze did not work"
	[ $((unknown + known)) -eq 1000 ] ||
		fail "$name: $unknown unknown + $known known records, want 1000"
	grep -q "incomplete: the trace file was full, $unknown call sites are not in it" $name.rerr ||
		fail "$name: report did not count the $unknown missing sites: $(cat $name.rerr)"
	grep -q "incomplete: the trace file was full, 1 buffer was kept in memory only; $R records written are not in the file" $name.rerr ||
		fail "$name: report did not count the ring in memory: $(cat $name.rerr)"
	grep -q "^# entries-written: $((1001 + R))   lost: $R " $name.report ||
		fail "$name: report's header: $(sed -n 3p $name.report)"
	"$BPRINT" stats "$f" > $name.stats 2> $name.serr; rc=$?
	[ $rc -eq 4 ] || fail "$name: stats exit $rc, want 4"
	cmp -s $name.rerr $name.serr || fail "$name: stats and report differ: $(cat $name.serr)"
	for x in trace-cmd chrome perfetto ctf; do
		rm -rf $name.$x
		"$BPRINT" export -q --format=$x -o $name.$x "$f" 2> $name.$x.err; rc=$?
		[ $rc -eq 4 ] || fail "$name: export --format=$x exit $rc, want 4"
		cmp -s $name.rerr $name.$x.err || fail "$name: export --format=$x said: $(cat $name.$x.err)"
	done
	grep -q "^# not in the file (it was full): 1 buffer kept in memory only, $R records" \
		$name.stats || fail "$name: stats' threads: $(tail -3 $name.stats)"
}

f0=$fails
BPRINT_FILE=live.dat "$FULL" $R > live.out 2> live.err || fail "live: exit $?"
grep -q 'formats 1000' live.out || fail "live: $(cat live.out)"
grep -q 'trace file is full' live.err || fail "live: the program said nothing: $(cat live.err)"
check live live.dat
"$BPRINT" tail --raw live.dat > live.tail 2> live.terr &
bpid=$!
sleep 0.3
kill -INT $bpid
wait $bpid; rc=$?
[ $rc -eq 4 ] || fail "live: tail exit $rc, want 4"
cmp -s live.rerr live.terr || fail "live: tail said: $(cat live.terr)"
[ "$(wc -l < live.tail)" -eq 1001 ] || fail "live: tail printed $(wc -l < live.tail) records"
[ $fails -eq $f0 ] && ok "live file: what it had no room for is counted"

f0=$fails
"$BPRINT" record -o s.dat -- "$FULL" $R > s.out 2> s.err
rc=$?
[ $rc -eq 3 ] || fail "record: exit $rc, want 3 (the trace lacks records)"
grep -q "1 buffer kept in memory only, $R records not in the file" s.err ||
	fail "record's summary: $(cat s.err)"
check stream s.dat
[ $fails -eq $f0 ] && ok "stream file: what the live file had no room for is counted"
finish
