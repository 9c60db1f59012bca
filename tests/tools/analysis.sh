#!/bin/sh
# bprint hist and latency, report --where/--json/--csv, against references
# computed here on their own (python3): the values from the formulas
# analysis_traced.c documents, the spans from pairing report --raw's lines.
#   sh analysis.sh BPRINT TRACED WORKDIR SRCDIR
# Exit 77 (skipped) without python3.
set -u
BPRINT=$1 TRACED=$2 WORK=$3 SRC=$4
. "$(dirname "$0")/../lib.sh"
bp_env_reset
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 is not installed"; exit 77; }
N=3000

BPRINT_FILE=a.dat "$TRACED" $N || { echo "FAIL: the traced program"; exit 1; }
"$BPRINT" report --raw a.dat > raw.txt || { echo "FAIL: report --raw"; exit 1; }
exec python3 "$SRC/check_analysis.py" "$BPRINT" "$TRACED" a.dat raw.txt $N
