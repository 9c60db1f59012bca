#!/usr/bin/env bash
# What keeping the rings in shared memory (docs/attach.md) costs the hot
# path: every row of bench-hotpath (bench-hotpath --row NAME, C and C++)
# with the rings in shared memory (the default) and in anonymous memory
# (BPRINT_ATTACH=0), side by side in one run.  Each round runs every row
# once in each memory, in alternating order; a row's figure in a memory is
# the least over the rounds of its ns per call (bench-hotpath's median of
# RUNS runs): on a shared, loaded machine noise only ever adds time.  The
# ratio is shared / anonymous; the target is every row within 3 %.
#   bash bench/attach_cost.sh [BUILD_DIR] [ROUNDS] [CALLS] [RUNS]
#   (default build, 15 rounds of 200000 calls x 5 runs)
set -euo pipefail
build=${1:-build} rounds=${2:-15} calls=${3:-200000} runs=${4:-5}
bench=$build/bench/bench-hotpath
rows="seed static_str one_int two_ints one_double complex_fmt mixed_scalars one_char
      one_string string_8 string_port precision string_200 nonconst disabled many"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# "ROW C_NS CXX_NS" from "NAME, R runs of N calls: floor F ns; C X ns, ...; C++ Y ns, ..."
one() {
	local mem=$1 row=$2
	if [ "$mem" = anon ]; then
		BPRINT_ATTACH=0 "$bench" --row "$row" "$calls" "$runs"
	else
		"$bench" --row "$row" "$calls" "$runs"
	fi | awk -v row="$row" '{
		c = "-"; x = "-"
		for (i = 1; i < NF; i++) {
			if ($i == "C" && $(i + 2) == "ns,") c = $(i + 1)
			if ($i == "C++" && $(i + 2) == "ns,") x = $(i + 1)
		}
		print row, c, x
	}' >> "$work/$mem"
}

for ((i = 0; i < rounds; i++)); do
	for row in $rows; do
		if ((i % 2)); then one anon "$row"; one shared "$row"; else one shared "$row"; one anon "$row"; fi
	done
done

printf 'bench-hotpath --row, %d rounds of %d calls x %d runs: least ns per call of the rounds\n\n' \
	"$rounds" "$calls" "$runs"
printf '%-14s %9s %9s %8s   %9s %9s %8s\n' row "C anon" "C shared" ratio "C++ anon" "C++ sh." ratio
awk -v order="$rows" '
	FNR == 1 { mem = FILENAME; sub(/.*\//, "", mem) }
	{
		k = mem SUBSEP $1
		if ($2 != "-" && (!(k in c) || $2 + 0 < c[k])) c[k] = $2 + 0
		if ($3 != "-" && (!(k in x) || $3 + 0 < x[k])) x[k] = $3 + 0
	}
	END {
		n = split(order, names, /[ \n\t]+/); worst = 0
		for (r = 1; r <= n; r++) {
			name = names[r]; if (name == "") continue
			a = "anon" SUBSEP name; s = "shared" SUBSEP name
			rc = c[a] > 0 ? c[s] / c[a] : 1
			line = sprintf("%-14s %9.2f %9.2f %7.3fx", name, c[a], c[s], rc)
			rx = 1
			if ((a in x) && x[a] > 0) {
				rx = x[s] / x[a]
				line = line sprintf("   %9.2f %9.2f %7.3fx", x[a], x[s], rx)
			}
			print line
			if (rc - 1 > worst) worst = rc - 1
			if (rx - 1 > worst) worst = rx - 1
		}
		printf "\nworst row: %+.1f %%; every row within 3 %%: %s\n", worst * 100, worst <= 0.03 ? "holds" : "FAILS"
	}' "$work/anon" "$work/shared"
