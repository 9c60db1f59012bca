#!/bin/sh
# The kernel's events in an export (bprint export of a record --kernel
# trace), read by the export's real consumer (check_kernel_export.py):
# trace-cmd and libkshark, protoc with Perfetto's protos, babeltrace2, a
# JSON parser.
#   sh export_kernel.sh BPRINT TRACED WORKDIR FORMAT PYTHON SRCDIR [PROTO]
# Skips (77) where it is not root, the kernel has no tracefs or the
# consumer is not installed.
set -u
BPRINT=$1 TRACED=$2 WORK=$3 FORMAT=$4 PYTHON=$5 SRC=$6 PROTO=${7:-}
KERNEL_LIB=$(cd "$(dirname "$0")" && pwd)/kernel_lib.sh
. "$KERNEL_LIB"

case $FORMAT in
trace-cmd) need=trace-cmd out=k.dat ;;
perfetto) need=protoc out=k.pftrace ;;
ctf) need=babeltrace2 out=k.ctf ;;
*) need=$PYTHON out=k.json ;;
esac
command -v "$need" > /dev/null || { echo "SKIP: $need is not installed"; exit 77; }

for clock in tsc mono; do
	"$BPRINT" record -q --kernel --clock=$clock -o p.dat -- "$TRACED" pipe 30 ||
		{ fail "record ($clock): exit $?"; continue; }
	"$BPRINT" export -q -f "$FORMAT" -o $out p.dat || { fail "export ($clock): exit $?"; continue; }
	echo "== clock $clock"
	"$PYTHON" "$SRC/check_kernel_export.py" "$FORMAT" "$BPRINT" p.dat $out $PROTO ||
		fail "$FORMAT ($clock): the checks above"
done
finish
