#!/bin/sh
# The exporters end to end:  sh export_test.sh MODE BPRINT TRACED WORKDIR SRCDIR
#   tracecmd  a trace with every kind of format, threads, a 200 ms gap and
#             lost records -> trace.dat; trace-cmd report agrees with bprint
#             report, dump -v calls it valid, libkshark loads every record;
#             and the checker fails on a damaged copy
#   empty     a trace without records -> a valid, empty trace.dat
#   chrome    the same trace -> JSON with every record and thread
#   ctf       the same trace -> a CTF directory read back by babeltrace2's
#             own reader (check_ctf.py, the bt2 module: records, fields,
#             and the metadata against LTTng-UST's), converted by
#             sink.ctf.fs and read back the same, trimmed, shown by
#             sink.text.details; and the checker fails on a damaged copy
#   perfetto  the same trace -> Perfetto protobuf, decoded by protoc against
#             perfetto.proto: every record, thread, name and annotation, 5x
#             smaller than the JSON; and the checker fails on a wrong count
#   tracemodel  the JSON loads in the npm package @tracerbench/trace-model
#             (installed into the work directory), every thread named and
#             every event counted
#   progress  a trace of 4M records: export and report show a progress line
#             on a terminal (script(1) gives them one), and none otherwise
# Exit 77 (skipped) without trace-cmd, babeltrace2, python3, protoc, npm or script.
set -u
MODE=$1 BPRINT=$2 TRACED=$3 WORK=$4 SRC=$5
. "$(dirname "$0")/../lib.sh"
bp_env_reset
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1

if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 is not installed"; exit 77
fi
if [ "$MODE" = ctf ] && ! command -v babeltrace2 >/dev/null 2>&1; then
	echo "SKIP: babeltrace2 is not installed (Debian: apt-get install babeltrace2 python3-bt2)"; exit 77
fi
if [ "$MODE" = perfetto ] && ! command -v protoc >/dev/null 2>&1; then
	echo "SKIP: protoc is not installed (Debian: apt-get install protobuf-compiler)"; exit 77
fi
if [ "$MODE" = tracemodel ] && ! { command -v npm && command -v node; } >/dev/null 2>&1; then
	echo "SKIP: node and npm are not installed (Debian: apt-get install nodejs npm)"; exit 77
fi
if [ "$MODE" = progress ] && ! command -v script >/dev/null 2>&1; then
	echo "SKIP: script (util-linux) is not installed"; exit 77
fi
if [ "$MODE" = progress ] && [ -n "${BPRINT_TEST_QUICK:-}" ]; then
	echo "SKIP: BPRINT_TEST_QUICK is set"; exit 77
fi
case $MODE in chrome|ctf|perfetto|tracemodel|progress) ;; *)
if
	! command -v trace-cmd >/dev/null 2>&1; then
	echo "SKIP: trace-cmd is not installed (Debian: apt-get install trace-cmd kernelshark)"; exit 77
fi ;;
esac

trace() {	# trace [ENV=VALUE...]: run the traced program into t.bpt
	env BPRINT_FILE=t.bpt BPRINT_BUFFER_SIZE=64K BPRINT_MODE=overwrite "$@" "$TRACED" 20000 ||
		{ echo "FAIL: the traced program failed"; exit 1; }
}

case $MODE in
tracecmd)
	trace
	"$BPRINT" export --format=trace-cmd -o t.dat t.bpt 2>summary.txt ||
		{ cat summary.txt; echo "FAIL: bprint export"; exit 1; }
	cat summary.txt
	python3 "$SRC/check_tracedat.py" "$BPRINT" t.bpt t.dat summary.txt \
		--expect-lost --expect-extend --kshark || exit 1
	"$BPRINT" export -f trace-cmd -q t.bpt | cmp - t.dat ||
		{ echo "FAIL: export to a pipe differs from export to a file"; exit 1; }
	echo "ok: the same bytes through a pipe"
	# KernelShark opens only *.dat: export says so for another name
	"$BPRINT" export -f trace-cmd -o t.trace-cmd t.bpt 2>warn.txt && cmp -s t.dat t.trace-cmd &&
		grep -q "warning: t.trace-cmd: KernelShark opens only files named \*.dat" warn.txt &&
		! grep -q warning summary.txt ||
		{ cat warn.txt; echo "FAIL: no warning for a name without .dat (or one for t.dat)"; exit 1; }
	echo "ok: a warning for -o t.trace-cmd, none for -o t.dat"
	# the checker must catch a wrong message
	# (a message, as the site's event holds it)
	python3 -c 'import sys; d = open("t.dat", "rb").read(); assert d.count(b"start: 3 workers") > 0
