# tool_stats: the per-thread counters of `bprint stats FILE` equal those
# the traced program got from bprint_stats() after consuming its whole
# trace (so that its overwritten and read are exact too), in overwrite mode
# with rings that wrapped and in discard mode with rings that filled; the
# per-site counts add up to the records read.
. "$(dirname "$0")/tool_lib.sh"

check() {	# name, environment...
	name=$1; shift
	rm -f "$name.dat"
	env "$@" BPRINT_FILE="$name.dat" "$TRACED" --threads 3 --records 2500 --timer 200 \
		--stats "$name.want" || fail "$name: traced failed"
	"$BPRINT" stats "$name.dat" > "$name.out"; rc=$?
	[ $rc -eq 0 ] || fail "$name: stats exit $rc"
	# thread lines: TID COMM WRITTEN OVERWRITTEN DISCARDED READ
	awk '/^# threads/ { t = 1; getline; next } t { print $1, $3, $4, $5, $6 }' "$name.out" |
		sort > "$name.got"
	sort "$name.want" > "$name.want.sorted"
	same "$name.want.sorted" "$name.got" "$name: per-thread written/overwritten/discarded/read"
	[ "$(wc -l < "$name.got")" -eq 4 ] || fail "$name: expected 4 threads"
	# read + overwritten + discarded = written
	awk '$2 != $3 + $4 + $5 { bad = 1 } END { exit bad }' "$name.got" ||
		fail "$name: counters do not add up"
	# site counts sum to the records
	total=$(sed -n 's/^# records: \([0-9]*\).*/\1/p' "$name.out")
	sites=$(awk '/^# sites/ { s = 1; getline; next } /^#/ { s = 0 } s { n += $2 } END { print n + 0 }' "$name.out")
	[ "$total" = "$sites" ] || fail "$name: sites sum $sites, records $total"
	reads=$(awk '{ n += $5 } END { print n + 0 }' "$name.got")
	[ "$total" = "$reads" ] || fail "$name: records $total, read $reads"
	cat "$name.out"
}

check overwrite BPRINT_BUFFER_SIZE=8K BPRINT_PAGE_SIZE=1K BPRINT_MODE=overwrite
awk '{ n += $3 } END { exit !(n > 0) }' overwrite.got || fail "overwrite: nothing overwritten"
check discard BPRINT_BUFFER_SIZE=8K BPRINT_PAGE_SIZE=1K BPRINT_MODE=discard
awk '{ n += $4 } END { exit !(n > 0) }' discard.got || fail "discard: nothing discarded"
check roomy BPRINT_BUFFER_SIZE=4M
finish
