# tool_account: a stream file accounts for every record, or says it cannot.
#  - overwrite mode: the report header's "lost:" is the sum of what stats
#    shows lost (OVERWRITTEN + DISCARDED + NOT-COPIED);
#  - bprint record SIGKILLed at a random moment (20 times, 3 with
#    BPRINT_TEST_QUICK=1): the traced child dies with it, the file reads with
#    exit 1 and a "not closed cleanly" line, and read + overwritten +
#    discarded + not-copied = written, with the header's lost matching
#    exactly (also when the kill fell between a pages chunk and the
#    accounts' update);
#  - the same, with the accounts rolled back to before a pages chunk
#    that lost records (a kill between the two, made on purpose): the
#    same counts;
#  - disk full on a 4 MiB tmpfs (root only, skipped otherwise): record exits 3 and readers 1,
#    "truncated: disk full at record N", written is every record the
#    program wrote, and read + lost = written;
#  - a stream without accounts (format 1.0) not closed: it says it cannot
#    count what it lacks.
# sh tool_account.sh BPRINT TRACED WORKDIR SRCDIR ROLLBACK
umount "$3/mnt" 2> /dev/null	# a tmpfs left by a run that was killed
ROLLBACK=$5
. "$(dirname "$0")/tool_lib.sh"

# sums FILE.stats: "written read overwritten discarded notcopied" over threads
sums() {
	awk '/^# threads/ { t = 1; getline; next }
	     t { w += $3; o += $4; d += $5; r += $6; n += $8 }
	     END { print w, r, o, d, n }' "$1"
}
# header_lost REPORT: the "lost:" of report's header
header_lost() {
	sed -n 's/^# entries-written: [0-9]*   lost: \([0-9]*\) .*/\1/p' "$1"
}
# check_accounts NAME FILE [WANT_WRITTEN]: the file's numbers add up
check_accounts() {
	"$BPRINT" stats "$2" > "$1.stats" 2> "$1.serr"; src=$?
	"$BPRINT" report "$2" > "$1.report" 2> "$1.rerr"; rrc=$?
	name=$1 want=${3:-}
	set -- $(sums "$name.stats")
	w=$1 r=$2 o=$3 d=$4 n=$5
	lines=$(grep -v '^#' "$name.report" | grep -vEc ': \[[0-9]+ records? lost')
	shown=$(grep -oE ': \[[0-9]+ records? lost' "$name.report" | awk '{ n += substr($2, 2) } END { print n + 0 }')
	lost=$(header_lost "$name.report")
	[ "$w" -eq $((r + o + d + n)) ] ||
		fail "$name: written $w != read $r + overwritten $o + discarded $d + not copied $n"
	[ "$lines" -eq "$r" ] || fail "$name: report shows $lines records, stats read $r"
	# the loss lines stand where records went missing between two read ones
	[ "$shown" -le $((o + d + n)) ] ||
		fail "$name: report's loss lines count $shown, more than the $((o + d + n)) lost"
	# Exact, also for a recorder killed between writing a pages chunk
	# and updating the accounts: the reader counts the records of the
	# chunks written after the accounts' last update before the header.
	[ "$lost" = $((o + d + n)) ] || fail "$name: header lost $lost, stats $((o + d + n))"
	[ -z "$want" ] || [ "$w" -eq "$want" ] || fail "$name: written $w, the program wrote $want"
	last_src=$src last_rrc=$rrc
}

# 1. overwrite mode, closed cleanly.  The recorder is held off (SIGSTOP)
# for half a second while the program traces flat out, so the rings lap
# for certain: a recorder that keeps up (it can, under a sanitizer's slow
# writer) would leave no loss to account for.
"$BPRINT" record -q -o ow.dat --mode overwrite --buffer-size 64K -- \
	"$TRACED" --threads 2 --spin --timer 200 &
