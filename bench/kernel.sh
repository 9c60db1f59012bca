#!/bin/sh
# record --kernel under a pipe ping-pong (two context switches a round
# trip): the kernel events a second the recorder keeps, the events lost,
# the recorder's CPU time per kernel event, and the program's round trips
# a second with --kernel against without, interleaved runs, medians.
#   sh bench/kernel.sh BPRINT PINGPONG [ROUNDS] [RUNS]     (root)
set -u
BPRINT=$1 PINGPONG=$2 ROUNDS=${3:-200000} RUNS=${4:-5}
[ "$(id -u)" = 0 ] || { echo "bench/kernel.sh: needs root (record --kernel)"; exit 1; }
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for i in $(seq "$RUNS"); do
	"$BPRINT" record -q -o "$dir/p.dat" -- "$PINGPONG" "$ROUNDS" >> "$dir/plain.rate" || exit 1
	"$BPRINT" record --kernel -o "$dir/k.dat" -- "$PINGPONG" "$ROUNDS" >> "$dir/kernel.rate" 2> "$dir/k.err" || exit 1
	events=$("$BPRINT" stats "$dir/k.dat" | awk '$2 ~ /^kernel\/cpu/ { n += $6 } END { print n + 0 }')
	span=$("$BPRINT" stats "$dir/k.dat" | awk '/span:/ { print $NF == "s" ? $(NF - 1) : $NF }')
	lost=$(sed -n 's/.* \([0-9][0-9]*\) events lost.*/\1/p' "$dir/k.err")
	cpu=$(sed -n 's/.*copier CPU \([0-9.]*\) ms.*/\1/p' "$dir/k.err")
	echo "$events $span $lost $cpu" >> "$dir/kernel.runs"
done
awk '{ printf "%.0f\n", $1 / $2 }' "$dir/kernel.runs" | median > "$dir/eps"
awk '{ print $3 }' "$dir/kernel.runs" | sort -n | tail -1 > "$dir/lost"
awk '{ printf "%.0f\n", $4 * 1e6 / $1 }' "$dir/kernel.runs" | median > "$dir/cpu"
plain=$(median < "$dir/plain.rate") kernel=$(median < "$dir/kernel.rate")
echo "record --kernel, pipe ping-pong, $ROUNDS round trips, $RUNS interleaved runs (medians):"
echo "  kernel events kept:   $(cat "$dir/eps")/s, at most $(cat "$dir/lost") lost in a run"
echo "  recorder CPU:         $(cat "$dir/cpu") ns per kernel event (all its work: the program's pages too)"
echo "  round trips:          $kernel/s with --kernel, $plain/s without: ratio $(awk -v a="$kernel" -v b="$plain" 'BEGIN { printf "%.3f", a / b }')"
