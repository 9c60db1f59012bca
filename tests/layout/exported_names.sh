#!/usr/bin/env bash
# Only bp_ and bprint_ names leave the libraries (DESIGN.md, "The public
# header": one naming rule marks what is ours).  A program that links the
# static reading library and defines its own ring_next() or pb_uint() must
# neither fail to link nor call ours; so every defined global symbol of
# every .a and .so must carry a prefix.  The check is shown to bite: the
# reading library's internal archive (the command's) must still hold such
# names, so a rule that passes because nothing was looked at fails here.
# Usage: exported_names.sh INTERNAL.a LIB...
set -euo pipefail
internal=$1
shift
fail=0
allowed='^(bp_|bprint_|_?_?bprint|_init$|_fini$|_edata$|_end$|__bss_start$)'

for lib in "$@"; do
	names=$(nm -g --defined-only "$lib" 2>/dev/null | awk 'NF >= 3 { print $3 }' | sort -u)
	[ -n "$names" ] || { echo "FAIL: $lib: no symbols found"; fail=1; continue; }
	bad=$(grep -Ev "$allowed" <<<"$names" || true)
	if [ -n "$bad" ]; then
		echo "FAIL: $lib exports $(wc -l <<<"$bad") names without bp_/bprint_:"
		head -20 <<<"$bad" | sed 's/^/  /'
		fail=1
	else
		echo "ok: $lib: $(wc -l <<<"$names") global names, all prefixed"
	fi
done

# the names first, then grep: grep -q quitting at its first match would
# kill nm with SIGPIPE, which pipefail takes for a failure
internal_names=$(nm -g --defined-only "$internal" | awk 'NF >= 3 { print $3 }')
if ! grep -Evq "$allowed" <<<"$internal_names"; then
	echo "FAIL: $internal has no unprefixed internal name: the check would see nothing"
	fail=1
fi
exit $fail
