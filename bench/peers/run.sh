#!/usr/bin/env bash
# bench/peers/run.sh [BUILD]: bprint side by side with its peers (make bench-peers).
#
# Runs bench/peers' programs, the same messages and loop under each tracer:
#
#   bprint record    trace_printk() under `bprint record --mode discard`:
#                    the rings are a live file that the command copies into
#                    the trace file while the program runs (the consumer)
#   bprint memory    trace_printk() into the in-memory rings, no consumer
#   LTTng tracepoint a fixed-layout LTTng-UST tracepoint per message, with
#                    a session (discard mode) and its consumer daemon
#   LTTng tracef     LTTng-UST tracef(), same session set-up
#   snprintf+ring    snprintf() + copy into a ring (the seed's old approach)
#   floor            rdtsc + a store of the arguments
#
# with 1 and 2 tracing threads, PASSES times, the variants interleaved in
# each pass; then one size run per message and disk-writing tracer.  It
# prints one table (medians over the passes; every ratio is taken per pass
# between runs of the same pass, then the median) and the targets.
#
# Needs root for the packages and LTTng's session daemon; installs
# liblttng-ust-dev, lttng-tools and babeltrace2 when missing, starts
# lttng-sessiond --no-kernel unless one runs, and stops what it started.
#
# Environment: PASSES (7), CALLS per timed run (200000), RUNS per pass
# (5), LATENCY calls per message and thread (100000), SIZE_CALLS
# (500000), BUFFER: LTTng's 8 sub-buffers per CPU together (32M),
# BPRINT_BUFFER: bprint record's buffer per thread (BUFFER);
# RESULTS_FILE: where to keep the raw results.
#
# The counts: per program run 7 messages x (10000 warm-up + 5 x 200000 +
# 100000) = 7.8M calls per thread, about 0.1 s of tracing for bprint and
# 2-5 s for tracef; with LTTng's session set-up a pass takes about 30 s on
# a 2-core machine, so 7 passes and the size runs end in about 4 minutes.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD="$root/$BUILD" ;; esac
PASSES=${PASSES:-7}
CALLS=${CALLS:-200000}
RUNS=${RUNS:-5}
LATENCY=${LATENCY:-100000}
SIZE_CALLS=${SIZE_CALLS:-500000}
BUFFER=${BUFFER:-32M}
BPRINT_BUFFER=${BPRINT_BUFFER:-$BUFFER}
WARM=10000

bin="$BUILD/bench/peers"
tool="$BUILD/tools/bprint/bprint"
start_time=$(date +%s)

say() { printf '%s\n' "$*" >&2; }

# ---- packages and programs ----
have_lttng=1
need_pkgs() {
	command -v lttng >/dev/null && command -v lttng-sessiond >/dev/null &&
		command -v babeltrace2 >/dev/null &&
		dpkg -s liblttng-ust-dev >/dev/null 2>&1
}
if ! need_pkgs; then
	pkgs="liblttng-ust-dev lttng-tools babeltrace2"
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		say "run.sh: installing $pkgs"
		export DEBIAN_FRONTEND=noninteractive
		apt-get install -y $pkgs >/dev/null 2>&1 ||
			{ apt-get update >/dev/null 2>&1 && apt-get install -y $pkgs >/dev/null 2>&1; } ||
			say "run.sh: could not install $pkgs"
	fi
	need_pkgs || { have_lttng=0; say "run.sh: LTTng-UST not available: its rows are left out"; }
fi
if [ $have_lttng = 1 ] && { [ ! -x "$bin/bench-peer-tracef" ] || [ ! -x "$bin/bench-peer-tracepoint" ]; }; then
	say "run.sh: building the LTTng-UST programs"
	cmake -S "$root" -B "$BUILD" >/dev/null &&
		cmake --build "$BUILD" -j2 --target bench-peer-tracef bench-peer-tracepoint >/dev/null ||
		{ have_lttng=0; say "run.sh: the LTTng-UST programs do not build: their rows are left out"; }
fi
for p in floor snprintf bprint; do
	[ -x "$bin/bench-peer-$p" ] || { say "run.sh: $bin/bench-peer-$p missing (make all first)"; exit 1; }
