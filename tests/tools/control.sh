# tool_control: a running program's call sites switched from outside
# (docs/attach.md, "Switching call sites"): bprint disable, enable and
# sites on a program started with no bprint variable while 4 threads call
# a C++ template's site, a runtime-format site and a plain one in a loop.
# The records say when each site was on: per thread, a switched site's
# seqs are those of the site left on (beat) but for one run, the time it
# was off, and the counts `bprint sites` gave before, between and after
# the switches are the records before, inside and after that run.  The
# program's own stderr must stay empty (a TSan build: no report).
# Then the refusals, each one line and its own exit status.
#
#   sh control.sh BPRINT CONTROL_TRACED ATTACH_TRACED WORKDIR [SANITIZERS]
set -u
BPRINT=$1
TRACED=$2
ATTACH_TRACED=$3
WORK=$4
SANITIZE=${5:-}
ATTACH_LIB=$(cd "$(dirname "$0")" && pwd)
. "$ATTACH_LIB/attach_lib.sh"

# sites_count FILE WHAT: the RECORDS of the sites whose function is WHAT (a
# runtime-format site: its call site and the formats it traced)
sites_count() { awk -v f="$2" '$5 == f { n += $3 } END { print n + 0 }' "$1"; }
sites_state() { awk -v f="$2" '$5 == f { print $2; exit }' "$1"; }

# refused STATUS WHAT WORDS CMD...: CMD exits STATUS with one line holding WORDS
refused() {
	want=$1 what=$2 words=$3
	shift 3
	"$@" > refused.out 2> refused.err
	rc=$?
	if [ $rc -ne "$want" ]; then
		fail "$what: exit $rc, want $want"; cat refused.err
	elif [ "$(wc -l < refused.err)" -ne 1 ] || ! grep -q "$words" refused.err; then
		fail "$what: not one line with '$words':"; cat refused.err
	else
		ok "$what: exit $want, $(cat refused.err)"
	fi
}

"$TRACED" 4 1000 t.ready > t.out 2> t.err &
tpid=$!
pids="$pids $tpid"
wait_ready t.ready || exit 1

"$BPRINT" sites $tpid > s0.txt || fail "sites: exit $?"
for f in beat 'spin<int>' dyn; do
	[ "$(sites_state s0.txt "$f")" = on ] || fail "sites: $f not on at first"
done
[ "$(sites_count s0.txt 'spin<int>')" -gt 0 ] 2>/dev/null && ok "sites: every site on, spin counted" ||
	{ fail "sites: no spin records"; cat s0.txt; }

# off: the template site by its name and template arguments, the
# runtime-format site by its line
"$BPRINT" disable $tpid 'spin<int>' > d1.out || fail "disable spin: exit $?"
"$BPRINT" disable $tpid 'line:control_traced.cpp:40' > d2.out || fail "disable dyn: exit $?"
grep -q ': 1 site disabled$' d1.out && grep -q ': 1 site disabled$' d2.out &&
	ok "disable: one site each" || fail "disable: $(cat d1.out d2.out)"
sleep 0.1	# a call that loaded the byte before the switch has committed by now
"$BPRINT" sites $tpid > s1.txt || fail "sites: exit $?"
sleep 0.4
"$BPRINT" sites $tpid > s2.txt || fail "sites: exit $?"
for f in 'spin<int>' dyn; do
	[ "$(sites_state s1.txt "$f")" = off ] || fail "sites: $f not off after disable"
	c1=$(sites_count s1.txt "$f") c2=$(sites_count s2.txt "$f")
	[ "$c1" = "$c2" ] && ok "between: $f off, no record ($c1 then $c2)" ||
		fail "between: $f records grew from $c1 to $c2 while off"
done
[ "$(sites_count s2.txt beat)" -gt "$(sites_count s1.txt beat)" ] ||
	fail "between: beat did not go on"

# on again: the template by its own name, the runtime-format site by function
"$BPRINT" enable $tpid 'func:spin' > e1.out || fail "enable spin: exit $?"
"$BPRINT" enable $tpid 'dyn' > e2.out || fail "enable dyn: exit $?"
grep -q ': 1 site enabled$' e1.out && grep -q ': 1 site enabled$' e2.out &&
	ok "enable: one site each" || fail "enable: $(cat e1.out e2.out)"
sleep 0.3
"$BPRINT" sites $tpid > s3.txt || fail "sites: exit $?"
[ "$(sites_state s3.txt 'spin<int>')" = on ] || fail "sites: spin not on after enable"
"$BPRINT" snapshot -q -o snap.dat $tpid || fail "snapshot: exit $?"
"$BPRINT" report -m snap.dat > snap.msg || fail "report: exit $?"

