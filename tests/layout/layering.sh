#!/usr/bin/env bash
# Layers only use the layers below them (DESIGN.md, "The house"): a file in
# src/<layer>/ may include "<other>/..." only for a layer lower in this list.
# file/ is the trace file's format and codecs; writer/ the live-file writer
# (runtime library), runtime/ the runtime's composition root above trace/
# and writer/; reader/ the trace-file reader and drainer/ the recorder's
# copier, neither including the other; output/ and analysis/ read through
# reader/.  A linear order: no folder includes one above it, so there is no
# circle between folders either (docs/layout.md draws it).
# Usage: layering.sh SOURCE_DIR
set -euo pipefail
src=$1/src
order=(format ring trace file writer runtime reader drainer output analysis)
# headers that are their folder's own: nothing outside it includes them
own_header=(ring/geom.h)
private() { local h; for h in "${own_header[@]}"; do [ "$h" = "$2" ] && [ "${h%%/*}" != "$1" ] && return 0; done; return 1; }
# folders side by side in the order above: neither includes the other
apart=(drainer:reader)
beside() { local p; for p in "${apart[@]}"; do [ "$p" = "$1:$2" ] || [ "$p" = "$2:$1" ] && return 0; done; return 1; }
rank() { local i; for i in "${!order[@]}"; do [ "${order[$i]}" = "$1" ] && { echo "$i"; return; }; done; echo -1; }

fail=0 checked=0
for dir in "$src"/*/; do
	layer=$(basename "$dir")
	own=$(rank "$layer")
	if [ "$own" -lt 0 ]; then
		echo "FAIL: src/$layer is not a known layer (add it to the order in $0)"
		fail=1
		continue
	fi
	for f in "$dir"*.[ch]; do
		[ -e "$f" ] || continue
		while IFS= read -r inc; do
			checked=$((checked + 1))
			to=${inc%%/*}
			[ "$to" = bprint ] && continue	# a public header (include/bprint/)
			r=$(rank "$to")
			if private "$layer" "$inc"; then
				echo "FAIL: src/$layer/$(basename "$f") includes \"$inc\" (its folder's own; see ${inc%%/*}/view.h)"
				fail=1
			elif [ "$r" -lt 0 ] || [ "$r" -gt "$own" ] || beside "$layer" "$to"; then
				echo "FAIL: src/$layer/$(basename "$f") includes \"$inc\" (layer $to is not below $layer)"
				fail=1
			fi
		done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\/[^"]*\)".*/\1/p' "$f")
	done
done
# Inside reader/: a source says what happened and its caller acts on it
# (reader/reading.h): the ring and stream sources neither include nor call
# the parts that act (the catalogue, the tables, the accounts' updates).
for f in "$src"/reader/ring_source.c "$src"/reader/stream_source.c; do
	[ -e "$f" ] || { echo "FAIL: $f is gone: update $0"; fail=1; continue; }
	if grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"reader/(catalogue|tables|accounts)\.h"|\<(catalogue|tables)_[a-z_]+\(|\<accounts_(update|check_read)\(' "$f"; then
		echo "FAIL: src/reader/$(basename "$f") includes or calls the catalogue, the tables or the accounts (a source reports, its caller acts)"
		fail=1
	fi
done
[ "$checked" -gt 0 ] || { echo "FAIL: no includes found under $src"; exit 1; }
[ $fail = 0 ] && echo "layering: $checked includes checked, none points up"
exit $fail
