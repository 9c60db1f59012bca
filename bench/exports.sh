#!/usr/bin/env bash
# Every export of one large trace, side by side in one run: seconds (wall),
# bytes per event, and the time as a ratio to `bprint report` of the same
# trace; then the read times of the exports by their own tools.
#   bash bench/exports.sh [BUILD_DIR] [RECORDS]     (default build, 4000000)
set -euo pipefail
build=${1:-build} n=${2:-4000000}
bprint=$build/tools/bprint/bprint traced=$build/tests/output/export_traced
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
BPRINT_FILE=$work/big.bpt BPRINT_BUFFER_SIZE=256M BPRINT_CLOCK=mono "$traced" "$n" >/dev/null
records=$("$bprint" report --msg-only "$work/big.bpt" | wc -l)
calc() { awk "BEGIN { print $1 }"; }
secs() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; t1=$(date +%s.%N); calc "$t1 - $t0"; }
base=$(secs "$bprint" report "$work/big.bpt")
printf '%d records; bprint report: %.2f s\n\n' "$records" "$base"
printf '%-34s %8s %12s %14s\n' "export" "seconds" "bytes/event" "x bprint report"
for f in trace-cmd ctf perfetto chrome; do
	out=$work/big.$f
	t=$(secs "$bprint" export -q -f "$f" -o "$out" "$work/big.bpt")
	bytes=$(du -sb "$out" | cut -f1)
	printf '%-34s %8.2f %12.1f %13.1fx\n' "--format=$f" "$t" "$(calc "$bytes / $records")" \
		"$(calc "$t / $base")"
done
echo
printf '%-34s %8s %14s\n' "reading the export" "seconds" "x bprint report"
if command -v trace-cmd >/dev/null; then
	t=$(secs trace-cmd report "$work/big.trace-cmd")
	printf '%-34s %8.2f %13.1fx\n' "trace-cmd report" "$t" "$(calc "$t / $base")"
fi
if command -v babeltrace2 >/dev/null; then
	t=$(secs babeltrace2 "$work/big.ctf")
	printf '%-34s %8.2f %13.1fx\n' "babeltrace2 (text)" "$t" "$(calc "$t / $base")"
fi