# per thread: beat has every seq; spin and dyn all but one run (the off
# time), and the records before the run are what sites counted then
for f in spin dyn; do
	c1=$(sites_count s1.txt "$([ $f = spin ] && echo 'spin<int>' || echo dyn)")
	awk -v f=$f -v c1="$c1" '
	$1 == "beat" { beat[$3, $5] = 1; last[$3] = $5; n[$3] = 1 }
	$1 == f { got[$3, $5] = 1 }
	END {
		for (t in n) {
			runs = 0; off = 0; gap = 0
			for (s = 0; s <= last[t]; s++) {
				if (!beat[t, s]) { print "thread " t ": beat lost seq " s; exit 1 }
				if (!got[t, s] && !gap) { runs++; gap = 1 }
				if (got[t, s]) { if (!runs) before++; gap = 0 }
				if (!got[t, s]) off++
			}
			# the last few seqs may be past the snapshot: a run at the end is not one
			if (runs != 1 && !(runs == 2 && !got[t, last[t]])) {
				print "thread " t ": " runs " runs off"; exit 1
			}
			if (!off) { print "thread " t ": never off"; exit 1 }
		}
		if (!length(n) || !c1) { print "no records"; exit 1 }
		if (before != c1) { print "records before the switch: " before ", sites said " c1; exit 1 }
	}' snap.msg > $f.check && ok "$f: off in one run per thread, $c1 records before it" ||
		fail "$f: $(cat $f.check)"
done

# ---- refusals ------------------------------------------------------------
refused 1 "bad pattern" "expected file:GLOB" "$BPRINT" disable $tpid 'nope:x'
refused 5 "no such process" "no such process" "$BPRINT" enable 999999999 'x'
sleep 30 &
spid=$!
pids="$pids $spid"
refused 7 "no libbprint" "no bprint trace" "$BPRINT" sites $spid
kill $spid
if [ "$(id -u)" -eq 0 ] && command -v setpriv > /dev/null; then
	for cmd in "disable $tpid beat" "enable $tpid beat" "sites $tpid"; do
		# shellcheck disable=SC2086
		refused 6 "another user: ${cmd%% *}" "the kernel's ptrace access rule" \
			setpriv --reuid nobody --regid nogroup --clear-groups "$BPRINT" $cmd
	done
	"$BPRINT" sites $tpid > s4.txt
	sleep 0.2
	"$BPRINT" sites $tpid > s5.txt
	[ "$(sites_state s5.txt beat)" = on ] &&
		[ "$(sites_count s5.txt beat)" -gt "$(sites_count s4.txt beat)" ] &&
		ok "another user: the target untouched, tracing" || fail "another user: beat stopped"
else
	echo "skip: another user (needs root and setpriv)"
fi

kill -TERM $tpid
wait $tpid; rc=$?
[ $rc -eq 0 ] && [ ! -s t.err ] && ok "the program ran on and ended cleanly" ||
	{ fail "the program: exit $rc"; head -40 t.err; }

# ---- a fork child is switched by its own PID -----------------------------
# (not under TSan: a fork child of a TSan build starts no control thread)
case $SANITIZE in *thread*)
	echo "skip: fork (a TSan build)"
	[ "$fails" -eq 0 ] && { echo "all passed"; exit 0; }
	echo "$fails failure(s)"; exit 1 ;;
esac
# Until its first record the child has no file of its own: disable says
# so (and not that its libbprint cannot switch sites), and so does sites.
"$ATTACH_TRACED" fork fork.ready fork.hold &
fpid=$!
pids="$pids $fpid"
wait_ready fork.ready || exit 1
read -r parent child < fork.ready
pids="$pids $child"
refused 7 "fork child before its first record" "forked from $parent and has no trace of its own yet" \
	"$BPRINT" disable "$child" 'fmt:child*'
refused 7 "fork child before its first record: sites" "a fork child's is made when it first traces" \
	"$BPRINT" sites "$child"
refused 2 "fork child before its first record: tail" "forked from $parent and has no trace of its own yet" \
	"$BPRINT" tail "$child"
# Then it traces: its control thread serves once the first record has
# made its file, and disable says it does not serve yet until then (a
# slow start, a sanitizer's build on a busy machine).  Asked again while
# it says one of the two.
touch fork.hold
child_switched() {
	"$BPRINT" disable "$child" 'fmt:child*' > fc.out 2>&1 ||
		! grep -q -e 'has no trace of its own yet' -e 'does not serve yet' fc.out
}
if ! wait_until 20 child_switched; then
	fail "fork: the child not switchable within 20 s: $(cat fc.out)"
elif grep -q ': 1 site disabled' fc.out &&
	"$BPRINT" sites "$parent" > fp.txt && grep -q 'on .*"parent seq' fp.txt; then
	ok "fork: the child switched by its own PID, the parent left alone"
else
	fail "fork: $(cat fc.out)"; cat fp.txt
fi
kill $fpid $child 2>/dev/null

if [ "$fails" -ne 0 ]; then
	echo "$fails failure(s)"
	exit 1
fi
echo "all passed"
