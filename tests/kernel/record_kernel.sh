#!/bin/sh
# bprint record --kernel: the tracefs instance is made, read and removed
# (at exit, after a signal, and, left by a recorder killed with SIGKILL,
# at the next start); without privileges or with an event the kernel
# lacks, one line, exit 1, before the program starts, no instance left.
#   sh record_kernel.sh BPRINT TRACED WORKDIR
# Skips (77) where it is not root or the kernel has no tracefs.
set -u
BPRINT=$1 TRACED=$2 WORK=$3
KERNEL_LIB=$(cd "$(dirname "$0")" && pwd)/kernel_lib.sh
. "$KERNEL_LIB"
chmod 755 "$WORK"

# the instances left behind: those of recorders that are gone (a recorder
# of another run, alive, keeps its own)
ours() {
	for i in $(ls $TRACING/instances | grep '^bprint-[0-9]*$'); do
		kill -0 "${i#bprint-}" 2> /dev/null || echo "$i"
	done
}
before=$(ours)

# 1. a recording: kernel events in the file, the instance gone at exit
"$BPRINT" record --kernel -o k.dat -- "$TRACED" sleep 50 2> rec.err || fail "record --kernel: exit $?: $(cat rec.err)"
grep -q "kernel: .* pages from" rec.err || fail "no kernel line in the summary: $(cat rec.err)"
[ "$(ours)" = "$before" ] || fail "instance left after a recording: $(ours)"
"$BPRINT" stats k.dat > stats.txt || fail "stats: exit $?"
grep -q 'kernel/sched:0 sched_switch' stats.txt || fail "no sched_switch site: $(cat stats.txt)"
grep -q ' kernel/cpu0 ' stats.txt || fail "no kernel cpu0 source: $(cat stats.txt)"

# 2. a missing event: one line, exit 1, the program not run, nothing left
"$BPRINT" record --kernel=sched:no_such_event -o m.dat -- sh -c 'touch ran' 2> miss.err
rc=$?
[ $rc = 1 ] || fail "missing event: exit $rc, want 1"
[ "$(wc -l < miss.err)" = 1 ] && grep -q 'no event sched:no_such_event' miss.err ||
	fail "missing event: want one line naming it: $(cat miss.err)"
[ -e ran ] && fail "missing event: the program ran"
[ "$(ours)" = "$before" ] || fail "instance left after a missing event: $(ours)"

# 3. without privileges: one line, exit 1, the program not run
if command -v setpriv > /dev/null; then
	rm -f ran
	# a directory anyone may write to, so that only the kernel refuses
	mkdir -p open && chmod 1777 open
	setpriv --reuid nobody --regid nogroup --clear-groups \
		"$BPRINT" record --kernel -o open/p.dat -- sh -c 'touch ran' 2> priv.err
	rc=$?
	[ $rc = 1 ] || fail "without privileges: exit $rc, want 1"
	[ "$(wc -l < priv.err)" = 1 ] && grep -q 'root' priv.err ||
		fail "without privileges: want one line saying root: $(cat priv.err)"
	[ -e ran ] && fail "without privileges: the program ran"
	[ "$(ours)" = "$before" ] || fail "instance left without privileges: $(ours)"
else
	echo "note: no setpriv, the privilege case is not checked"
fi

# 4. SIGTERM to the recorder: passed on, the file finished, the instance gone
"$BPRINT" record --kernel -o t.dat -- "$TRACED" sleep 5000 2> term.err &
rec=$!
wait_until 5 test -d $TRACING/instances/bprint-$rec
sleep 0.3
kill -TERM $rec
wait $rec
[ -d $TRACING/instances/bprint-$rec ] && fail "SIGTERM: instance bprint-$rec left"
"$BPRINT" report t.dat > /dev/null || fail "SIGTERM: report of the file: exit $?"

# 5. kill -9: the instance stays; the next record --kernel removes it
"$BPRINT" record --kernel -o k9.dat -- "$TRACED" sleep 5000 2> k9.err &
rec=$!
wait_until 5 test -d $TRACING/instances/bprint-$rec
[ -d $TRACING/instances/bprint-$rec ] || fail "kill -9: no instance bprint-$rec while recording"
kill -KILL $rec
wait $rec 2> /dev/null
[ -d $TRACING/instances/bprint-$rec ] || fail "kill -9: the instance went away by itself (the test tests nothing)"
"$BPRINT" record --kernel -o next.dat -- "$TRACED" sleep 10 2> next.err || fail "the next record: exit $?"
grep -q "removed tracefs instance bprint-$rec " next.err || fail "the next record did not say it removed bprint-$rec: $(cat next.err)"
[ -d $TRACING/instances/bprint-$rec ] && { fail "kill -9: bprint-$rec still there"; rmdir $TRACING/instances/bprint-$rec; }
[ -z "$(ours)" ] || fail "instances left: $(ours)"

# 6. a clock without a kernel counterpart is refused before anything starts
"$BPRINT" record --kernel --clock=counter -o c.dat -- sh -c 'touch ran' 2> clock.err
rc=$?
[ $rc = 1 ] || fail "--clock=counter: exit $rc, want 1"
grep -q 'counter' clock.err || fail "--clock=counter: $(cat clock.err)"

[ $fails = 0 ] && echo "record --kernel: instance made, read and removed in every case"
[ $fails = 0 ]