rpid=$!
wait_until 20 test -f ow.dat.live || fail "overwrite: no ow.dat.live within 20 s"
kill -STOP $rpid
sleep 0.5
kill -CONT $rpid
sleep 0.1
kill -INT $rpid
wait $rpid || fail "overwrite record: exit $?"
check_accounts ow ow.dat
[ "$last_rrc" -eq 0 ] && [ "$last_src" -eq 0 ] || fail "overwrite: exit $last_rrc/$last_src"
[ -s ow.rerr ] && fail "overwrite: stderr: $(cat ow.rerr)"
ok "overwrite mode: header lost = stats"
# one loss, one name: the records the rings recycled before record copied
# them are OVERWRITTEN in stats and "overwritten" in report's loss lines
set -- $(sums ow.stats)
words=$(grep -oE ': \[[0-9]+ records? lost[^]]*\]' ow.report | sed 's/.*lost: *//; s/\]$//' | sort -u)
[ "$3" -gt 0 ] && [ "$words" = overwritten ] ||
	fail "overwrite mode: stats OVERWRITTEN $3, report calls the losses '$words'"
ok "overwrite mode: report's loss lines say overwritten, as stats does"

# 2. a killed recorder: its child dies too (PR_SET_PDEATHSIG)
gone() {	# PID: not running (or a zombie nobody reaped yet)
	[ ! -e /proc/$1/stat ] || awk '{ exit !($3 == "Z" || $3 == "X") }' /proc/$1/stat 2> /dev/null
}
runs=20
[ "${BPRINT_TEST_QUICK:-0}" = 1 ] && runs=3
k=0
while [ $k -lt $runs ]; do
	k=$((k + 1))
	rm -f k.dat k.dat.live
	mode=overwrite
	[ $((k % 2)) -eq 0 ] && mode=discard
	pace=2	# flat out (the drainer falls behind) one time in four
	[ $((k % 4)) -eq 1 ] && pace=0
	"$BPRINT" record -q -o k.dat --mode $mode --buffer-size 64K -- \
		"$TRACED" --threads 2 --spin --sleep-us $pace &
	rpid=$!
	wait_until 5 test -f k.dat.live
	sleep "0.$(awk -v s="$k$$" 'BEGIN { srand(s); printf "%03d", 50 + int(rand() * 700) }')"
	child=$(pgrep -P $rpid)
	kill -KILL $rpid
	wait $rpid 2> /dev/null
	[ -n "$child" ] || { fail "kill $k: no child found"; continue; }
	wait_until 5 gone "$child"
	gone "$child" || { fail "kill $k: the child $child outlived bprint record"; kill -KILL "$child"; }
	check_accounts k k.dat
	[ "$last_rrc" -eq 4 ] && [ "$last_src" -eq 4 ] ||
		fail "kill $k ($mode): exit report $last_rrc stats $last_src, want 4"
	grep -q 'k.dat: not closed cleanly (bprint record did not finish); [0-9]* records written are not in the file' k.rerr ||
		fail "kill $k: report's line: $(cat k.rerr)"
	for sub in formats "export --format=chrome -q -o k.json"; do
		"$BPRINT" $sub k.dat > /dev/null 2> k.err; rc=$?
		[ $rc -eq 4 ] && grep -q 'not closed cleanly' k.err || fail "kill $k: $sub exit $rc"
	done
	# the first: overwrite mode flat out, the drainer falls behind (2a)
	[ $k -eq 1 ] && for x in dat stats report; do cp k.$x k1.$x; done
done
ok "$runs killed recorders"

