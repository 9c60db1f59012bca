#!/usr/bin/env bash
# bench/peers/short.sh [BUILD]: the side-by-side's short rows (issue 29):
# a new thread's first CALLS calls of one message, right after its start,
# against the floor's (bench/peers/floor.c: an rdtsc and a store into a
# per-thread buffer the thread wrote whole before, so resident and hot in
# its core's cache).
#
# Every run is a fresh process (bench-peer-* -t 1 -w 0 -n CALLS -r 1 -l 0
# -m MSG): its one tracing thread's first calls are the ones timed.
# Variants, interleaved in every pass:
#
#   fresh floor       the floor with FLOOR_FRESH=1: its buffer faulted in
#                     at the program's start by another thread, written
#                     cold: what a tracer whose pages were faulted in
#                     ahead can at best do
#   bprint            the default: rings in shared memory, BPRINT_PREFAULT
#                     (a ring faulted in ahead, src/writer/writer_pool.c)
#   bprint file       BPRINT_FILE, the same
#   prefault off      BPRINT_PREFAULT=0: the ring's pages fault at the call
#   1st call apart    bprint with the thread's first call made before the
#                     timed ones (-w 1): the rest of the fresh ring's cost
#   bprint warm       the same thread after WARM calls of the message: the
#                     call's steady state, what no prefault can go under
#   floor
#
# Printed per message: the floor's ns/call and each variant's as a
# multiple of it (the median over PASSES of the ratio within a pass), and
# the target, 1.1x (of the floor, not of the fresh floor).
# Environment: PASSES (9), CALLS (20000), WARM (1000000).  About 45 s on
# 2 vCPUs.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD="$root/$BUILD" ;; esac
PASSES=${PASSES:-9}
CALLS=${CALLS:-20000}
WARM=${WARM:-1000000}
bin="$BUILD/bench/peers"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for p in bprint floor; do
	[ -x "$bin/bench-peer-$p" ] || { echo "short.sh: $bin/bench-peer-$p: not built (make all)" >&2; exit 1; }
done
msgs="seed static_str one_int two_ints one_double complex_fmt one_string"
variants="fresh bprint file off later warm floor"

# run VARIANT MSG: ns/call of the timed calls
run() {
	local args="-t 1 -r 1 -l 0 -n $CALLS -m $2"
	case $1 in
	fresh) FLOOR_FRESH=1 "$bin/bench-peer-floor" $args -w 0 ;;
	bprint) env -u BPRINT_FILE "$bin/bench-peer-bprint" $args -w 0 ;;
	file) rm -f "$tmp/f.dat"*
	      BPRINT_FILE="$tmp/f.dat" "$bin/bench-peer-bprint" $args -w 0 ;;
	off) env -u BPRINT_FILE BPRINT_PREFAULT=0 "$bin/bench-peer-bprint" $args -w 0 ;;
	later) env -u BPRINT_FILE "$bin/bench-peer-bprint" $args -w 1 ;;
	warm) env -u BPRINT_FILE "$bin/bench-peer-bprint" $args -w "$WARM" ;;
	floor) env -u FLOOR_FRESH "$bin/bench-peer-floor" $args -w 0 ;;
	esac | awk '$1 == "result" { print $5 }'
}

for pass in $(seq "$PASSES"); do
	for m in $msgs; do
		for v in $variants; do
			echo "$pass $m $v $(run $v $m)"
		done
	done
done > "$tmp/raw"

echo "a new thread's first $CALLS calls, x the floor (median of $PASSES passes; load $(cut -d' ' -f1-3 /proc/loadavg))"
heads="fresh floor|bprint|bprint file|prefault off|1st call apart|bprint warm"
printf '| %-11s | %8s |' message "floor ns"
echo "$heads" | tr '|' '\n' | while read -r h; do printf ' %s |' "$h"; done
printf ' %6s |\n|-------------|---------:|' target
echo "$heads" | tr '|' '\n' | while read -r h; do printf '%s:|' "$(printf '%*s' $((${#h} + 1)) '' | tr ' ' -)"; done
printf '%s:|\n' -------
for m in $msgs; do
	awk -v m="$m" -v vs="$variants" -v heads="$heads" '
		$2 == m { ns[$1, $3] = $4; passes[$1] = 1 }
		function median(a, n,   i, j, t) {
			for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
			return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		}
		END {
			nv = split(vs, v, " ")
			split(heads, hd, "|")
			n = 0; for (p in passes) { n++; f[n] = ns[p, "floor"] }
			floor = median(f, n)
			line = sprintf("| %-11s | %8.2f |", m, floor)
			for (k = 1; k < nv; k++) {
				n = 0; for (p in passes) { n++; r[n] = ns[p, v[k]] / ns[p, "floor"] }
				line = line sprintf(" %*.2fx |", length(hd[k]) - 1, median(r, n))
			}
			print line sprintf(" %6s |", "1.10x")
		}' "$tmp/raw"
done
