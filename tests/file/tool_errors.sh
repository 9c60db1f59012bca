# tool_errors: files that are not readable traces give exit status 2 and
# exactly one line "bprint: FILE: reason"; bad command lines give 1; every
# --help gives 0.
. "$(dirname "$0")/tool_lib.sh"

expect() {	# want-status, want-stderr, command...
	st=$1; msg=$2; shift 2
	"$@" > out 2> err; rc=$?
	[ $rc -eq "$st" ] || fail "$*: exit $rc, want $st"
	if [ -n "$msg" ]; then
		printf '%s\n' "$msg" > want.err
		same want.err err "$*: message"
	fi
	[ -s out ] && [ "$st" -ne 0 ] && fail "$*: printed on stdout"
	return 0
}

BPRINT_FILE=good.dat "$TRACED" --threads 0 --records 10 || fail "traced failed"
: > empty.dat
printf 'hello\nthis is text\n' > text.dat
head -c 100 good.dat > short.dat
cp good.dat newer.dat
printf '\002\000\000\000' | dd of=newer.dat bs=1 seek=8 conv=notrunc 2>/dev/null	# major 2, minor 0
cp good.dat bigend.dat
printf '\002' | dd of=bigend.dat bs=1 seek=12 conv=notrunc 2>/dev/null
mkdir adir

for sub in report formats stats; do
	expect 2 "bprint: none.dat: No such file or directory" "$BPRINT" $sub none.dat
	expect 2 "bprint: empty.dat: not a bprint trace file" "$BPRINT" $sub empty.dat
	expect 2 "bprint: text.dat: not a bprint trace file" "$BPRINT" $sub text.dat
	expect 2 "bprint: short.dat: truncated header" "$BPRINT" $sub short.dat
	expect 2 "bprint: newer.dat: written by a newer bprint (format 2.0); this bprint reads 1.x" \
		"$BPRINT" $sub newer.dat
	expect 2 "bprint: bigend.dat: byte order not supported" "$BPRINT" $sub bigend.dat
	expect 2 "bprint: adir: Is a directory" "$BPRINT" $sub adir
	expect 0 "" "$BPRINT" $sub good.dat
	expect 0 "" "$BPRINT" $sub --help
done
expect 2 "bprint: newer.dat: written by a newer bprint (format 2.0); this bprint reads 1.x" \
	"$BPRINT" tail newer.dat
expect 2 "bprint: none.dat: No such file or directory" "$BPRINT" tail none.dat
expect 2 "bprint: 999999999: no such process" "$BPRINT" tail 999999999
sleep 5 & spid=$!
expect 2 "bprint: $spid: process has no BPRINT_FILE in its environment" "$BPRINT" tail $spid
kill $spid
# the default file is bprint.dat
expect 2 "bprint: bprint.dat: No such file or directory" "$BPRINT" report

# usage errors
expect 1 "" "$BPRINT"
expect 1 "" "$BPRINT" frobnicate
expect 1 "" "$BPRINT" report --bogus good.dat
expect 1 "" "$BPRINT" report good.dat extra
expect 1 "" "$BPRINT" report --tid
expect 1 "" "$BPRINT" report --tid x good.dat
expect 1 "" "$BPRINT" report --from yesterday good.dat
expect 1 "" "$BPRINT" formats
expect 1 "" "$BPRINT" stats
expect 1 "" "$BPRINT" tail
expect 1 "" "$BPRINT" record
expect 1 "" "$BPRINT" record --mode sideways -- true
expect 1 "" "$BPRINT" record --clock sundial -- true
expect 1 "" "$BPRINT" record --buffer-size lots -- true
for sub in tail record; do
	expect 0 "" "$BPRINT" $sub --help
done
expect 0 "" "$BPRINT" --help
expect 0 "" "$BPRINT" help report
expect 0 "" "$BPRINT" --version
grep -q '^bprint [0-9]' out || fail "--version output"

# record will not overwrite a file that is not a trace
expect 2 "bprint: text.dat: exists and is not a bprint trace file (not replaced)" \
	"$BPRINT" record -q -o text.dat -- true

# the command itself never traces into BPRINT_FILE
BPRINT_FILE=self.dat "$BPRINT" formats good.dat > /dev/null
[ -e self.dat ] && fail "bprint wrote BPRINT_FILE itself"
finish