open("bad.dat", "wb").write(d.replace(b"start: 3 workers", b"start: 3 workerZ", 1))' ||
		{ echo "FAIL: no string to damage in t.dat"; exit 1; }
	if python3 "$SRC/check_tracedat.py" "$BPRINT" t.bpt bad.dat summary.txt >bad.txt 2>&1; then
		echo "FAIL: the checker passed a damaged trace.dat"; exit 1
	fi
	echo "ok: the checker fails on a damaged copy"
	;;
empty)
	trace BPRINT_DISABLE=1
	"$BPRINT" export --format=trace-cmd -o t.dat t.bpt || { echo "FAIL: bprint export"; exit 1; }
	out=$(trace-cmd report t.dat 2>&1)
	[ "$out" = "cpus=1" ] || { echo "FAIL: trace-cmd report of an empty trace: $out"; exit 1; }
	trace-cmd dump -v t.dat 2>&1 | grep -q "is a valid trace-cmd file" ||
		{ echo "FAIL: trace-cmd dump -v"; exit 1; }
	echo "ok: empty trace: valid, no records"
	;;
chrome)
	trace
	"$BPRINT" export --format=chrome -o t.json t.bpt 2>summary.txt ||
		{ cat summary.txt; echo "FAIL: bprint export"; exit 1; }
	cat summary.txt
	python3 "$SRC/check_chrome.py" "$BPRINT" t.bpt t.json summary.txt || exit 1
	# bprint --help names every export format
	line=$("$BPRINT" --help | grep '^  export ')
	for f in trace.dat Chrome Perfetto CTF; do
		case $line in *"$f"*) ;; *) echo "FAIL: bprint --help's export line lacks $f: $line"; exit 1;; esac
	done
	echo "ok: bprint --help names every export format"
	;;
ctf)
	PY=python3
	[ -x /usr/bin/python3 ] && PY=/usr/bin/python3	# where Debian's bt2 module is
	trace
	"$BPRINT" export --format=ctf -o ctf t.bpt 2>summary.txt ||
		{ cat summary.txt; echo "FAIL: bprint export"; exit 1; }
	cat summary.txt
	$PY "$SRC/check_ctf.py" "$BPRINT" t.bpt ctf summary.txt 20000
	rc=$?
	[ $rc -eq 0 ] || exit $rc
	# the checker must catch a wrong message
	cp -r ctf bad && $PY -c 'import glob
for p in glob.glob("bad/stream_*"):
    d = open(p, "rb").read()
    if b"twostrings" in d:
        open(p, "wb").write(d.replace(b"twostrings", b"twostrinGs", 1)); break
