#!/bin/sh
# The kernel's events read beside the program's records (record --kernel):
# their order, report --kernel=own|all|none, -s kernel:NAME and --where on
# their fields, and --json's typed fields.
#   sh report_kernel.sh BPRINT TRACED WORKDIR
# Skips (77) where it is not root or the kernel has no tracefs.
set -u
BPRINT=$1 TRACED=$2 WORK=$3
KERNEL_LIB=$(cd "$(dirname "$0")" && pwd)/kernel_lib.sh
. "$KERNEL_LIB"

N=40
for clock in tsc mono; do
	"$BPRINT" record -q --kernel --clock=$clock -o p.dat -- "$TRACED" pipe $N || { fail "record ($clock): exit $?"; continue; }
	"$BPRINT" report -n p.dat > own.txt || fail "report ($clock): exit $?"
	# Order: each "before read I" comes before its thread's switch away
	# (prev_state=S) and no wake-up of the thread lies between the two; a
	# wake-up of it follows the switch before the next record (the writer
	# wakes the reads: without it the check could not fail).  A read whose
	# byte came while the thread was kept from its CPU (a loaded machine)
	# does not block: at least half of them must.
	awk -v n=$N '
	function actor(s) { sub(/.*-/, "", s); return s }
	/ pipe_test: before read / { tid = actor($1); i = $NF; seen[i] = 1; state = "record"; next }
	state == "record" && / sched_waking: / && $0 ~ (" pid=" tid " ") { bad["woken before its switch " i] = 1 }
	state == "record" && / sched_switch: / && $0 ~ ("prev_pid=" tid " ") && / prev_state=S / { state = "blocked"; next }
	state == "blocked" && / sched_waking: / && $0 ~ (" pid=" tid " ") { state = "woken"; woken[i] = 1 }
	END {
		for (k = 0; k < n; k++) if (!seen[k]) print "no record before read " k
		for (k = 0; k < n - 1; k++) if (woken[k]) w++; else missing = missing " " k
		if (w < n / 2) print "reads" missing ": no switch away then wake-up after their record"
		for (b in bad) print b
	}' own.txt > order.txt
	[ -s order.txt ] && fail "order ($clock): $(head -5 order.txt)"
done

# own, all, none: none is the program's records alone, own adds the
# events of its process tree, all every event
"$BPRINT" report -n --kernel=all p.dat > all.txt || fail "report --kernel=all: exit $?"
"$BPRINT" report -n --kernel=none p.dat > none.txt || fail "report --kernel=none: exit $?"
prog=$(grep -c ' pipe_test: before read ' all.txt)
[ "$(wc -l < none.txt)" = "$prog" ] || fail "--kernel=none: $(wc -l < none.txt) lines, want the $prog records"
own=$(wc -l < own.txt) all=$(wc -l < all.txt)
[ "$own" -gt "$prog" ] && [ "$all" -gt "$own" ] || fail "--kernel: none $prog, own $own, all $all lines: want increasing"
# every line of own names a thread of the tree: the program's threads and
# the processes it forked (the tree's pids, from all)
awk '
function actor(s) { sub(/.*-/, "", s); return s }
FNR == NR { if ($0 !~ / sched_/) tree[actor($1)] = 1
	    if (/ sched_process_fork: / && match($0, /child_pid=[0-9]+/)) kids[substr($0, RSTART + 10, RLENGTH - 10)] = 1
	    next }
{
	if (!first) { for (k in kids) tree[k] = 1; first = 1 }
	if (actor($1) in tree) next
	ok = 0
	s = $0
	while (match(s, /pid=[0-9]+/)) { if (substr(s, RSTART + 4, RLENGTH - 4) in tree) ok = 1; s = substr(s, RSTART + RLENGTH) }
	if (!ok) print
}' all.txt own.txt > foreign.txt
[ -s foreign.txt ] && fail "--kernel=own shows events of other threads: $(head -3 foreign.txt)"

# -s kernel:NAME and --where on a kernel field, against grep of all
"$BPRINT" report -n --kernel=all -s kernel:sched_switch --where 'prev_state==S' p.dat > s.txt || fail "-s kernel:sched_switch --where: exit $?"
want=$(grep ' sched_switch: ' all.txt | grep -c ' prev_state=S ')
[ "$want" -gt 0 ] && [ "$(wc -l < s.txt)" = "$want" ] || fail "-s kernel:sched_switch --where prev_state==S: $(wc -l < s.txt) lines, want $want"
grep -v ' sched_switch: .* prev_state=S ' s.txt > other.txt
[ -s other.txt ] && fail "-s kernel:sched_switch --where: other lines: $(head -2 other.txt)"

# --json: the fields typed (an integer pid, a string state)
"$BPRINT" report --json -s kernel:sched_switch p.dat | head -1 > j.txt
grep -q '"prev_pid":[0-9][0-9]*,' j.txt && grep -q '"prev_state":"[A-Z+]*"' j.txt ||
	fail "--json of a sched_switch: $(cat j.txt)"

[ $fails = 0 ] && echo "kernel events: in order with the records, chosen by --kernel, -s and --where"
[ $fails = 0 ]
