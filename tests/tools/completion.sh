#!/bin/bash
# The bash completion (tools/bprint/bprint.bash) completes what it should:
# commands, options, export formats, a trace's site ids and field names.
#   bash completion.sh BPRINT_DIR SRCDIR TRACED WORKDIR
set -u
dir=$1 src=$2 traced=$3 work=$4
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
PATH=$dir:$PATH
source "$src/tools/bprint/bprint.bash"
BPRINT_FILE=t.dat "$traced" 300 >/dev/null || { echo "FAIL: traced"; exit 1; }
fails=0
complete_of() {	# the words of a command line, the last one being completed
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	_bprint
	printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' '
}
want() {	# what, got, expected
	[ "$2" = "$3" ] || { echo "FAIL: $1: '$2', want '$3'"; fails=$((fails + 1)); }
}
want "commands" "$(complete_of bprint l)" "latency "
want "export formats" "$(complete_of bprint export --format p)" "perfetto "
want "hist options" "$(complete_of bprint hist --w)" "--where "
want "record options" "$(complete_of bprint record --kernel-b)" "--kernel-buffer "
want "help COMMAND" "$(complete_of bprint help ex)" "export "
sites=$(bprint formats t.dat | sed -n 's/^\([0-9]*\) : .*/\1/p' | sort | tr '\n' ' ')
want "site ids" "$(complete_of bprint report t.dat --site '')" "$sites"
want "fields" "$(complete_of bprint hist t.dat -v dur)" "dur_us "
want "record's clock" "$(complete_of bprint record --clock mo)" "mono mono_raw "
[ $fails -eq 0 ] && echo "ok: completion of commands, options, formats, sites and fields"
exit $((fails != 0))