else:
    raise SystemExit("no twostrings in the streams")' || exit 1
	if $PY "$SRC/check_ctf.py" "$BPRINT" t.bpt bad summary.txt 20000 >bad.txt 2>&1; then
		echo "FAIL: the checker passed a damaged CTF trace"; exit 1
	fi
	echo "ok: the checker fails on a damaged copy"
	# babeltrace2's other components take it: convert to sink.ctf.fs and read
	# back, trimming (the env key "clock" made both stop), sink.text.details
	babeltrace2 ctf >orig.txt 2>/dev/null || { echo "FAIL: babeltrace2 ctf"; exit 1; }
	babeltrace2 convert ctf --component=sink.ctf.fs --params='path="rt"' >conv.out 2>&1 ||
		{ cat conv.out; echo "FAIL: babeltrace2 convert to sink.ctf.fs"; exit 1; }
	babeltrace2 rt >rt.txt 2>/dev/null && cmp -s orig.txt rt.txt ||
		{ echo "FAIL: the converted trace reads otherwise"; exit 1; }
	echo "ok: converted by sink.ctf.fs, the copy reads the same ($(wc -l <rt.txt) events)"
	babeltrace2 --clock-seconds ctf >secs.txt 2>/dev/null
	b=$(LC_ALL=C sed -n '100s/^\[\([0-9.]*\)\].*/\1/p' secs.txt)
	e=$(LC_ALL=C sed -n '2000s/^\[\([0-9.]*\)\].*/\1/p' secs.txt)
	babeltrace2 ctf --begin="$b" --end="$e" -o ctf -w trim >trim.out 2>&1 ||
		{ cat trim.out; echo "FAIL: babeltrace2 --begin --end -o ctf"; exit 1; }
	babeltrace2 --clock-seconds trim 2>/dev/null | LC_ALL=C sed 's/ (+[^)]*)//' >trimmed.txt
	# the times as strings: same width, and awk's doubles would round the ns
	LC_ALL=C awk -v b="$b" -v e="$e" '{ t = substr($1, 2, length($1) - 2) "" }
		t >= b "" && t <= e ""' secs.txt | LC_ALL=C sed 's/ (+[^)]*)//' >want.txt
	[ -s want.txt ] && cmp -s want.txt trimmed.txt ||
		{ echo "FAIL: trimmed to [$b, $e]: $(wc -l <trimmed.txt) events, want $(wc -l <want.txt)"; exit 1; }
	echo "ok: trimmed to [$b, $e] and written as CTF: $(wc -l <trimmed.txt) events, the same"
	babeltrace2 ctf -c sink.text.details >details.txt 2>&1 && grep -q procname details.txt ||
		{ tail -3 details.txt; echo "FAIL: sink.text.details"; exit 1; }
	echo "ok: sink.text.details"
	# sink.ctf.fs writes a trace under its hostname
	[ -d "rt/$(hostname)" ] || { ls rt; echo "FAIL: sink.ctf.fs did not write rt/$(hostname)"; exit 1; }
	echo "ok: sink.ctf.fs wrote the trace to rt/$(hostname)"
	# a command line of UTF-8 and a byte that is not: kept, escaped in TSDL
	env BPRINT_FILE=u.bpt "$TRACED" 10 "caf$(printf '\303\251')" "$(printf 'x\377y')" || exit 1
	"$BPRINT" export --format=ctf -q -o uctf u.bpt || { echo "FAIL: export u.bpt"; exit 1; }
	$PY -c 'import bt2, sys
for m in bt2.TraceCollectionMessageIterator("uctf"):
    if type(m) is bt2._StreamBeginningMessageConst:
        got = str(m.stream.trace.environment["bprint_cmdline"]).encode("utf-8", "surrogateescape")
        sys.exit(0 if got.endswith(b" 10 caf\xc3\xa9 x\xffy") else "bprint_cmdline %r" % got)
sys.exit("no stream")' || { echo "FAIL: the command line's bytes in the CTF environment"; exit 1; }
	echo "ok: the command line's UTF-8 and other bytes kept in the CTF environment"
	# a trace without records: metadata alone, which babeltrace2 reads as empty
	env BPRINT_FILE=e.bpt BPRINT_DISABLE=1 "$TRACED" 10 || exit 1
	"$BPRINT" export --format=ctf -q -o ectf e.bpt || { echo "FAIL: empty export"; exit 1; }
	out=$(babeltrace2 ectf 2>&1) && [ -z "$out" ] && [ "$(ls ectf)" = metadata ] ||
		{ echo "FAIL: empty CTF trace: $out"; exit 1; }
	echo "ok: empty trace: metadata only, babeltrace2 reads no events"
	# an export into the same directory replaces the old one's files
	"$BPRINT" export --format=ctf -q -o ctf e.bpt && [ "$(ls ctf)" = metadata ] ||
		{ echo "FAIL: a second export left old stream files"; exit 1; }
	echo "ok: exporting again into a directory replaces its streams"
	;;
perfetto)
	trace
	"$BPRINT" export --format=perfetto -o t.pftrace t.bpt 2>summary.txt ||
		{ cat summary.txt; echo "FAIL: bprint export"; exit 1; }
	cat summary.txt
	"$BPRINT" export --format=chrome -q -o t.json t.bpt || { echo "FAIL: bprint export"; exit 1; }
	python3 "$SRC/check_perfetto.py" "$BPRINT" t.bpt t.pftrace summary.txt "$SRC" t.json || exit 1
	# ids random per export; BPRINT_EXPORT_SEED makes them reproducible
	BPRINT_EXPORT_SEED=7 "$BPRINT" export -f perfetto -q -o s1.pftrace t.bpt &&
	BPRINT_EXPORT_SEED=7 "$BPRINT" export -f perfetto -q t.bpt | cmp - s1.pftrace ||
		{ echo "FAIL: export to a pipe differs from export to a file"; exit 1; }
	cmp -s s1.pftrace t.pftrace &&
		{ echo "FAIL: two exports have the same ids"; exit 1; }
	echo "ok: ids random per export, reproducible with BPRINT_EXPORT_SEED"
	echo "records, 5 threads, 1 lost" >bad.txt
	if python3 "$SRC/check_perfetto.py" "$BPRINT" t.bpt t.pftrace bad.txt "$SRC" >bad.out 2>&1; then
		echo "FAIL: the checker passed a wrong lost count"; exit 1
	fi
	echo "ok: the checker fails on a wrong count"
	;;
