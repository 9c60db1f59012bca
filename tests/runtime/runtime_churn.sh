#!/bin/sh
# Bounded memory and file for any number of threads (issue 19, item 2),
# every record accounted for, exactly:
#
#  - BPRINT_FILE alone: N threads, one after the other, each trace 10
#    records and exit.  The program's RSS grows by less than 128 MiB, the
#    file stays under BPRINT_RETAIN + the live ring + the ring faulted in
#    ahead (BPRINT_PREFAULT, its default 1) + its lists (the newest
#    exited threads' rings kept whole in it, the oldest ones' chunks reused);
#    the newest K + 1 threads read back whole, K = the rings BPRINT_RETAIN
#    holds (a ring in the file is retired when a new thread needs its
#    chunk, so the last one to exit stays too), and the others' records
#    are the "(retired)" line of stats,
#    all overwritten: written = N x 10 in all.
#  - bprint record: the same program, every one of the N x 10 records in
#    the stream (block mode), RSS and the live file bounded alike (an
#    exited thread's ring is reused once the copier has copied it).
#
# Before, each exited thread kept its whole ring resident and in the file:
# 4 MiB a thread under record, 1 MiB with BPRINT_FILE.
. "$(dirname "$0")/rt_lib.sh"

n=$(scale 2000)
mib=1048576
ring=$((mib + 256))		# a 1M ring: 256 pages of 4K and the 256-byte control block
chunk=$(( (128 + ring + 4095) / 4096 * 4096 ))
lists=$((4096 + 2 * 65536))	# the header, a libraries and a sites chunk
pool=1				# BPRINT_PREFAULT's ring faulted in ahead: a chunk more

# ---- BPRINT_FILE alone -------------------------------------------------
retain=$((8 * mib))
BPRINT_FILE=a.dat BPRINT_BUFFER_SIZE=1M BPRINT_RETAIN=8M "$PROG" "$n" 10 > a.out ||
	fail "file: the program failed"
check "file: RSS growth in KiB" "$(value rss_growth_kib a.out)" -lt $((128 * 1024))
check "file: its size" "$(value file_bytes a.out)" -le $((retain + (1 + pool) * chunk + lists))
"$BPRINT" stats a.dat > a.stats || fail "file: stats exit status $?"
kept=$((retain / ring + 1))
awk -v n="$n" -v kept="$kept" '
	/^# threads/ { t = 1; next }
	t && $1 == "-1" { rw = $3; ro = $4; next }
	t && $1 ~ /^[0-9]+$/ { w += $3; o += $4; d += $5; r += $6; if ($6 == 10) whole++ }
	END {
		if (rw != (n - kept) * 10 || ro != rw) { print "retired " rw " " ro; exit 1 }
		if (w + rw != n * 10 || o != 0 || d != 0 || r != kept * 10 || whole != kept) {
			print "threads " w " " o " " d " " r " " whole; exit 1
		}
	}' a.stats && ok "file: $kept threads kept whole, $((n - kept)) retired, $((n * 10)) written" ||
	fail "file: accounting (stats below)"
