#!/bin/sh
# report --from/--to with the times report and latency --top print (six
# decimals): latency --top's promise is that `bprint report --from FROM --to
# TO` shows a span, so --to SEC keeps every record whose timestamp column
# reads SEC, to the last nanosecond of that microsecond.
#   sh report_window.sh BPRINT TRACED WORKDIR
# The reference: report --raw's nanoseconds, cut here with awk.
set -u
BPRINT=$1 TRACED=$2 WORK=$3
. "$(dirname "$0")/../lib.sh"
bp_env_reset
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1

BPRINT_FILE=t.dat BPRINT_CLOCK=mono "$TRACED" 400 || { echo "FAIL: the traced program"; exit 1; }
"$BPRINT" report --raw t.dat > raw.txt || exit 1

# the longest span: both of its records are in the window its times give
"$BPRINT" latency --from 'fmt:begin*' --to 'fmt:end*' -k req --top 1 t.dat > top.txt || exit 1
set -- $(awk '/->/ && $NF ~ /^req=/ { print $(NF - 3), $(NF - 1), substr($NF, 5) }' top.txt)
[ $# -eq 3 ] || { echo "FAIL: no span in latency --top: $(cat top.txt)"; exit 1; }
from=$1 to=$2 req=$3
"$BPRINT" report --raw --from "$from" --to "$to" t.dat > span.txt || exit 1
grep -q " begin req $req kind " span.txt || fail "--from $from --to $to: no 'begin req $req'"
grep -q " end req $req status " span.txt || fail "--from $from --to $to: no 'end req $req'"

# every record's own time, printed with six decimals, selects it and the
# records of the same microsecond: 20 records spread over the trace (the
# times cut as strings: nanoseconds past 2^53 do not survive awk's doubles)
n=$(wc -l < raw.txt)
for i in $(awk -v n="$n" 'BEGIN { for (k = 1; k <= 20; k++) print int(k * n / 21) }'); do
	ns=$(awk -v i="$i" 'NR == i { print $1 }' raw.txt)
	sec=$(echo "$ns" | awk '{ l = length($1); print substr($1, 1, l - 9) "." substr($1, l - 8, 6) }')
	awk -v ns="$ns" 'length($1) == length(ns) && substr($1, 1, length($1) - 3) "" == substr(ns, 1, length(ns) - 3) ""' \
		raw.txt > want.txt
	"$BPRINT" report --raw --from "$sec" --to "$sec" t.dat > got.txt || exit 1
	cmp -s want.txt got.txt ||
		fail "--from $sec --to $sec: $(wc -l < got.txt) lines, want $(wc -l < want.txt) (record $i, ns $ns)"
done

# a time given to the nanosecond still ends at that nanosecond
ns=$(awk 'NR == 2 { print $1 }' raw.txt)
sec=$(echo "$ns" | awk '{ l = length($1); print substr($1, 1, l - 9) "." substr($1, l - 8, 9) }')
"$BPRINT" report --raw --to "$sec" t.dat > got.txt || exit 1
awk -v ns="$ns" 'length($1) < length(ns) || (length($1) == length(ns) && $1 "" <= ns "")' raw.txt > want.txt
cmp -s want.txt got.txt || fail "--to $sec (nanoseconds): $(wc -l < got.txt) lines, want $(wc -l < want.txt)"

[ $fails -eq 0 ] && echo "ok: report --from/--to with the printed times"
exit $((fails != 0))
