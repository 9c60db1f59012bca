#!/bin/sh
# Every failure to get memory or space is a counted loss with one line on
# stderr (issue 31): rings of 1 GiB under a 600 MB address-space limit
# cannot be mapped, in memory, with BPRINT_FILE and under bprint record;
# a BPRINT_FILE on a filesystem without room for a ring keeps it in
# memory, counted once a ring.  Before, those threads' records vanished
# ("written 0, lost 0"), and every record asked for a ring again (the file
# counted a "buffer kept in memory" per record and grew by a ring each).
. "$(dirname "$0")/rt_lib.sh"

limit=600000	# KiB of address space: the program runs, a 1 GiB ring does not fit
n=4
per=100
# limited CMD...: CMD under the address-space limit
limited() {
	(ulimit -v "$limit" && exec "$@")
}
# dump_header FILE: "WRITTEN LOST" from a dump's entries-written line
dump_header() {
	awk '/entries-written:/ { print $3, $5; exit }' "$1"
}
if ! limited "$PROG" 1 1 > /dev/null 2>&1; then
	echo "the program does not run under ulimit -v $limit (a sanitizer?): skipped"
	exit 0
fi

# ---- in memory: the dump counts them, one line says it -----------------
BPRINT_BUFFER_SIZE=1G BPRINT_DUMP=exit "$PROG" $n $per > /dev/null 2> free.err ||
	fail "unlimited: exit $?"
check "unlimited: written, lost" "$(dump_header free.err)" = "$((n * per)) 0"
BPRINT_BUFFER_SIZE=1G BPRINT_DUMP=exit limited "$PROG" $n $per > /dev/null 2> mem.err ||
	fail "limited: exit $?"
check "limited: written, lost" "$(dump_header mem.err)" = "$((n * per)) $((n * per))"
check "limited: lines said" "$(grep -c '^bprint: no memory for a thread' mem.err)" -eq 1

# ---- BPRINT_FILE: counted in the file, which does not grow -------------
BPRINT_FILE=f.dat BPRINT_BUFFER_SIZE=1G limited "$PROG" $n $per > f.out 2> f.err ||
	fail "file: exit $?"
check "file: its size (bytes)" "$(value file_bytes f.out)" -lt 1048576
check "file: lines said" "$(grep -c '^bprint: ' f.err)" -eq 2
"$BPRINT" stats f.dat > f.stats 2> f.serr
check "file: stats' exit status" $? -eq 4
grep -q "$n buffers were kept in memory only; $((n * per)) records written are not in the file" f.serr &&
	ok "file: stats counts a ring once and every record" || fail "file: stats said: $(cat f.serr)"

# ---- bprint record: exit 3, the records counted ------------------------
limited "$BPRINT" record -b 1G -o r.dat -- "$PROG" $n $per > r.out 2> r.err
check "record: exit status" $? -eq 3
grep -q "$((n * per)) records written are not in the file" r.err &&
	ok "record: counts the records" || fail "record: said: $(cat r.err)"

# ---- descriptors under bprint record (rt_fork: parent, child, grandchild) --
# (each run closes what it inherits below 10, as a test driver's log, so that
# the limits below count from 3; the shell keeps its own from 10)
# The program short of them: the child cannot make its live file; it tells
# record, which exits 3 (it said nothing and exited 0).
fork=$(dirname "$PROG")/rt_fork
(exec 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&- && ulimit -n 6 && exec "$BPRINT" record -o d.dat -- "$fork" 2) > d.out 2> d.err
check "no descriptor in the program: record's exit status" $? -eq 3
child=$(awk '$1 == "child" { print $2 }' d.out)
grep -q "^bprint: incomplete: 1 traced program could not make its trace file (process $child, said above)" d.err &&
	ok "no descriptor in the program: record says which" || fail "no descriptor in the program: $(cat d.err)"
# Record short of them, the program not (it raises its soft limit): the
# live files it could not open at once are drained later, every record in.
raise='ulimit -S -n 64 && exec "$@"'
(exec 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&- && ulimit -S -n 6 && exec "$BPRINT" record -o e.dat -- sh -c "$raise" sh "$fork" 2) > e.out 2> e.err
check "record short of descriptors: exit status" $? -eq 0
total=0
for f in e.dat e.dat.[0-9]*; do
	total=$((total + $("$BPRINT" report "$f" | grep -c ': \(parent\|child\|grandchild\)')))
done
check "record short of descriptors: records in the streams" $total -eq 8
check "record short of descriptors: live files left" "$(ls e.dat.live* 2> /dev/null | wc -l)" -eq 0
# Record with too few to drain one file: exit 3, said, the live files kept.
(exec 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&- && ulimit -S -n 4 && exec "$BPRINT" record -o g.dat -- sh -c "$raise" sh "$fork" 2) > g.out 2> g.err
check "record without descriptors: exit status" $? -eq 3
grep -q "g.dat.live: cannot be drained: Too many open files (3 such live files, kept)" g.err &&
	ok "record without descriptors: said" || fail "record without descriptors: $(cat g.err)"

# ---- record -o where no file can be made: refused before COMMAND runs ---
"$BPRINT" record -o nodir/x.dat -- sh -c 'echo ran > ran' > h.out 2> h.err
check "record into a missing directory: exit status" $? -eq 3
[ ! -e ran ] && ok "record into a missing directory: COMMAND not run" ||
	fail "record into a missing directory: COMMAND ran"
grep -q "nodir/x.dat: cannot create it: No such file or directory (COMMAND not run)" h.err &&
	ok "record into a missing directory: said" || fail "record into a missing directory: $(cat h.err)"
mkdir ro && chmod 555 ro
if ! touch ro/probe 2> /dev/null; then	# root writes there all the same
	"$BPRINT" record -o ro/x.dat -- sh -c 'echo ran > ran' > h.out 2> h.err
	check "record into a read-only directory: exit status" $? -eq 3
	[ ! -e ran ] && ok "record into a read-only directory: COMMAND not run" ||
		fail "record into a read-only directory: COMMAND ran"
fi
chmod 755 ro

# ---- a filesystem without room for a ring (96 MiB on 100 MiB, less the
# sixteenth kept free): memory, once a ring --------------------------------
if unshare -rm true 2> /dev/null; then
	mkdir small
	unshare -rm sh -c 'mount -t tmpfs -o size=100m none small && cd small &&
		BPRINT_FILE=s.dat BPRINT_BUFFER_SIZE=96M "$0" 3 100 > ../s.out 2> ../s.err &&
		"$1" stats s.dat > ../s.stats 2> ../s.serr; echo $? > ../s.rc' "$PROG" "$BPRINT"
	check "no room: stats' exit status" "$(cat s.rc)" -eq 4
	grep -q "3 buffers were kept in memory only; 300 records written are not in the file" s.serr &&
		ok "no room: counted once a ring" || fail "no room: stats said: $(cat s.serr)"
	check "no room: file size (bytes)" "$(value file_bytes s.out)" -lt 1048576
else
	echo "no mount namespace: the no-room case skipped"
fi
finish
