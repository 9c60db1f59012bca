#!/usr/bin/env bash
# The command and the Python module stand on the public headers
# (DESIGN.md, 7: what they need and the API lacks is added to the API): a
# file of python/src/ or tools/bprint/ may include src/ internals
# ("format/...", "file/...", ...) only if it is listed below, with why;
# a listed file that no longer needs them fails too, so that the list
# only shrinks.
# Usage: public_only.sh SOURCE_DIR
set -euo pipefail
top=$1
# file: why it still reaches past the API (none does any more; a file
# that must is listed here, with why)
declare -A allowed=(
)
layers='format|ring|trace|file|writer|runtime|reader|drainer|output|analysis'
fail=0 files=0
for f in "$top"/python/src/*.[ch] "$top"/tools/bprint/*.[ch]; do
	rel=${f#"$top"/}
	files=$((files + 1))
	internal=$(grep -cE "^[[:space:]]*#[[:space:]]*include[[:space:]]*\"($layers)/" "$f" || true)
	if [ "$internal" -gt 0 ] && [ -z "${allowed[$rel]:-}" ]; then
		echo "FAIL: $rel includes src/ internals; use <bprint/...> (or add to the API):"
		grep -nE "^[[:space:]]*#[[:space:]]*include[[:space:]]*\"($layers)/" "$f" | sed 's/^/    /'
		fail=1
	elif [ "$internal" -eq 0 ] && [ -n "${allowed[$rel]:-}" ]; then
		echo "FAIL: $rel no longer includes internals: take it off the list in $0"
		fail=1
	fi
done
[ "$files" -gt 0 ] || { echo "FAIL: no file under $top/python/src or $top/tools/bprint"; exit 1; }
[ $fail = 0 ] && echo "public_only: $files files of the command and the module, ${#allowed[@]} still on internals (listed, with why)"
exit $fail