progress)
	"$BPRINT" record -q -b 32M -M discard -o t.bpt -- "$TRACED" 4000000 ||
		{ echo "FAIL: bprint record"; exit 1; }
	"$BPRINT" export -f perfetto -o t.pf t.bpt 2>plain.txt || { echo "FAIL: bprint export"; exit 1; }
	n=$(sed -n 's/^t.pf: \([0-9]*\) records.*/\1/p' plain.txt)
	if [ "${n:-0}" -lt 2097152 ]; then
		echo "SKIP: only ${n:-0} records were kept"; exit 77
	fi
	if grep -q "records read" plain.txt; then
		echo "FAIL: a progress line on a stderr that is not a terminal"; cat -v plain.txt; exit 1
	fi
	echo "ok: no progress line when stderr is a file"
	# shown after BPRINT_PROGRESS_AFTER ms (default 1000): at once here, so
	# that the test does not depend on how fast the machine is
	line="bprint: [0-9]* of $n records read ([0-9]*%), [0-9.]* s, about [0-9.]* s left"
	BPRINT_PROGRESS_AFTER=0 script -qec "'$BPRINT' export -f perfetto -o t.pf t.bpt" /dev/null \
		>tty.txt || { echo "FAIL: bprint export under script"; exit 1; }
	tr '\r' '\n' <tty.txt | grep -q "^$line" ||
		{ echo "FAIL: no progress line on a terminal"; cat -v tty.txt; exit 1; }
	grep -q "$(printf '\033')\[K" tty.txt || { echo "FAIL: the progress line is not erased"; exit 1; }
	echo "ok: export: a progress line on a terminal with its percentage and time left, erased"
	BPRINT_PROGRESS_AFTER=0 script -qec "'$BPRINT' report t.bpt >/dev/null" /dev/null >tty.txt ||
		{ echo "FAIL: bprint report under script"; exit 1; }
	tr '\r' '\n' <tty.txt | grep -q "^$line" ||
		{ echo "FAIL: report: no progress line on a terminal"; cat -v tty.txt; exit 1; }
	echo "ok: report: a progress line on a terminal"
	BPRINT_PROGRESS_AFTER=3600000 script -qec "'$BPRINT' export -f chrome -o t.json t.bpt" \
		/dev/null >tty.txt || { echo "FAIL: bprint export under script"; exit 1; }
	! grep -q "records read" tty.txt || { echo "FAIL: a line before its time"; exit 1; }
	echo "ok: no line before BPRINT_PROGRESS_AFTER"
	;;
tracemodel)
	trace
	"$BPRINT" export --format=chrome -o t.json t.bpt 2>summary.txt ||
		{ cat summary.txt; echo "FAIL: bprint export"; exit 1; }
	mkdir -p npm && (cd npm && npm init -y >/dev/null &&
		npm install --no-audit --no-fund --silent @tracerbench/trace-model >npm.log 2>&1) ||
		{ cat npm/npm.log; echo "SKIP: npm could not install @tracerbench/trace-model"; exit 77; }
	"$BPRINT" report -n t.bpt >report.txt || { echo "FAIL: bprint report"; exit 1; }
	NODE_PATH="$WORK/npm/node_modules" node "$SRC/check_trace_model.js" t.json report.txt summary.txt ||
		exit 1
	# keyed spans as async pairs (b/e with an id), nested ones as X: the
	# model still builds and holds the same threads and events
	"$BPRINT" export --format=chrome -q -o spans.json --span 'fmt:worker*,fmt:worker*,worker' \
		--span 'fmt:before*,fmt:after*' t.bpt || { echo "FAIL: export --span"; exit 1; }
	grep -q '"ph":"b"' spans.json && grep -q '"ph":"X"' spans.json ||
		{ echo "FAIL: no async (b) or complete (X) span events"; exit 1; }
	NODE_PATH="$WORK/npm/node_modules" node "$SRC/check_trace_model.js" spans.json report.txt summary.txt ||
		exit 1
	;;
*)
	echo "unknown mode $MODE"; exit 1 ;;
esac
echo "all passed"
