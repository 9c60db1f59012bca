# Shared by the tool_*.sh tests: sh tool_X.sh BPRINT TRACED WORKDIR SRCDIR
set -u
BPRINT=$1
TRACED=$2
WORK=$3
SRC=$4
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK" || exit 1
unset BPRINT_FILE BPRINT_BUFFER_SIZE BPRINT_PAGE_SIZE BPRINT_MODE BPRINT_CLOCK \
	BPRINT_DUMP BPRINT_FILTER BPRINT_DISABLE

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
