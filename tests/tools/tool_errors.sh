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
# Files no reader may block or crawl on: a FIFO (open would block), a
# device, a directory, and 10 GB of hole after a valid header (one read per
# 4 KiB would take minutes).  Every reader command answers within the
# timeout, with one line and exit status 2.
mkfifo fifo.dat
head -c 4096 good.dat > sparse.dat
truncate -s 10G sparse.dat || fail "truncate -s 10G"
sparse_why="damaged: no chunk in its last $(($(stat -c %s sparse.dat) - $(stat -c %s good.dat))) bytes, a hole past the header's end"
for sub in report formats stats tail "export -q -f chrome"; do
	# shellcheck disable=SC2086
	expect 2 "bprint: fifo.dat: is a FIFO, not a trace file" timeout 20 "$BPRINT" $sub fifo.dat
	expect 2 "bprint: /dev/null: is a device, not a trace file" timeout 20 "$BPRINT" $sub /dev/null
	expect 2 "bprint: adir: is a directory, not a trace file" timeout 20 "$BPRINT" $sub adir
	[ "$sub" = tail ] && continue
	# what could be read is printed: stdout is allowed here
	# shellcheck disable=SC2086
	timeout 20 "$BPRINT" $sub sparse.dat > out 2> err; rc=$?
	[ $rc -eq 2 ] || fail "$sub sparse.dat: exit $rc, want 2"
	printf 'bprint: sparse.dat: %s\n' "$sparse_why" > want.err
	same want.err err "$sub sparse.dat: message"
done
# tail follows a file until interrupted: each of its polls must be quick
timeout --preserve-status -s INT -k 20 3 "$BPRINT" tail sparse.dat > out 2> err; rc=$?
[ $rc -eq 2 ] || fail "tail sparse.dat: exit $rc, want 2 (after SIGINT at 3 s)"
printf 'bprint: sparse.dat: %s\n' "$sparse_why" > want.err
same want.err err "tail sparse.dat: message"
# the records before or after a hole are still read, in bounded time
cp good.dat hole-after.dat && truncate -s 10G hole-after.dat
head -c 4096 good.dat > hole-before.dat
dd if=good.dat of=hole-before.dat bs=4096 skip=1 seek=2621440 2>/dev/null
"$BPRINT" report --raw good.dat > good.raw 2>/dev/null
for f in hole-after.dat hole-before.dat; do
	timeout 20 "$BPRINT" report --raw $f > hole.raw 2>/dev/null
	[ $? -eq 124 ] && fail "report $f: timed out"
	same good.raw hole.raw "report $f: the records around the hole"
done
# a pages chunk that claims 10 GB of pages, all hole: skipped, not read page by page
le() {	# le VALUE BYTES: VALUE as BYTES little-endian bytes
	n=$1 i=0
	while [ $i -lt "$2" ]; do
		printf "\\$(printf %03o $((n & 255)))"
		n=$((n >> 8)) i=$((i + 1))
	done
}
npages=2621000
csize=$(( (128 + npages * 4096 + 4095) / 4096 * 4096 ))
cp good.dat hole-pages.dat
{ printf BPCK; le 4 4; le $csize 8; le 1 4; le 0 4; le 99 8	# chunk: pages, complete
  le 4242 4; le 0 4; printf 'hole\000\000\000\000\000\000\000\000\000\000\000\000'
  le 99 8; le 4096 4; le $npages 4; le 0 8; le 0 8; } > chunk.bin
dd if=chunk.bin of=hole-pages.dat bs=4096 seek=$(($(stat -c %s good.dat) / 4096)) conv=notrunc \
	2>/dev/null
truncate -s $(($(stat -c %s good.dat) + csize)) hole-pages.dat
# (a stream's chunk in a live file: the file says it is damaged, exit 2,
# and what it holds is read all the same)
timeout 20 "$BPRINT" stats hole-pages.dat > out 2>/dev/null
[ $? -eq 2 ] || fail "stats hole-pages.dat: timed out, or not said damaged"
grep -q '^ *4242 ' out || fail "stats hole-pages.dat: no line for the thread of the hole"
timeout 20 "$BPRINT" report --raw hole-pages.dat > hole.raw 2>/dev/null
[ $? -eq 2 ] || fail "report hole-pages.dat: timed out, or not said damaged"
same good.raw hole.raw "report hole-pages.dat: the records beside the hole"
rm -f sparse.dat hole-after.dat hole-before.dat hole-pages.dat

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

# export never writes over the trace it reads, by its name or another
cp good.dat keep.dat
ln -s keep.dat keep.link
sum_before=$(cksum < keep.dat)
for f in chrome perfetto trace-cmd; do
	expect 1 "bprint export: 'keep.dat' is the trace being exported: give another -o
Try 'bprint export --help'." "$BPRINT" export -q -f $f -o keep.dat keep.dat
	expect 1 "" "$BPRINT" export -q -f $f -o ./keep.dat keep.link
done
[ "$(cksum < keep.dat)" = "$sum_before" ] || fail "export changed its input"
"$BPRINT" report keep.dat > /dev/null || fail "the input no longer reads"

# the command itself never traces into BPRINT_FILE
BPRINT_FILE=self.dat "$BPRINT" formats good.dat > /dev/null
[ -e self.dat ] && fail "bprint wrote BPRINT_FILE itself"
finish