done
have_record=1
[ -x "$tool" ] || { have_record=0; say "run.sh: $tool missing: no bprint record rows"; }

work=$(mktemp -d "${TMPDIR:-/tmp}/bprint-peers.XXXXXX")
sessiond_pid=
cleanup() {
	if [ -n "$sessiond_pid" ]; then
		kill "$sessiond_pid" 2>/dev/null
		for _ in $(seq 50); do kill -0 "$sessiond_pid" 2>/dev/null || break; sleep 0.1; done
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- LTTng's session daemon ----
pidfile=/var/run/lttng/lttng-sessiond.pid
if [ $have_lttng = 1 ]; then
	running=
	if [ -r "$pidfile" ]; then
		p=$(cat "$pidfile")
		[ -n "$p" ] && kill -0 "$p" 2>/dev/null &&
			[ "$(cat /proc/"$p"/comm 2>/dev/null)" = lttng-sessiond ] && running=$p
	fi
	if [ -z "$running" ]; then
		if lttng-sessiond --daemonize --no-kernel >/dev/null 2>&1; then
			for _ in $(seq 50); do [ -s "$pidfile" ] && break; sleep 0.1; done
			sessiond_pid=$(cat "$pidfile" 2>/dev/null)
		fi
		[ -n "$sessiond_pid" ] || { have_lttng=0; say "run.sh: lttng-sessiond did not start"; }
	fi
fi

results="$work/results"
: >"$results"
nsess=0

# run_lttng VARIANT EVENT PASS THREADS ARGS...: one program run in its own session
run_lttng() {
	local variant=$1 event=$2 pass=$3 threads=$4 prog
	shift 4
	prog="$bin/bench-peer-$variant"
	nsess=$((nsess + 1))
	local s="bprint-peers-$$-$nsess" dir="$work/lttng-$nsess" out="$work/out" discarded events bytes
	{ lttng create "$s" --output="$dir" &&
	  lttng enable-channel -u -s "$s" ch --subbuf-size="$BUFFER_SUB" --num-subbuf=8 &&
	  lttng enable-event -u -s "$s" -c ch "$event" &&
	  lttng start "$s"; } >/dev/null || { say "run.sh: lttng session set-up failed"; return 1; }
	"$prog" -t "$threads" "$@" >"$out"
	lttng stop "$s" >/dev/null
	discarded=$(lttng list "$s" -c ch | awk '/Discarded events:/ { n += $3 } END { print n + 0 }')
	lttng destroy "$s" >/dev/null
	bytes=$(find "$dir" -type f -printf '%s\n' | awk '{ n += $1 } END { print n + 0 }')
	events=
	if [ "$pass" = size ]; then
		events=$(babeltrace2 "$dir" -c sink.utils.counter 2>/dev/null |
			awk '/Event messages/ { n = $1 } END { print n }')
	fi
	rm -rf "$dir"
	emit "$variant" "$pass" "$threads" "$out" "$discarded" "$bytes" "${events:-}" -
}

# run_record VARIANT MODE PASS THREADS ARGS...: bprint under bprint record
run_record() {
	local variant=$1 mode=$2 pass=$3 threads=$4 f="$work/rec.dat" out="$work/out" st
	shift 4
	"$tool" record -o "$f" --mode "$mode" --buffer-size "$BPRINT_BUFFER" -- \
		"$bin/bench-peer-bprint" -t "$threads" "$@" >"$out" 2>"$work/rec.err"
	"$tool" stats "$f" >"$work/stats"
	# records per message: the sites are in loop_MSG and lat_MSG
	awk -v p="$pass" -v t="$threads" -v v="$variant" '
		/^# threads/ { exit }
		$1 ~ /^[0-9]+$/ && $NF ~ /^(loop|lat)_/ { m = $NF; sub(/^(loop|lat)_/, "", m); n[m] += $2 }
		END { for (m in n) print "M", p, t, m, n[m], v }' "$work/stats" >>"$results"
	# the copier's CPU time (bprint record's own, from its summary) and the records
	awk -v p="$pass" -v t="$threads" -v v="$variant" '
		/copier CPU/ { for (i = 1; i < NF; i++) if ($i == "CPU") ms = $(i + 1); w = $5 }
		END { if (ms != "") print "C", v, p, t, ms, w }' "$work/rec.err" >>"$results"
	st=$(awk '
		/^# records:/ { rec = $3 }
		/^# threads/ { t = 1; next }
		t && $1 ~ /^[0-9]+$/ { w += $3; o += $4; d += $5; nd += (NF >= 7 ? $7 : 0) }
		END { printf "%d %d %d %d %d\n", rec, w, o, d, nd }' "$work/stats")
	local bytes
	bytes=$(stat -c %s "$f")
	rm -f "$f" "$f".*
	# lost = calls - records; "reported" = overwritten + discarded + not drained
	emit "$variant" "$pass" "$threads" "$out" - "$bytes" - "$st"
}

# run_defaults: record's defaults, a 2,000,000-call burst of the seed from 1 thread
run_defaults() {
	local f="$work/def.dat" calls rec
	calls=$("$tool" record -q -o "$f" -- "$bin/bench-peer-bprint" -t 1 -m seed -n 2000000 -r 1 \
		-l 0 -w 0 | awk '/^total/ { print $3 }')
	rec=$("$tool" stats "$f" | awk '/^# records:/ { print $3 }')
	rm -f "$f" "$f".*
	echo "D ${calls:-0} ${rec:-0}" >>"$results"
}

# run_plain VARIANT PASS THREADS ARGS...
run_plain() {
	local variant=$1 pass=$2 threads=$3 out="$work/out"
	shift 3
	"$bin/bench-peer-$variant" -t "$threads" "$@" >"$out"
	emit "$variant" "$pass" "$threads" "$out" - - - -
}

# emit VARIANT PASS THREADS OUT LTTNG_DISCARDED BYTES EVENTS BPRINT_STATS
emit() {
	local variant=$1 pass=$2 threads=$3 out=$4
	local total
	awk -v v="$variant" -v p="$pass" '$1 == "result" { $2 = v; print "R", p, $0 }' "$out" >>"$results"
	total=$(awk '$1 == "total" { print $3 }' "$out")
	[ -n "$total" ] || say "run.sh: $variant ($threads threads, pass $pass) printed no results"
	echo "L $variant $pass $threads ${total:-0} $5 $6 ${7:--} $8" >>"$results"
}

BUFFER_SUB=$(awk -v b="$BUFFER" 'BEGIN {
	n = b + 0; u = substr(b, length(b)); m = (u == "K") ? 1024 : (u == "M") ? 1048576 : (u == "G") ? 1073741824 : 1
	printf "%d", n * m / 8 }')

variants="floor snprintf bprint"
[ $have_record = 1 ] && variants="$variants bprint-record bprint-block"
[ $have_lttng = 1 ] && variants="$variants tracepoint tracef"

run_variant() {
	local v=$1 pass=$2 threads=$3
	shift 3
	case $v in
	floor | snprintf | bprint) run_plain "$v" "$pass" "$threads" "$@" ;;
	bprint-record) run_record bprint-record discard "$pass" "$threads" "$@" ;;
	bprint-block) run_record bprint-block block "$pass" "$threads" "$@" ;;
	tracepoint) run_lttng tracepoint 'bpeer:*' "$pass" "$threads" "$@" ;;
	tracef) run_lttng tracef 'lttng_ust_tracef:event' "$pass" "$threads" "$@" ;;
	esac
}

