#!/usr/bin/env bash
# The example server's throughput with and without a bprint record
# --trigger watcher (docs/attach.md, "Triggers"), side by side in one run:
# requests per second (the best of RUNS) and the ratio to the server
# alone.  The watcher scans every record the server writes; "no match"
# writes no window, "matches" writes up to 5 windows of 10 ms.  Then the
# same for 2 threads tracing flat out (tests/tools/attach_traced) for 2 s:
# records per second, alone and watched.
#   bash bench/trigger_server.sh [BUILD_DIR] [REQUESTS] [RUNS]  (default build, 20000, 3)
set -euo pipefail
build=${1:-build} requests=${2:-20000} runs=${3:-3}
bprint=$build/tools/bprint/bprint server=$build/examples/server
traced=$build/tests/tools/attach_traced
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bare() { env -u BPRINT_FILE -u BPRINT_BUFFER_SIZE -u BPRINT_MODE -u BPRINT_ATTACH "$@"; }
wall() {	# CMD...: its wall time, in seconds
	local t0 t1
	rm -f "$work"/w.dat*
	t0=$(date +%s.%N); "$@" > /dev/null 2>&1; t1=$(date +%s.%N)
	awk "BEGIN { print $t1 - $t0 }"
}
min() { awk "BEGIN { print ($1 < $2) ? $1 : $2 }"; }
# the three side by side in every round (the machine's load changes)
alone=999 nomatch=999 match=999
for ((r = 0; r < runs; r++)); do
	alone=$(min "$alone" "$(wall bare "$server" "$requests")")
	nomatch=$(min "$nomatch" "$(wall bare "$bprint" record --trigger 'fmt:served*' \
		--where 'dur_us>10000000' --before 5ms --after 5ms -q -o "$work/w.dat" -- \
		"$server" "$requests")")
	match=$(min "$match" "$(wall bare "$bprint" record --trigger 'fmt:served*' \
		--where 'dur_us>2000' --before 5ms --after 5ms --max 5 -q -o "$work/w.dat" -- \
		"$server" "$requests")")
done
printf 'example server, %d requests (2 records each), %d CPUs; best of %d runs\n\n' \
	"$requests" "$(nproc)" "$runs"
printf '%-34s %10s %8s\n' "" "req/s" "vs alone"
row() { printf '%-34s %10.0f %8.3f\n' "$1" "$(awk "BEGIN { print $requests / $2 }")" \
	"$(awk "BEGIN { print $alone / $2 }")"; }
# vs alone: the server alone's wall time over this one's (1.000: no cost)
row "server alone (flight recorder)" "$alone"
row "watched, no match" "$nomatch"
row "watched, 5 windows written" "$match"

flat() {	# [watch]: records/s of 2 threads tracing flat out for 2 s
	local pid wpid n
	rm -f "$work/ready" "$work"/w.dat*
	# not through bare(): $! must be the program's pid
	env -u BPRINT_FILE -u BPRINT_BUFFER_SIZE -u BPRINT_MODE -u BPRINT_ATTACH \
		"$traced" run 2 0 "$work/ready" > "$work/last" &
	pid=$!
	while [ ! -e "$work/ready" ]; do sleep 0.01; done
	if [ "${1:-}" = watch ]; then
		"$bprint" record --pid $pid --trigger 'fmt:tick*' --where 'seq>1000000000000' --before 5ms \
			--after 5ms -q -o "$work/w.dat" 2> /dev/null &
		wpid=$!
	fi
	sleep 2
	kill -TERM $pid
	wait $pid || true
	[ -n "${wpid:-}" ] && { wait "$wpid" || true; }
	n=$(awk '$1 == "thread" { n += $4 + 1 } END { print n }' "$work/last")
	echo $((n / 2))
}
fa=0 fw=0
for ((r = 0; r < runs; r++)); do
	a=$(flat) w=$(flat watch)
	[ "$a" -gt "$fa" ] && fa=$a
	[ "$w" -gt "$fw" ] && fw=$w
done
printf '\n2 threads tracing flat out, 2 s; best of %d runs\n\n' "$runs"
printf '%-34s %10s %8s\n' "" "records/s" "vs alone"
printf '%-34s %10d %8.3f\n' "alone (flight recorder)" "$fa" 1
printf '%-34s %10d %8.3f\n' "watched, no match" "$fw" "$(awk "BEGIN { print $fw / $fa }")"
