#!/bin/sh
# bprint latency's pairing rules and hist/latency's group options against
# a reference computed from report --json of the same trace
# (check_pairing.py).
#   sh pairing.sh BPRINT TRACED WORKDIR SRCDIR
# Exit 77 (skipped) without python3.
set -u
BPRINT=$1 TRACED=$2 WORK=$3 SRC=$4
. "$(dirname "$0")/../lib.sh"
bp_env_reset
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 is not installed"; exit 77; }

BPRINT_FILE=p.dat "$TRACED" 4 4 40 16 || { echo "FAIL: the traced program"; exit 1; }
"$BPRINT" report --json p.dat > p.jsonl || { echo "FAIL: report --json"; exit 1; }
exec python3 "$SRC/check_pairing.py" "$BPRINT" p.dat p.jsonl
