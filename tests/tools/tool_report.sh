# tool_report: `bprint report FILE` prints what the traced program's own
# bprint_dump() printed, line for line, in all three forms; filters select
# exactly the lines they should.  The counters line of the header may differ
# ("lost" counts overwritten records the process's dump does not know of),
# so it is compared separately.
. "$(dirname "$0")/tool_lib.sh"

# counter clock: a total order, so merging ties cannot differ; a timer
# signal gives nested rings; a small buffer makes the rings wrap.
run_case() {	# name, environment..., -- traced options...
	name=$1; shift
	env_args=""
	while [ "$1" != "--" ]; do env_args="$env_args $1"; shift; done
	shift
	rm -f "$name.dat"
	env $env_args BPRINT_FILE="$name.dat" "$TRACED" --dump "$name.dump" \
		--dump-raw "$name.raw" --dump-msg "$name.msg" "$@" || fail "$name: traced failed"
	"$BPRINT" report "$name.dat" > "$name.report.all"; rc=$?
	[ $rc -eq 0 ] || fail "$name: report exit $rc"
	# the lines where records were lost are report's (bprint_dump() has none)
	grep -v ': \[[0-9]* records\? lost' "$name.report.all" > "$name.report"
	sed 3d "$name.dump" > "$name.dump.nc"
	sed 3d "$name.report" > "$name.report.nc"
	same "$name.dump.nc" "$name.report.nc" "$name: ftrace form"
	sed -n 3p "$name.dump" | grep -q '^# entries-written: [0-9]*   lost: [0-9]*   #P:[0-9]*$' ||
		fail "$name: counters line of the dump"
	sed -n 3p "$name.report" | grep -q '^# entries-written: [0-9]*   lost: [0-9]*   #P:[0-9]*$' ||
		fail "$name: counters line of the report"
	"$BPRINT" report --raw "$name.dat" | grep -v '^[0-9]* [0-9-]* [0-9-]* 0 \[[0-9]* records\? lost' \
		> "$name.report.raw" || fail "$name: report --raw"
	same "$name.raw" "$name.report.raw" "$name: raw form"
	"$BPRINT" report -m "$name.dat" | grep -v '^\[[0-9]* records\? lost' > "$name.report.msg" ||
		fail "$name: report -m"
	same "$name.msg" "$name.report.msg" "$name: msg form"
	[ "$(wc -l < "$name.raw")" -gt 100 ] || fail "$name: too few records"
}

run_case counter BPRINT_CLOCK=counter -- --threads 3 --records 400 --timer 50
run_case mono BPRINT_CLOCK=mono -- --threads 0 --records 300
run_case wrapped BPRINT_CLOCK=counter BPRINT_BUFFER_SIZE=8K BPRINT_PAGE_SIZE=1K -- --threads 2 --records 3000
run_case discard BPRINT_CLOCK=counter BPRINT_BUFFER_SIZE=8K BPRINT_PAGE_SIZE=1K BPRINT_MODE=discard -- --threads 2 --records 3000

# the wrapped ring lost records, and the header says so; its loss lines
# stand where they went missing and count no more than that
lost=$(sed -n 3p wrapped.report | sed 's/.*lost: \([0-9]*\).*/\1/')
shown=$(grep -o ': \[[0-9]* records\? lost' wrapped.report.all | tr -dc '0-9\n' | awk '{ n += $1 } END { print n + 0 }')
[ "$shown" -gt 0 ] && [ "$shown" -le "$lost" ] || fail "wrapped: loss lines count $shown of $lost lost"
[ "$lost" -gt 0 ] || fail "wrapped: lost is $lost"

# filters, against the raw dump (ns tid cpu site message)
tid=$(awk 'NR == 1 { print $2 }' counter.raw)
awk -v t="$tid" '$2 == t' counter.raw > want.tid
"$BPRINT" report --raw --tid "$tid" counter.dat > got.tid
same want.tid got.tid "--tid"
[ -s want.tid ] || fail "--tid selected nothing"

site=$(awk 'NR == 5 { print $4 }' counter.raw)
awk -v s="$site" '$4 == s' counter.raw > want.site
"$BPRINT" report --raw --site "$site" counter.dat > got.site
same want.site got.site "--site ID"

grep ' timer tick ' counter.raw > want.func
"$BPRINT" report --raw --site on_timer counter.dat > got.func
same want.func got.func "--site FUNCTION-GLOB"
[ -s want.func ] || fail "no timer records"
"$BPRINT" report --raw --site 'fmt:timer*' counter.dat > got.fmt
same want.func got.fmt "--site fmt:GLOB"

# counter clock: "ns" are counts; the window is in the same unit (seconds = 1e9)
from=$(awk 'NR == 100 { print $1 }' counter.raw)
to=$(awk 'NR == 200 { print $1 }' counter.raw)
awk -v a="$from" -v b="$to" '$1 >= a && $1 <= b' counter.raw > want.win
fs=$(awk -v a="$from" 'BEGIN { printf "%.9f", a / 1e9 }')
ts=$(awk -v b="$to" 'BEGIN { printf "%.9f", b / 1e9 }')
"$BPRINT" report --raw --from "$fs" --to "$ts" counter.dat > got.win
same want.win got.win "--from/--to"
[ "$(wc -l < got.win)" -eq 101 ] || fail "--from/--to: $(wc -l < got.win) lines, want 101"

# default file name
cp mono.dat bprint.dat
"$BPRINT" report > default.report || fail "report with no FILE"
same mono.report default.report "default FILE bprint.dat"

finish