"$BPRINT" report --raw a.dat > a.raw || fail "file: report exit status $?"
# (a line where records were lost, raw: site id 0, is no record)
awk -v n="$n" -v kept="$kept" '
	$4 == 0 && $5 ~ /^\[[0-9]+$/ { next }
	{ split($6, a, "="); t = a[2] + 0; if (t < n - kept) bad++; c[t]++ }
	END { for (t = n - kept; t < n; t++) if (c[t] != 10) bad++; exit bad != 0 }' a.raw &&
	ok "file: the records kept are the newest threads'" || fail "file: which records were kept"
"$BPRINT" report a.dat 2>/dev/null | grep -q "entries-written: $((n * 10))   lost: $(((n - kept) * 10)) " &&
	ok "file: report's header counts the retired records as lost" ||
	fail "file: report's header: $("$BPRINT" report a.dat 2>&1 | grep entries-written)"
[ "$fails" -eq 0 ] || cat a.stats | tail -5

# ---- bprint record -----------------------------------------------------
retain=$((64 * mib))
chunk4=$(( (128 + 4 * mib + 256 + 4095) / 4096 * 4096 ))
"$BPRINT" record -o b.dat -- "$PROG" "$n" 10 > b.out 2> b.err || fail "record: exit status $?"
check "record: RSS growth in KiB" "$(value rss_growth_kib b.out)" -lt $((128 * 1024))
check "record: the live file's size" "$(value file_bytes b.out)" -le $((retain + (1 + pool) * chunk4 + lists))
grep -q "$n rings, $((n * 10)) records written, 0 discarded" b.err && ok "record: summary" ||
	fail "record: summary: $(cat b.err)"
"$BPRINT" stats b.dat > b.stats || fail "record: stats exit status $?"
awk -v n="$n" '
	/^# threads/ { t = 1; next }
	t && $1 ~ /^-?[0-9]+$/ { w += $3; o += $4; d += $5; r += $6; if ($3 == 10 && $6 == 10) whole++ }
	END { exit !(w == n * 10 && r == w && o == 0 && d == 0 && whole == n) }' b.stats &&
	ok "record: all $n threads whole in the stream" || fail "record: accounting"
[ -e b.dat.live ] && fail "record: the live file is left"

# ---- threads starting while others exit (par=16: 16 at a time) ---------
# Issue 31: a thread's first record only tried the lock of the spare
# chunks, and took a new chunk whenever another thread was giving one
# back, so that almost none was reused (40,000 threads: a 36 GB file).
# The bound: BPRINT_RETAIN, the 16 live threads' rings and 16 more of
# threads exiting as the next ones start, the lists.
p=$(scale 4000)
par=16
BPRINT_FILE=p.dat BPRINT_BUFFER_SIZE=1M BPRINT_RETAIN=8M "$PROG" "$p" 10 par=$par > p.out ||
	fail "file, par=$par: the program failed"
check "file, par=$par: its size" "$(value file_bytes p.out)" -le $((8 * mib + (2 * par + 1 + pool) * chunk + lists))
"$BPRINT" stats p.dat > p.stats || fail "file, par=$par: stats exit status $?"
awk -v n="$p" '/^# threads/ { t = 1; next } t && $1 ~ /^-?[0-9]+$/ { w += $3 }
	END { exit w != n * 10 }' p.stats && ok "file, par=$par: $((p * 10)) records written" ||
	fail "file, par=$par: accounting: $(tail -3 p.stats)"
chunk64=$(( (128 + 65536 + 256 + 4095) / 4096 * 4096 ))
RT_FILE=q.dat.live "$BPRINT" record -b 64K -o q.dat -- "$PROG" "$p" 10 par=$par > q.out 2> q.err ||
	fail "record, par=$par: exit status $?"
check "record, par=$par: the live file's size" "$(value file_bytes q.out)" -le \
	$((64 * mib + (2 * par + 1 + pool) * chunk64 + lists))
grep -q "$p rings, $((p * 10)) records written, 0 discarded" q.err && ok "record, par=$par: summary" ||
	fail "record, par=$par: summary: $(cat q.err)"

# ---- a reader following the live file while its chunks are reused -------
# bprint tail PID reads rings whose chunks the program reuses under it:
# a reformatted chunk is no damage (tail called the file damaged and lost
# every later thread), every record it prints is the thread's that wrote
# it (none of a new thread under an old one's tid), and none twice.
m=$(scale 300)
BPRINT_FILE=c.dat BPRINT_BUFFER_SIZE=64K BPRINT_RETAIN=128K "$PROG" "$m" 10 slow > c.out &
pid=$!
# tail PID needs the program started, its file made: a thread has traced
wait_until 20 grep -q '^thread' c.out || fail "tail: no thread started within 20 s"
"$BPRINT" tail --raw --interval 1 $pid > c.tail 2> c.err
rc=$?
wait $pid || fail "tail: the program's exit $?"
[ $rc -eq 0 ] && [ ! -s c.err ] && ok "tail: a reused chunk is no damage" ||
	fail "tail: exit $rc: $(cat c.err)"
awk 'FNR == NR { if ($1 == "thread") tid[$2] = $3; next }
     $4 == 0 && $5 ~ /^\[[0-9]+$/ { next }
     { split($6, a, "="); split($7, b, "="); t = a[2] + 0
       if (!(t in tid) || $2 != tid[t]) { print "record " $0 " from tid " $2 ", thread " t " is " tid[t]; bad++ }
       if (seen[t " " b[2]]++) { print "twice: " $0; bad++ }
       n++ }
     END { print n + 0 " records followed"; exit bad != 0 || n < 10 }' c.out c.tail > c.check &&
	ok "tail of a file whose ring chunks are reused: $(tail -1 c.check), each under its thread" ||
	fail "tail of a file whose ring chunks are reused: $(head -3 c.check)"
finish
