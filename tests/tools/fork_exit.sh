#!/bin/sh
# A forked child's trace (FILE.PID) that ends with _exit() is not closed:
# readers say the process ended without exit(), not that it may still be
# running; while a child still runs, they say it is running.  And bprint
# tail of bprint record's PID names the process it records.
#   sh fork_exit.sh BPRINT TRACED WORKDIR
set -u
BPRINT=$1 TRACED=$2 WORK=$3
. "$(dirname "$0")/../lib.sh"
bp_env_reset
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
fails=0

BPRINT_FILE=t.dat "$TRACED" || { echo "FAIL: the traced program"; exit 1; }
set -- t.dat.*
[ $# -eq 1 ] && [ -f "$1" ] || { echo "FAIL: no FILE.PID of the child: $*"; exit 1; }
"$BPRINT" report -n "$1" > child.txt 2> child.err
grep -q "child 2" child.txt && grep -q "the process ended without exit(): _exit()" child.err &&
	! grep -q "still running" child.err ||
	{ echo "FAIL: the _exit() child's trace: $(cat child.err)"; fails=1; }
[ $fails -eq 0 ] && echo "ok: an _exit() child's trace: 'ended without exit()'"

# a child still running: "still running"
rm -f w.dat*
mkfifo in
BPRINT_FILE=w.dat "$TRACED" wait < in > pid.txt &
exec 3> in
wait_until 10 test -s pid.txt
pid=$(cat pid.txt)
"$BPRINT" report -n "w.dat.$pid" > running.txt 2> running.err
exec 3>&-
wait
grep -q "waiting child 3" running.txt && grep -q "the process is still running" running.err ||
	{ echo "FAIL: a running child's trace: $(cat running.err)"; fails=1; }
[ $fails -eq 0 ] && echo "ok: a running child's trace: 'still running'"
# bprint tail of bprint record's PID names the process it records
"$BPRINT" record -q -o r.dat -- sleep 30 2> /dev/null &
rec=$!
child=
started() {	# the recorder's child, in $child, once it runs sleep: forked
	# but not yet exec'd, it is a copy of bprint, with no BPRINT_FILE
	child=$(cat /proc/$rec/task/$rec/children 2> /dev/null | tr -d ' ')
	[ -n "$child" ] && [ "$(cat /proc/$child/comm 2> /dev/null)" = sleep ]
}
wait_until 10 started
"$BPRINT" tail "$rec" > /dev/null 2> rec.err
rc=$?
kill "$child" 2> /dev/null
wait
[ $rc -eq 2 ] && grep -q "it runs $child (sleep), which traces: follow it with bprint tail $child" rec.err ||
	{ echo "FAIL: bprint tail of the recorder (exit $rc): $(cat rec.err)"; fails=1; }
[ $fails -eq 0 ] && echo "ok: bprint tail of bprint record's PID names the process it records"
exit $fails