# 2a. the first killed file (overwrite mode, flat out: the drainer lost
# pages) as if the kill had fallen between a pages chunk that lost records
# and the accounts' update: the accounts count neither that chunk's
# records nor its gaps, and their written is older than its records.  The
# header counts what the chunks after the accounts hold, and reading finds
# the same as before.
cp k1.dat rb.dat
"$ROLLBACK" rb.dat > rb.out; rc=$?
if [ $rc -eq 0 ]; then
	check_accounts rb rb.dat
	sed -n '/^# threads/,$p' k1.stats > k1.threads
	sed -n '/^# threads/,$p' rb.stats > rb.threads
	same k1.threads rb.threads "accounts rolled back past a chunk: the same stats ($(cat rb.out))"
	[ "$(header_lost rb.report)" = "$(header_lost k1.report)" ] ||
		fail "rolled back: header lost $(header_lost rb.report), $(header_lost k1.report) before"
	# "lost X -> Y": the chunk rolled past had a gap, so Y < X; unless the
	# drainer kept up this time (no chunk with a gap to roll past)
	if grep -q "no chunk loses records" rb.out; then
		echo "note: the drainer lost no pages this run: rolled back past a chunk without a gap"
	elif awk '{ exit !($4 == $6 + 0) }' rb.out; then
		# "copied A -> A": the kill itself fell after that chunk and
		# before the accounts' update, the window made here on purpose
		echo "note: the kill fell in the window: its accounts predate the last chunk already"
	else
		awk '{ exit !($NF < $(NF - 2)) }' rb.out || fail "rolled back no lost records: $(cat rb.out)"
	fi
else
	fail "rollback of k1.dat: exit $rc"
fi

# 2b. the same file as a 1.0 drainer left it (no accounts): it reads, and
# says that it cannot count what it lacks
cp k.dat old.dat
printf '\000\000' | dd of=old.dat bs=1 seek=10 conv=notrunc 2> /dev/null
dd if=/dev/zero of=old.dat bs=1 seek=2200 count=24 conv=notrunc 2> /dev/null
# nor the header's checksums (format 1.4)
dd if=/dev/zero of=old.dat bs=1 seek=2264 count=16 conv=notrunc 2> /dev/null
# no checksums either (flag bit 2, format 1.3)
flags=$(od -An -tu1 -j20 -N1 old.dat | tr -d ' ')
printf "\\$(printf '%03o' $((flags & ~4)))" | dd of=old.dat bs=1 seek=20 conv=notrunc 2> /dev/null
"$BPRINT" report --raw old.dat > old.raw 2> old.err; rc=$?
[ $rc -eq 4 ] || fail "1.0 stream not closed: exit $rc"
grep -q 'old.dat: not closed cleanly (bprint record did not finish); the records it did not copy cannot be counted' old.err ||
	fail "1.0 stream not closed: $(cat old.err)"
[ "$(wc -l < old.raw)" -eq "$(grep -vc '^#' k.report)" ] || fail "1.0 stream: records"
ok "a stream without accounts says it cannot count"

# 3. disk full
if [ "$(id -u)" -ne 0 ]; then
	echo "skipped: disk full (needs root to mount a tmpfs)"
else
	mkdir -p mnt
	if ! mount -t tmpfs -o size=4m bprint-test mnt 2> /dev/null; then
		echo "skipped: disk full (mount -t tmpfs failed)"
	else
		trap 'umount "$WORK/mnt"' EXIT INT TERM
		# small rings: the live file (on the same tmpfs) stays near 1 MiB;
		# every ring made in it before the flood fills the disk (a ring
		# the live file had no room for is not the stream's to count)
		"$BPRINT" record -q -o mnt/f.dat --mode discard --buffer-size 256K -- \
			"$TRACED" --threads 3 --records 1000000 --together 2> f.record; rc=$?
		[ $rc -eq 3 ] || fail "disk full: record exit $rc"
		grep -q 'mnt/f.dat: truncated: disk full at record [0-9]*; [0-9]* records written are not in the file' \
			f.record || fail "disk full: record said $(cat f.record)"
		check_accounts f mnt/f.dat 4000000
		[ "$last_rrc" -eq 4 ] && [ "$last_src" -eq 4 ] ||
			fail "disk full: exit report $last_rrc stats $last_src, want 4"
		grep -q 'mnt/f.dat: truncated: disk full at record [0-9]*; [0-9]* records written are not in the file' f.rerr ||
			fail "disk full: report's line: $(cat f.rerr)"
		grep -qxF "$(grep truncated f.rerr)" f.record || fail "disk full: record and report differ"
		ok "disk full"
	fi
fi
finish
