# The one shell library of the tests (POSIX sh: ctest runs them with sh): sourced by tests/tools/tool_lib.sh,
# tests/runtime/rt_lib.sh and every script that needs a clean environment.
#
#   bp_env_reset   unset every BPRINT_* variable but the suite's own
#                  BPRINT_TEST_*, so that no test inherits a setting from
#                  the shell or from another test (a variable added to the
#                  library later is covered without editing a list)
#   fail, ok, finish, same, check, scale, value, wait_until   (below)
set -u

bp_env_reset() {
	for bp_var in $(env | sed -n 's/^\(BPRINT_[A-Za-z0-9_]*\)=.*/\1/p'); do
		case $bp_var in
		BPRINT_TEST_*) ;;
		*) unset "$bp_var" ;;
		esac
	done
	unset bp_var
}

fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
ok() {
	echo "ok: $*"
}
finish() {
	if [ "$fails" -ne 0 ]; then
		echo "$fails failure(s)"
		exit 1
	fi
	echo "all passed"
	exit 0
}
# same FILE1 FILE2 WHAT: identical, else show the first differences
same() {
	if cmp -s "$1" "$2"; then
		ok "$3"
	else
		fail "$3 ($1 vs $2)"
		diff "$1" "$2" | head -20
	fi
}
# check WHAT A OP B: a numeric comparison, both values shown
check() {
	if [ "$2" "$3" "$4" ]; then
		ok "$1 ($2 $3 $4)"
	else
		fail "$1 ($2 $3 $4 does not hold)"
	fi
}
# scale N: N, 10x fewer with BPRINT_TEST_QUICK=1, 10x more with BPRINT_TEST_LONG=1
scale() {
	if [ "${BPRINT_TEST_LONG:-0}" = 1 ]; then
		echo $(($1 * 10))
	elif [ "${BPRINT_TEST_QUICK:-0}" = 1 ]; then
		echo $(($1 / 10))
	else
		echo "$1"
	fi
}
# value KEY FILE: the number after KEY on its line of FILE
value() {
	awk -v k="$1" '$1 == k { print $2; exit }' "$2"
}
# wait_until SECONDS COMMAND...: run COMMAND every 10 ms until it succeeds
# (0) or SECONDS (whole seconds, wall clock) have passed (1: the caller
# fails with its own words).  COMMAND runs at least once; for a negation
# or a pipe, it is a function of the test's own.  Redirections of the call
# cover every run (2> /dev/null: a file not there yet).
wait_until() {
	bp_now_cs
	bp_end=$((bp_cs + $1 * 100))
	shift
	until "$@"; do
		bp_now_cs
		[ "$bp_cs" -lt "$bp_end" ] || return 1
		sleep 0.01
	done
}
# bp_now_cs: bp_cs, the time since boot in centiseconds (/proc/uptime; no fork)
bp_now_cs() {
	read -r bp_up bp_idle < /proc/uptime
	bp_frac=${bp_up#*.}
	bp_cs=$((${bp_up%.*} * 100 + ${bp_frac#0}))
}
