#!/bin/sh
# The writer never writes what the readers refuse (issue 19, item 7): a
# runtime format longer than a trace file's site record holds (64 KiB with
# its NUL, the readers' limit) is said once on stderr and formatted at
# trace time; one just within the limit is an ordinary site, read back
# whole.  Either way every reader reads the file without calling it
# damaged (exit 0), every record there.
. "$(dirname "$0")/rt_lib.sh"

BPRINT_FILE=l.dat "$PROG" 65535 65536 1048576 > l.out 2> l.err || fail "rt_long: exit $?"
[ "$(grep -c 'more than trace files hold (65535): formatted at trace time' l.err)" -eq 2 ] &&
	grep -q 'a runtime format of 65536 bytes' l.err && grep -q 'a runtime format of 1048576 bytes' l.err &&
	[ "$(wc -l < l.err)" -eq 2 ] && ok "the two formats too long said, once each" ||
	fail "stderr: $(cut -c1-200 l.err)"
"$BPRINT" report --raw l.dat > l.raw 2> l.rerr
rc=$?
check "report's exit status" $rc -eq 0
[ ! -s l.rerr ] && ok "report said nothing" || fail "report said: $(cut -c1-200 l.rerr)"
[ "$(wc -l < l.raw)" -eq 7 ] && ok "7 records" || fail "$(wc -l < l.raw) records"
[ "$(grep -c ' long 1 xxx' l.raw)" -eq 2 ] && ok "the format of 65535 bytes decoded, twice" ||
	fail "the 65535-byte format"
"$BPRINT" stats l.dat > /dev/null 2> l.serr
rc=$?
check "stats' exit status" $rc -eq 0
"$BPRINT" formats l.dat > l.formats 2> l.ferr
rc=$?
check "formats' exit status" $rc -eq 0
finish
