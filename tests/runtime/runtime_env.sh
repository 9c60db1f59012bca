#!/bin/sh
# The environment, read at start-up (issue 19, item 6): every bad value is
# said on stderr ("bprint: ignoring VAR=VALUE (expected ...)") and the
# default kept, good values say nothing; BPRINT_FILTER applies to every
# site, a template's too (it registers at its first call, which used to be
# traced whatever the filter said).  And the command line bprint record
# keeps: an empty argument shows in stats' "command:" header.
. "$(dirname "$0")/rt_lib.sh"

# run OUT ERR VAR=VALUE...: rt_sites with that environment
run() {
	out=$1 err=$2
	shift 2
	env "$@" "$PROG" > "$out" 2> "$err" || fail "rt_sites $*: exit $?"
}
# records PATTERN OUT: how many records of OUT match
records() {
	grep -c ": $1 [0-9]" "$2"
}

# Bad values: one line each, naming the variable and the value; the default kept.
# Sizes past 2^64 (once taken as 2^64 - 1), negative ones (once 2^64 - 5),
# a ring past the 4 GiB bound, a record pid that is no number.
for bad in BPRINT_BUFFER_SIZE=lots BPRINT_RETAIN=0 BPRINT_PAGE_SIZE=3000 BPRINT_MODE=fast \
	BPRINT_BLOCK_TIMEOUT=soon BPRINT_CLOCK=sundial BPRINT_DUMP=sometimes BPRINT_DISABLE=maybe \
	BPRINT_BUFFER_SIZE=99999999999999999999 BPRINT_BUFFER_SIZE=64G BPRINT_BUFFER_SIZE=5G \
	BPRINT_BUFFER_SIZE=17179869184G BPRINT_BUFFER_SIZE=-1M BPRINT_BUFFER_SIZE=' 1M' \
	BPRINT_RETAIN=-5 BPRINT_RETAIN=99999999999999999999 BPRINT_BLOCK_TIMEOUT=99999999999999999999s \
	BPRINT_RECORD_PID=abc BPRINT_RECORD_PID=-1 BPRINT_RECORD_PID=99999999999; do
	run bad.out bad.err "$bad"
	grep -q "^bprint: ignoring $bad (expected " bad.err && [ "$(wc -l < bad.err)" -eq 1 ] &&
		ok "$bad: said" || fail "$bad: stderr: $(cat bad.err)"
	[ "$(records 'tsum|plain' bad.out)" -eq 0 ] || true
	[ "$(grep -cE ': (tsum|plain) [0-9]' bad.out)" -eq 6 ] && ok "$bad: the default kept (traced)" ||
		fail "$bad: $(grep -cE ': (tsum|plain) [0-9]' bad.out) records, want 6"
done
for good in BPRINT_DISABLE=0 BPRINT_DISABLE= BPRINT_MODE=discard BPRINT_FILTER=ns::f,-func:x \
	BPRINT_BUFFER_SIZE=4G BPRINT_RETAIN=1G; do
	run good.out good.err "$good"
	[ ! -s good.err ] && ok "$good: nothing said" || fail "$good: stderr: $(cat good.err)"
done
run off.out off.err BPRINT_DISABLE=1
[ "$(grep -cE ': (tsum|plain) [0-9]' off.out)" -eq 0 ] && [ ! -s off.err ] &&
	ok "BPRINT_DISABLE=1: tracing off" || fail "BPRINT_DISABLE=1: $(cat off.out off.err)"

# A filter entry of an unknown kind: said and ignored, the other entries hold.
run f.out f.err BPRINT_FILTER=foo:bar,-func:plain,line:x
grep -q "^bprint: ignoring foo:bar in BPRINT_FILTER (unknown kind" f.err &&
	grep -q "^bprint: ignoring line:x in BPRINT_FILTER (expected line:FILE:LINE)" f.err &&
	[ "$(wc -l < f.err)" -eq 2 ] && ok "BPRINT_FILTER: bad entries said" ||
	fail "BPRINT_FILTER: stderr: $(cat f.err)"
[ "$(records tsum f.out)" -eq 4 ] && [ "$(records plain f.out)" -eq 0 ] &&
	ok "BPRINT_FILTER: the good entry applied, the bad ones not" ||
	fail "BPRINT_FILTER: $(records tsum f.out) tsum, $(records plain f.out) plain"

# Entries with nothing in them: one line for them all, the default (no filter) kept.
run e.out e.err 'BPRINT_FILTER=+,,-,'
grep -q "^bprint: ignoring the empty entries of BPRINT_FILTER=+,,-, (expected " e.err &&
	[ "$(wc -l < e.err)" -eq 1 ] && ok "BPRINT_FILTER=+,,-,: said once" ||
	fail "BPRINT_FILTER=+,,-,: stderr: $(cat e.err)"
[ "$(grep -cE ': (tsum|plain) [0-9]' e.out)" -eq 6 ] && ok "BPRINT_FILTER=+,,-,: every site traced" ||
	fail "BPRINT_FILTER=+,,-,: $(grep -cE ': (tsum|plain) [0-9]' e.out) records, want 6"

# BPRINT_FILE naming what cannot hold a trace (/dev/null, a directory, a
# FIFO): refused in one line, traced in memory, no "NAME.PID" made beside it.
mkdir adir
mkfifo afifo
for f in adir afifo /dev/null; do
	run n.out n.err BPRINT_FILE=$f BPRINT_DUMP=exit
	grep -q "^bprint: cannot create trace file $f: not a regular file (tracing to memory only)" n.err &&
		[ "$(grep -c '^bprint: ' n.err)" -eq 1 ] && ok "BPRINT_FILE=$f: refused" ||
		fail "BPRINT_FILE=$f: stderr: $(cat n.err)"
	ls "$f".[0-9]* > /dev/null 2>&1 && fail "BPRINT_FILE=$f: $(ls -d "$f".[0-9]*) made" ||
		ok "BPRINT_FILE=$f: nothing made beside it"
done

# Filters and template sites, registered at their first call.
run t1.out t1.err BPRINT_FILTER=func:plain
[ "$(records tsum t1.out)" -eq 0 ] && [ "$(records plain t1.out)" -eq 2 ] &&
	ok "only plain: no template record" ||
	fail "only plain: $(records tsum t1.out) tsum, $(records plain t1.out) plain"
run t2.out t2.err "BPRINT_FILTER=-func:tsum*"
[ "$(records tsum t2.out)" -eq 0 ] && [ "$(records plain t2.out)" -eq 2 ] &&
	ok "all but tsum: no template record" ||
	fail "all but tsum: $(records tsum t2.out) tsum, $(records plain t2.out) plain"
run t3.out t3.err BPRINT_FILTER=func:tsum
[ "$(records tsum t3.out)" -eq 4 ] && [ "$(records plain t3.out)" -eq 0 ] &&
	ok "only tsum: its 4 records" ||
	fail "only tsum: $(records tsum t3.out) tsum, $(records plain t3.out) plain"

# An empty argument kept in the command header, as a shell writes it.
"$BPRINT" record -q -o c.dat -- "$PROG" "" "a b" "" > /dev/null || fail "record: exit $?"
"$BPRINT" stats c.dat | grep -qxF "# command: $PROG '' a b ''" && ok "command header: empty arguments kept" ||
	fail "command header: $("$BPRINT" stats c.dat | grep command)"
finish
