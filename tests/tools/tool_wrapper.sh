# tool_wrapper: `bprint record` as people use it.  A wrapper as COMMAND
# (sh -c 'prog; prog', a ./script.sh that runs two) leaves one readable file
# per traced program: the first in FILE, the other in FILE.PID, nothing in
# FILE.live; the summary names both, and `report FILE` says the other one is
# beside it.  COMMAND's exit status passes through (exit 5; 128+11 for
# SIGSEGV).  `help nosuch` and `report --site` of no site fail with exit 1.
. "$(dirname "$0")/tool_lib.sh"

# two_files NAME: NAME and one NAME.PID, 3 records each, nothing else left
two_files() {
	[ -e "$1.live" ] && fail "$1: a live file was left behind"
	ls "$1".live.* > /dev/null 2>&1 && fail "$1: a live file was left behind"
	"$BPRINT" report --msg-only "$1" > "$1.msg" 2> "$1.err"; rc=$?
	[ $rc -eq 0 ] || fail "$1: report exit $rc ($(cat "$1.err"))"
	[ "$(wc -l < "$1.msg")" -eq 3 ] || fail "$1: $(wc -l < "$1.msg") records, want 3"
	set -- "$1" "$(ls "$1".[0-9]* 2> /dev/null)"
	[ "$(printf '%s\n' "$2" | grep -c .)" -eq 1 ] || { fail "$1: siblings '$2', want one"; return; }
	"$BPRINT" report --msg-only "$2" > sib.msg || fail "$2: report"
	[ "$(wc -l < sib.msg)" -eq 3 ] || fail "$2: $(wc -l < sib.msg) records, want 3"
	grep -q "$2" "$1.rec" || fail "$1: the summary does not name $2: $(cat "$1.rec")"
	grep -q "^bprint: $1, " "$1.rec" || fail "$1: the summary does not name it: $(cat "$1.rec")"
	[ "$(wc -l < "$1.err")" -eq 1 ] && grep -q "^bprint: $1: beside it, .*$2" "$1.err" ||
		fail "$1: report does not say $2 is beside it: $(cat "$1.err")"
}

prog="$TRACED --threads 0 --records 3"
"$BPRINT" record -o s.dat -- sh -c "$prog; $prog" > /dev/null 2> s.dat.rec; rc=$?
[ $rc -eq 0 ] || fail "sh -c 'prog; prog': exit $rc ($(cat s.dat.rec))"
two_files s.dat

printf '#!/bin/sh\n%s\n%s\n' "$prog" "$prog" > script.sh
chmod +x script.sh
"$BPRINT" record -o w.dat -- ./script.sh > /dev/null 2> w.dat.rec; rc=$?
[ $rc -eq 0 ] || fail "./script.sh: exit $rc ($(cat w.dat.rec))"
two_files w.dat

# a lone program: its file only, no note from report
"$BPRINT" record -q -o one.dat -- $prog > /dev/null || fail "record of one program"
"$BPRINT" report one.dat > /dev/null 2> one.err || fail "report of one program"
[ -s one.err ] && fail "report of a lone file said: $(cat one.err)"

# COMMAND's exit status
"$BPRINT" record -q -o e.dat -- sh -c "$prog; exit 5" > /dev/null; rc=$?
[ $rc -eq 5 ] || fail "exit 5: record exit $rc"
"$BPRINT" report e.dat > /dev/null || fail "exit 5: the trace"
"$BPRINT" record -q -o g.dat -- sh -c "$prog; kill -SEGV \$\$" > /dev/null; rc=$?
[ $rc -eq 139 ] || fail "SIGSEGV: record exit $rc, want 139"
"$BPRINT" report g.dat > /dev/null || fail "SIGSEGV: the trace"
"$BPRINT" record -q -o z.dat -- $prog > /dev/null; rc=$?
[ $rc -eq 0 ] || fail "exit 0: record exit $rc"

# unknown help topic and sites
"$BPRINT" help nosuch > out 2> err; rc=$?
[ $rc -eq 1 ] || fail "help nosuch: exit $rc"
[ -s out ] && fail "help nosuch: printed on stdout"
grep -q "nosuch" err || fail "help nosuch: says $(cat err)"
for s in 99 nosuch; do
	"$BPRINT" report --site $s one.dat > out 2> err; rc=$?
	[ $rc -eq 1 ] || fail "report --site $s: exit $rc"
	grep -q -- "--site $s: no such site" err || fail "report --site $s: says $(cat err)"
done
"$BPRINT" report --msg-only --site trace_one one.dat > out || fail "report --site of a site"
[ "$(wc -l < out)" -eq 3 ] || fail "report --site of a site: $(wc -l < out) records"
finish