say "run.sh: $PASSES passes x (1, 2 threads) x {$variants}; $RUNS runs x $CALLS calls + $LATENCY timed calls per message and thread"
set -- $variants
nv=$#
for pass in $(seq "$PASSES"); do
	# rotate the order from pass to pass
	order=$(for i in $(seq 0 $((nv - 1))); do k=$(((i + pass - 1) % nv + 1)); eval echo "\${$k}"; done)
	for threads in 1 2; do
		for v in $order; do
			run_variant "$v" "$pass" "$threads" -n "$CALLS" -r "$RUNS" -l "$LATENCY" -w "$WARM"
		done
	done
	say "run.sh: pass $pass done ($(($(date +%s) - start_time)) s)"
done

# bytes per event on disk: one message per run
for m in seed static_str one_int two_ints one_double complex_fmt one_string; do
	for v in $variants; do
		case $v in bprint-record | bprint-block | tracepoint | tracef) ;; *) continue ;; esac
		run_variant "$v" size 1 -m "$m" -n "$SIZE_CALLS" -r 1 -l 0 -w 0
		sed -i '$ s/^L /S '"$m"' /' "$results"
	done
done
[ $have_record = 1 ] && run_defaults
elapsed=$(($(date +%s) - start_time))
[ -n "${RESULTS_FILE:-}" ] && cp "$results" "$RESULTS_FILE"

