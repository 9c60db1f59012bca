#!/usr/bin/env bash
# The runtime library holds the runtime only (DESIGN.md, "Two libraries";
# its folders are src/format, ring, trace, writer and runtime, plus the
# file format's CRC32C, CMakeLists.txt): libbprint.so must not contain the
# trace-file reader (src/reader/), the drainer (src/drainer/), symbol
# lookup, compact pages (src/file/) or the exporters, nor link libdw/libelf;
# and every symbol it exports must be declared in an installed header.  The
# reading library, for contrast, must hold the reader.
# Usage: runtime_lib.sh LIBBPRINT.so LIBBPRINT-READER.so INCLUDE_DIR
set -euo pipefail
runtime=$1 reader=$2 include=$3
fail=0

# Every symbol, local ones included (the library is not stripped in a build).
all=$(nm "$runtime" | awk '{print $NF}')
reading=$(nm "$reader" | awk '{print $NF}')
for banned in bp_trace_open bp_trace_next bp_drain_pass bp_export bp_exporter_chrome bp_site_layout_new \
	      bp_symbols_new bp_compact_decode_page bp_compact_encode_page; do
	if grep -qx "$banned" <<<"$all"; then
		echo "FAIL: $runtime contains $banned (reading side)"
		fail=1
	fi
	# the names must exist somewhere, or this test checks nothing
	if ! grep -qx "$banned" <<<"$reading"; then
		echo "FAIL: $reader lacks $banned: the banned list is stale"
		fail=1
	fi
done
if readelf -d "$runtime" | grep -E 'NEEDED.*lib(dw|elf)\.' ; then
	echo "FAIL: $runtime links libdw or libelf"
	fail=1
fi

# Exported functions and objects, each declared in an installed header.
exported=$(nm -D --defined-only "$runtime" | awk '$2 ~ /[TDBR]/ {print $3}')
[ -n "$exported" ] || { echo "FAIL: $runtime exports nothing"; exit 1; }
n=0
for sym in $exported; do
	n=$((n + 1))
	if ! grep -rqw -- "$sym" "$include"; then
		echo "FAIL: $runtime exports $sym, which no header in $include declares"
		fail=1
	fi
done
[ $fail = 0 ] && echo "runtime library: $n exported symbols, all declared; no reader, drainer, exporter or libdw"
exit $fail
