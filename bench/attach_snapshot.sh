#!/usr/bin/env bash
# bprint snapshot of 64 threads x 1 MiB buffers (docs/attach.md), side by
# side with the raw copy of the same shared memory (cat of /proc/PID/fd/N)
# in one run: seconds (wall, the least of RUNS) and the ratio to the raw
# copy; once with the writers stopped (SIGSTOP: the snapshot alone) and
# once with them tracing flat out on every core.
#   bash bench/attach_snapshot.sh [BUILD_DIR] [RUNS]     (default build, 5)
set -euo pipefail
build=${1:-build} runs=${2:-5}
bprint=$build/tools/bprint/bprint traced=$build/tests/tools/attach_traced
work=$(mktemp -d)
env -u BPRINT_FILE -u BPRINT_BUFFER_SIZE -u BPRINT_ATTACH "$traced" run 64 0 "$work/ready" > /dev/null &
pid=$!
trap 'kill -9 $pid 2>/dev/null; rm -rf "$work"' EXIT
while [ ! -e "$work/ready" ]; do sleep 0.05; done
sleep 2	# every buffer lapped
fd=$(for f in /proc/$pid/fd/*; do [ "$(readlink "$f")" = "/memfd:bprint-trace (deleted)" ] && echo "$f"; done)
least() {	# CMD...: the least wall time of RUNS runs, in seconds
	local best=999 t0 t1 t
	for ((i = 0; i < runs; i++)); do
		t0=$(date +%s.%N); "$@" > /dev/null 2>&1; t1=$(date +%s.%N)
		t=$(awk "BEGIN { print $t1 - $t0 }")
		best=$(awk "BEGIN { print ($t < $best) ? $t : $best }")
	done
	echo "$best"
}
row() {	# WHAT
	local raw snap
	raw=$(least cat "$fd")
	snap=$(least "$bprint" snapshot -q -o "$work/s.dat" $pid)
	printf '%-34s %8.3f %8.3f %7.1fx\n' "$1" "$raw" "$snap" "$(awk "BEGIN { print $snap / $raw }")"
}
printf '64 threads x 1 MiB, shared memory of %s MiB; least of %d runs\n\n' \
	"$(( $(stat -L -c %s "$fd") >> 20 ))" "$runs"
printf '%-34s %8s %8s %8s\n' "" "raw s" "snap s" "ratio"
kill -STOP $pid
row "writers stopped"
"$bprint" stats "$work/s.dat" | awk '/^# records:/ { print "  snapshot: " $0 }'
kill -CONT $pid
row "writers tracing flat out"