# ---- the table and the targets ----
awk -v passes="$PASSES" -v calls="$CALLS" -v runs="$RUNS" -v lat="$LATENCY" -v sizec="$SIZE_CALLS" \
    -v buffer="$BUFFER" -v bbuffer="$BPRINT_BUFFER" -v elapsed="$elapsed" -v have_lttng="$have_lttng" -v have_record="$have_record" '
function med(key, n,   i, j, t, a) {
	n = cnt[key]
	if (!n) return ""
	for (i = 1; i <= n; i++) a[i] = val[key, i]
	for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function add(key, x) { cnt[key]++; val[key, cnt[key]] = x }
function fmt(x, d) { return x == "" ? "-" : sprintf("%." d "f", x) }
function human(n) { return n >= 1e6 ? sprintf("%.1fM", n / 1e6) : n >= 1e3 ? sprintf("%.0fk", n / 1e3) : n }
# R pass result variant msg threads ns agg p50 p99 p999 calls bytes
$1 == "R" && $2 != "size" {
	p = $2; v = $4; m = $5; t = $6
	ns[p, v, t, m] = $7
	add("ns" SUBSEP v SUBSEP t SUBSEP m, $7); add("agg" SUBSEP v SUBSEP t SUBSEP m, $8)
	add("p50" SUBSEP v SUBSEP t SUBSEP m, $9); add("p99" SUBSEP v SUBSEP t SUBSEP m, $10)
	add("p999" SUBSEP v SUBSEP t SUBSEP m, $11)
	if ($13 != "-") membytes[v, m] = $13
	mcalls[v, t, m] += $12
	seen[v] = 1; pl[p] = 1
}
# L variant pass threads calls lttng_discarded bytes events [rec written overwritten discarded notdrained]
$1 == "L" {
	v = $2; t = $4; c = $5
	calls_of[v, t] += c
	if ($6 != "-") { lost[v, t] += $6; haslost[v, t] = 1 }
	if (NF >= 13) {
		rec = $9; w = $10; rep = $11 + $12 + $13
		lost[v, t] += c - rec; haslost[v, t] = 1
		if (c - rec != rep || w != c) { inexact[v, t]++; bad = bad sprintf(" [%s %d threads pass %s: calls %d, records %d, written %d, reported lost %d]", v, t, $3, c, rec, w, rep) }
		reported[v, t] += rep
	}
}
# M pass threads msg records: bprint record, records per message in the trace
$1 == "M" && $2 != "size" { mv = NF >= 6 ? $6 : "bprint-record"; mrec[mv, $3, $4] += $5; hasm[mv, $3, $4] = 1 }
# C variant pass threads copier_cpu_ms records_written: the copier CPU
$1 == "C" && $3 != "size" { cms[$2, $4] += $5; crec[$2, $4] += $6 }
# D calls records: bprint record with its defaults, a 2M burst of the seed from 1 thread
$1 == "D" { dcalls = $2; drec = $3; hasd = 1 }
# S msg variant size 1 calls lttng_discarded bytes events [rec ...]
$1 == "S" {
	m = $2; v = $3; c = $6; b = $8
	ev = (NF >= 14) ? $10 : ($9 != "-" ? $9 : c - $7)
	if (ev > 0) disk[v, m] = b / ev
}
END {
	nmsg = split("seed static_str one_int two_ints one_double complex_fmt one_string", msgs, " ")
	nvar = split("bprint-record bprint-block bprint tracepoint tracef snprintf floor", vars, " ")
	name["bprint-record"] = "bprint record"; name["bprint"] = "bprint in memory"
	name["bprint-block"] = "bprint record --mode=block"
	name["tracepoint"] = "LTTng tracepoint"; name["tracef"] = "LTTng tracef"
	name["snprintf"] = "snprintf + ring"; name["floor"] = "floor: rdtsc + store"
	ref = have_record ? "bprint-record" : "bprint"
	# per-pass ratios to bprint
	for (k in ns) {
		split(k, f, SUBSEP)
		if ((f[1], ref, f[3], f[4]) in ns && ns[f[1], ref, f[3], f[4]] > 0)
			add("ratio" SUBSEP f[2] SUBSEP f[3] SUBSEP f[4], ns[k] / ns[f[1], ref, f[3], f[4]])
	}
	printf "| message | threads | variant | ns/call | aggregate ns/call | p50 ns | p99 ns | p99.9 ns | bytes/event on disk | events lost | x %s |\n", name[ref]
	print "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"
	for (i = 1; i <= nmsg; i++) for (t = 1; t <= 2; t++) for (j = 1; j <= nvar; j++) {
		v = vars[j]; m = msgs[i]; key = v SUBSEP t SUBSEP m
		if (!cnt["ns" SUBSEP key]) continue
		b = (v, m) in disk ? sprintf("%.1f", disk[v, m]) : ((v, m) in membytes ? membytes[v, m] " (memory)" : "-")
		if (hasm[v, t, m])
			l = sprintf("%d / %s", mcalls[v, t, m] - mrec[v, t, m], human(mcalls[v, t, m]))
		else
			l = haslost[v, t] ? sprintf("%d / %s (run)", lost[v, t], human(calls_of[v, t])) : "n/a"
		printf "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", m, t, name[v],
			fmt(med("ns" SUBSEP key), 1), fmt(med("agg" SUBSEP key), 1), fmt(med("p50" SUBSEP key), 0),
			fmt(med("p99" SUBSEP key), 0), fmt(med("p999" SUBSEP key), 0), b, l,
			fmt(med("ratio" SUBSEP key), 2)
	}
	printf "\n%d passes, each: every variant with 1 and 2 threads, %d runs x %d calls per message and thread\n", passes, runs, calls
	printf "(ns/call: the median over the passes of each pass'"'"'s median run; per thread with 2 threads;\n"
	printf "aggregate: from the first thread start to the last thread end / calls of both threads),\n"
	printf "then %d calls per message and thread with rdtsc around each for p50/p99/p99.9 (the rdtsc\n", lat
	printf "pair included).  Ratios: per pass, then the median.\n"
	printf "Events lost, summed over the passes: bprint record per message (calls - records of its sites\n"
	printf "in the trace); LTTng per program run, all messages (\"(run)\": Discarded events of lttng list).\n"
	printf "Bytes/event on disk: one run of %d events of that message alone (LTTng: files of the\n", sizec
	printf "output directory / events babeltrace2 counts; bprint: trace file size / records).\n"
	printf "Buffers: bprint record --buffer-size %s per thread,\n", bbuffer
	printf "LTTng 8 sub-buffers of %s/8 per CPU, both in discard mode (bprint record --mode=block:\n", buffer
	printf "block mode, same buffer).  Run time %d s.\n", elapsed
	printf "Copier CPU per event (bprint record'"'"'s own CPU time / records written, summed over the passes):"
	for (j = 1; j <= 2; j++) for (t = 1; t <= 2; t++) {
		v = j == 1 ? "bprint-record" : "bprint-block"
		if (crec[v, t] > 0) printf " %s %d thread%s %.1f ns;", name[v], t, (t > 1 ? "s" : ""), cms[v, t] * 1e6 / crec[v, t]
	}
	printf "\n"

	print "\ntargets:"
	nt = 0; nh = 0
	r = med("ratio" SUBSEP "tracepoint" SUBSEP 1 SUBSEP "seed")
	ok = r != "" && r >= 6; nt++; nh += ok
	printf "  seed, 1 thread: bprint record >= 6x faster than LTTng tracepoint   %sx  %s\n", fmt(r, 2), ok ? "holds" : "FAILS"
	r = med("ratio" SUBSEP "tracef" SUBSEP 1 SUBSEP "seed")
	ok = r != "" && r >= 12; nt++; nh += ok
	printf "  seed, 1 thread: bprint record >= 12x faster than LTTng tracef      %sx  %s\n", fmt(r, 2), ok ? "holds" : "FAILS"
	r = med("ratio" SUBSEP "floor" SUBSEP 1 SUBSEP "seed")
	r = r > 0 ? 1 / r : ""
	ok = r != "" && r <= 1.25; nt++; nh += ok
	printf "  seed, 1 thread: bprint record within 1.25x of the floor            %sx  %s\n", fmt(r, 2), ok ? "holds" : "FAILS"
	n = 0; for (t = 1; t <= 2; t++) n += haslost["bprint-record", t]
	ok = have_record && n == 2 && !inexact["bprint-record", 1] && !inexact["bprint-record", 2]; nt++; nh += ok
	printf "  bprint record (discard) loses nothing or reports exactly what it lost:\n"
	printf "      1 thread: lost %d of %d (%.1f %%), reported %d; 2 threads: lost %d of %d (%.1f %%), reported %d  %s%s\n",
		lost["bprint-record", 1], calls_of["bprint-record", 1], 100 * lost["bprint-record", 1] / (calls_of["bprint-record", 1] + !calls_of["bprint-record", 1]),
		reported["bprint-record", 1],
		lost["bprint-record", 2], calls_of["bprint-record", 2], 100 * lost["bprint-record", 2] / (calls_of["bprint-record", 2] + !calls_of["bprint-record", 2]),
		reported["bprint-record", 2], ok ? "holds" : "FAILS", bad
	a = ("bprint-record", "seed") in disk ? disk["bprint-record", "seed"] : ""
	bb = ("tracepoint", "seed") in disk ? disk["tracepoint", "seed"] : ""
	ok = a != "" && bb != "" && a <= bb; nt++; nh += ok
	printf "  seed: bytes/event on disk, bprint record <= LTTng tracepoint        %s vs %s  %s\n", fmt(a, 2), fmt(bb, 2), ok ? "holds" : "FAILS"
	a = ("bprint-record", "seed") in disk ? disk["bprint-record", "seed"] : ""
	ok = a != "" && a <= 7.0; nt++; nh += ok
	printf "  seed: bytes/event on disk, bprint record <= 7.0                   %s  %s\n", fmt(a, 2), ok ? "holds" : "FAILS"
	ok = have_record; bl = ""
	for (t = 1; t <= 2; t++) {
		n = 0; for (i = 1; i <= nmsg; i++) n += mcalls["bprint-block", t, msgs[i]] - mrec["bprint-block", t, msgs[i]]
		ok = ok && hasm["bprint-block", t, "seed"] && n == 0 && !inexact["bprint-block", t]
		bl = bl sprintf(" %d thread%s: %d lost;", t, (t > 1 ? "s" : ""), n)
	}
	nt++; nh += ok
	printf "  bprint record --mode=block loses nothing, 1 and 2 threads:%s  %s\n", bl, ok ? "holds" : "FAILS"
	ok = hasd && dcalls > 0 && drec == dcalls; nt++; nh += ok
	printf "  bprint record with its defaults keeps a 2M seed burst, 1 thread:   %d of %d  %s\n", drec, dcalls, ok ? "holds" : "FAILS"
	ok = have_record; worst = ""; wm = ""
	for (i = 1; i <= nmsg; i++) {
		if (msgs[i] == "one_string") continue	# not a scalar
		r = med("ratio" SUBSEP "floor" SUBSEP 1 SUBSEP msgs[i])
		r = r > 0 ? 1 / r : ""
		ok = ok && r != "" && r <= 1.25
		if (r != "" && (worst == "" || r > worst)) { worst = r; wm = msgs[i] }
	}
	nt++; nh += ok
	printf "  every scalar message, bprint record, 1 thread, <= 1.25x the floor: worst %s %sx  %s\n", wm, fmt(worst, 2), ok ? "holds" : "FAILS"
	r = med("ratio" SUBSEP "floor" SUBSEP 1 SUBSEP "seed"); r2 = med("ratio" SUBSEP "bprint" SUBSEP 1 SUBSEP "seed")
	if (r != "" && r2 != "" && r > 0)
		printf "  (not a target: bprint in memory, seed, 1 thread: %.2fx the floor)\n", r2 / r
	printf "targets: %d/%d hold\n", nh, nt
}' "$results"
