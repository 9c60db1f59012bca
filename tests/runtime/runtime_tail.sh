#!/bin/sh
# bprint tail PID on a program that rewrote its process title (issue 19,
# item 6): its environment is gone from /proc/PID/environ (and its working
# directory changed), but its trace file is still mapped: tail finds it
# through /proc/PID/maps, follows it, and ends when the program does.
. "$(dirname "$0")/rt_lib.sh"

BPRINT_FILE=t.dat "$PROG" 20 &
pid=$!
wait_until 20 grep -q serving /proc/$pid/cmdline 2> /dev/null ||
	fail "the program did not rewrite its title within 20 s"
tr '\0' '\n' < /proc/$pid/environ | grep -q BPRINT_FILE &&
	fail "the program's environment still names its file: the test tests nothing"
"$BPRINT" tail --raw $pid > tail.out 2> tail.err &
tpid=$!
# the TERM once tail follows the program (it printed a record)
wait_until 20 grep -q ' title i=' tail.out || fail "tail PID: no record within 20 s"
kill -TERM $pid
wait $pid || fail "the program: exit $?"
wait $tpid
rc=$?
[ $rc -eq 0 ] && ok "tail PID: ended with the program" || fail "tail PID: exit $rc: $(cat tail.err)"
n=$(grep -c ' title i=' tail.out)
check "tail PID: records followed" "$n" -gt 0
last=$("$BPRINT" report --raw t.dat | grep -c ' title i=')
check "tail PID: every record, to the last" "$n" -eq "$last"
finish
