#!/bin/sh
# The man page as man shows it: every command of COMMANDS (and every option
# block of OPTIONS) starts at the same indent, so that an .RS left open by
# one entry does not push the next ones in as if they were part of it.
#   sh man_layout.sh MANPAGE
# Exit 77 (skipped) without groff.
set -u
MAN=$1
command -v groff >/dev/null 2>&1 && command -v col >/dev/null 2>&1 ||
	{ echo "SKIP: groff or col is not installed"; exit 77; }
groff -man -Tascii -rLL=200n "$MAN" 2>/dev/null | col -bx > man.txt || exit 1
fails=0
# COMMANDS: "report [FILE]", "latency --from ...": one indent for all
awk '/^COMMANDS/ { on = 1; next } /^[A-Z]/ { on = 0 } on' man.txt |
	grep -E '^ +(report|tail|hist|latency|formats|stats|record|snapshot|export)( |$)' > commands.txt
n=$(wc -l < commands.txt)
indents=$(sed 's/[^ ].*//' commands.txt | awk '{ print length($0) }' | sort -u | wc -l)
if [ "$n" -ne 9 ] || [ "$indents" -ne 1 ]; then
	echo "FAIL: COMMANDS: $n entries (want 9) at $indents indents (want 1):"
	cat commands.txt
	fails=1
fi
# OPTIONS: the sub-headings ("report and tail", "hist and latency", ...)
awk '/^OPTIONS/ { on = 1; next } /^[A-Z]/ { on = 0 } on' man.txt |
	grep -E '^ +(report and tail|hist and latency|formats|stats|record|export|all commands)$' > options.txt
indents=$(sed 's/[^ ].*//' options.txt | awk '{ print length($0) }' | sort -u | wc -l)
if [ "$(wc -l < options.txt)" -lt 7 ] || [ "$indents" -ne 1 ]; then
	echo "FAIL: OPTIONS: sub-headings at $indents indents (want 1):"
	cat options.txt
	fails=1
fi
[ $fails -eq 0 ] && echo "ok: COMMANDS and OPTIONS entries at one indent"
# no control character in the source: a "\fR" a script turned into a form
# feed rendered "FILE.live\fR, " as "FILE.livRP"
if LC_ALL=C grep -n "$(printf '[\001-\010\013-\037\177]')" "$MAN" > controls.txt; then
	echo "FAIL: control characters in the man page:"
	cat -A controls.txt
	fails=1
else
	echo "ok: no control characters in the man page's source"
fi
exit $fails
