#!/bin/sh
# A reader never trusts a file, the kernel's chunks included: a recorded
# trace with bytes of its kernel formats and pages chunks changed (single
# bytes, words set to 0xff.., page headers claiming more data than a page)
# is read by report, stats and latency --sched to the end, with a damaged
# file's exit status (2) or none (0), never a crash.
#   sh kernel_damage.sh BPRINT TRACED WORKDIR
# Skips (77) where it is not root or the kernel has no tracefs.
set -u
BPRINT=$1 TRACED=$2 WORK=$3
KERNEL_LIB=$(cd "$(dirname "$0")" && pwd)/kernel_lib.sh
. "$KERNEL_LIB"

"$BPRINT" record -q --kernel -o k.dat -- "$TRACED" pipe 20 || { echo "FAIL: record: exit $?"; exit 1; }
# the kernel chunks: offset and size of each (types 9 and 10), from the chunk headers
od -A d -t u4 -w32 -v k.dat | awk '
	$2 == 1262702658 && ($3 == 9 || ($3 == 10 && pages++ < 3)) { print $1 + 0, $3, $4 }' > chunks.txt
[ -s chunks.txt ] || { echo "FAIL: no kernel chunk found in the file"; exit 1; }

size=$(stat -c %s k.dat)
i=0
while read -r off type csize; do
	for rel in 40 44 56 128 136 140 200 1000 4100 4104 4108 8200; do
		[ "$rel" -lt "$csize" ] || continue
		for val in 255 0 127; do
			i=$((i + 1))
			cp k.dat m.dat
			printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $val $val $val $val)" |
				dd of=m.dat bs=1 seek=$((off + rel)) conv=notrunc status=none
			for cmd in "report --kernel=all" "stats" \
				"latency --sched --from fmt:before* --to fmt:before*"; do
				# shellcheck disable=SC2086
				"$BPRINT" $cmd m.dat > /dev/null 2> err.txt
				rc=$?
				[ $rc = 0 ] || [ $rc = 2 ] || [ $rc = 4 ] ||
					fail "$cmd, chunk type $type at $off, +$rel set to $val: exit $rc: $(head -2 err.txt)"
			done
		done
	done
done < chunks.txt
[ "$(stat -c %s k.dat)" = "$size" ] || fail "the original changed"
[ $fails = 0 ] && echo "kernel chunks damaged $i ways: read to the end every time"
[ $fails = 0 ]
