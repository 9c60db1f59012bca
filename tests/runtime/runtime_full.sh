#!/bin/sh
# bprint record on a disk that fills (issue 19, item 4): it exits 3 whenever
# its trace lacks records, whichever file filled, and its line on stderr
# counts exactly what is missing, in the words bprint stats uses for the
# same file.  The disk is a file size limit (RLIMIT_FSIZE, SIGXFSZ ignored:
# writes fail with EFBIG as on a full disk) on record and the program.
#
#  - the live file fills: the threads' rings have no room, they trace in
#    memory only; the stream holds none of their records (record exited 0);
#  - the stream fills: it stops at some record, the rest is not copied
#    (record said "truncated at record N", not how many are missing).
. "$(dirname "$0")/rt_lib.sh"

r=$(scale 200000)
# limited BYTES CMD...: CMD with its files (and its children's) at most BYTES long
limited() {
	bytes=$1
	shift
	(trap '' XFSZ; exec prlimit --fsize="$bytes" "$@")
}
# column NAME FILE: the sum of stats' column NAME over the threads
column() {
	awk -v c="$1" '
		/^# threads/ { t = 1; next }
		t && $1 == "TID" { for (i = 1; i <= NF; i++) if ($i == c) k = i; next }
		t && k && $1 ~ /^-?[0-9]+$/ { s += $k }
		END { print s + 0 }' "$2"
}
command -v prlimit > /dev/null || { echo "prlimit not found: skipped"; exit 0; }

# ---- the live file fills: 2 rings of 4 MiB, 2 MiB allowed ---------------
limited 2097152 "$BPRINT" record -o a.dat -- "$PROG" --threads 2 --records "$r" > a.out 2> a.err
rc=$?
check "live full: record's exit status" $rc -eq 3
grep -q "a.dat: incomplete: the trace file was full, 2 buffers were kept in memory only; $((2 * r)) records written are not in the file" a.err &&
	ok "live full: record counts the $((2 * r)) records" || fail "live full: record said: $(cat a.err)"
"$BPRINT" stats a.dat > a.stats 2> a.serr
grep -q "incomplete: the trace file was full, 2 buffers were kept in memory only; $((2 * r)) records" a.serr &&
	ok "live full: stats says the same" || fail "live full: stats said: $(cat a.serr)"
limited 2097152 "$BPRINT" record -q -o q.dat -- "$PROG" --threads 2 --records "$r" > q.out 2> q.err
rc=$?
check "live full, --quiet: exit status" $rc -eq 3
grep -q "$((2 * r)) records written are not in the file" q.err && ok "live full, --quiet: said all the same" ||
	fail "live full, --quiet: said: $(cat q.err)"

# ---- the stream fills: 64K rings fit, the stream does not ----------------
# (the live file takes 268 KiB: header, lists, two rings; 2 x 100,000
# records take about 900 KiB of stream, whatever the scale)
r=100000
limited 524288 "$BPRINT" record -b 64K -o b.dat -- "$PROG" --threads 2 --records "$r" > b.out 2> b.err
rc=$?
check "stream full: record's exit status" $rc -eq 3
"$BPRINT" stats b.dat > b.stats 2> b.serr
read=$(column READ b.stats)
missing=$(column NOT-COPIED b.stats)
written=$(column WRITTEN b.stats)
discarded=$(column DISCARDED b.stats)
check "stream full: records missing" "$missing" -gt 0
check "stream full: stats' accounts" $((read + discarded + missing)) -eq "$written"
check "stream full: written" "$written" -eq $((2 * r))
grep -q "b.dat: truncated: disk full at record $read; $missing records written are not in the file" b.err &&
	ok "stream full: record counts the $missing missing records as stats does" ||
	fail "stream full: record said: $(cat b.err)"
grep -q "truncated: disk full at record $read; $missing records written are not in the file" b.serr &&
	ok "stream full: stats says the same" || fail "stream full: stats said: $(cat b.serr)"
finish
