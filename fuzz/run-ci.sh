#!/usr/bin/env bash
# A short libFuzzer run of every target, for CI (.ci/run calls it).
#
# Builds the targets with clang into build-fuzz (make fuzz), then runs each
# one for FUZZ_SECONDS (default 30) on a copy of its seed corpus in a
# temporary directory, so the run never adds files to fuzz/corpus/.  Any
# crash, sanitizer report, leak or timeout fails the script; the input that
# caused it is kept in the temporary directory, whose path is printed.
#
# Longer runs:   FUZZ_SECONDS=3600 bash fuzz/run-ci.sh
#   or by hand:  build-fuzz/fuzz/fuzz_bstr -max_total_time=3600 DIR fuzz/corpus/fuzz_bstr
#                (new inputs go into DIR, the first directory named)
# Seeds:  fuzz/gen-corpus.py rewrites the seeds of fuzz_decode, fuzz_bstr,
#   fuzz_roundtrip and fuzz_dense; add a case to its lists, or drop a small file into
#   fuzz/corpus/<target>/ by hand (fuzz_tracefile's are real trace files).
#   Keep seeds small and few; when a crash is fixed, add its input as a seed:
#   make check replays every seed (tests/fuzz/), so it stays fixed.
#   To shrink a grown corpus before committing it:
#     build-fuzz/fuzz/<target> -merge=1 NEWDIR fuzz/corpus/<target>
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${FUZZ_SECONDS:-30}
build=${FUZZ_BUILD:-build-fuzz}
targets=(fuzz_decode fuzz_bstr fuzz_roundtrip fuzz_tracefile fuzz_dense)

if [ "$build" = build-fuzz ]; then
	make fuzz
else
	cmake -S . -B "$build" -DCMAKE_C_COMPILER=clang -DBPRINT_FUZZ=ON \
		-DBPRINT_TESTS=OFF -DBPRINT_BENCH=OFF
	cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/bprint-fuzz.XXXXXX")
failed=0
for t in "${targets[@]}"; do
	bin="$build/fuzz/$t"
	if [ ! -x "$bin" ]; then
		echo "run-ci: $bin was not built" >&2
		failed=1
		continue
	fi
	mkdir -p "$work/$t/corpus" "$work/$t/artifacts"
	if [ -d "fuzz/corpus/$t" ]; then
		cp -R "fuzz/corpus/$t/." "$work/$t/corpus/"
	fi
	echo "== $t: ${seconds}s"
	if "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$work/$t/artifacts/" \
		"$work/$t/corpus" >"$work/$t/log" 2>&1; then
		grep -E '^(#[0-9]+.*DONE|stat::number_of_executed_units)' "$work/$t/log" || true
	else
		echo "run-ci: $t FAILED; log and input in $work/$t" >&2
		tail -n 40 "$work/$t/log" >&2
		failed=1
	fi
done

if [ "$failed" -ne 0 ]; then
	echo "run-ci: FAILED (kept $work)" >&2
	exit 1
fi
rm -rf "$work"
echo "run-ci: all ${#targets[@]} targets ran ${seconds}s each without a failure"
