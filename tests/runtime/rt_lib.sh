# Shared by the runtime_*.sh tests: sh runtime_X.sh BPRINT PROGRAM WORKDIR [ARGS...]
set -u
BPRINT=$1
PROG=$2
WORK=$3
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK" || exit 1
unset BPRINT_FILE BPRINT_BUFFER_SIZE BPRINT_PAGE_SIZE BPRINT_MODE BPRINT_CLOCK \
	BPRINT_DUMP BPRINT_FILTER BPRINT_DISABLE BPRINT_RETAIN BPRINT_RECORD_PID

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
