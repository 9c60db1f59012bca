#!/bin/sh
# %pS and %ps of C++ functions demangled, as c++filt prints the symbols nm
# lists, in bprint report and in every export: Chrome JSON, Perfetto
# (protoc), CTF (babeltrace2) and trace.dat (trace-cmd report); each
# viewer that is not installed is skipped alone.
#   sh symbols_cxx.sh BPRINT TRACED NM WORKDIR SRCDIR
set -u
BPRINT=$1 TRACED=$2 NM=$3 WORK=$4 SRC=$5
. "$(dirname "$0")/../lib.sh"
bp_env_reset
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
command -v c++filt >/dev/null 2>&1 || { echo "SKIP: c++filt is not installed"; exit 77; }

BPRINT_FILE=t.bpt BPRINT_CLOCK=mono "$TRACED" || { echo "FAIL: the traced program"; exit 1; }
before=0
# the names, from the program's symbol table through c++filt
want() { "$NM" "$TRACED" | awk -v s="$1" '$3 ~ s { print $3 }' | c++filt | head -1; }
cart=$(want '^_ZN4shop4Cart3addEi$') ti=$(want '^_ZN4shop5totalEi$')
td=$(want '^_ZN4shop5totalEd$') tw=$(want '^_ZN4shop5twiceIlEET_S1_$')
for n in "$cart" "$ti" "$td" "$tw"; do
	case $n in *shop::*) ;; *) echo "FAIL: nm | c++filt gave '$n'"; exit 1 ;; esac
done
"$BPRINT" report -m t.bpt > report.txt || fail "report"
# %pS: NAME+0xOFF/0xSIZE; %ps: NAME
grep -qF "cart $cart+0x0/0x" report.txt && grep -qF "/0x" report.txt &&
	grep -qF " $cart" report.txt && grep -qF "total int $ti+0x0/0x" report.txt &&
	grep -qF "total double $td+0x0/0x" report.txt && grep -qxF "twice $tw" report.txt ||
	{ cat report.txt; fail "report: not demangled"; }
grep -q '_ZN' report.txt && fail "report: a mangled name left"
[ $fails -eq "$before" ] && echo "ok: report: $cart, $ti, $td, $tw"

# every export: the same names, never a mangled one
check_export() {	# NAME FILE: the names are in FILE, no _ZN
	for n in "$cart" "$ti" "$td" "$tw"; do
		grep -qF "$n" "$2" || { fail "$1: no $n"; return; }
	done
	grep -q '_ZN4shop' "$2" && { fail "$1: a mangled name left"; return; }
	echo "ok: $1: the names demangled"
}
"$BPRINT" export -q -f chrome -o t.json t.bpt || fail "export chrome"
check_export chrome t.json
if command -v protoc >/dev/null 2>&1; then
	"$BPRINT" export -q -f perfetto -o t.pftrace t.bpt || fail "export perfetto"
	python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import check_perfetto as cp
sys.stdout.buffer.write(cp.frame(cp.packets(open("t.pftrace", "rb").read())))' "$SRC" > t.framed &&
		protoc -I "$SRC" --decode=perfetto.protos.Trace perfetto.proto < t.framed > t.pf.txt ||
		fail "protoc --decode"
	check_export perfetto t.pf.txt
else
	echo "skip: perfetto (protoc is not installed)"
fi
if command -v babeltrace2 >/dev/null 2>&1; then
	"$BPRINT" export -q -f ctf -o ctf t.bpt && babeltrace2 ctf > ctf.txt 2>&1 || fail "ctf"
	check_export "ctf (babeltrace2)" ctf.txt
else
	echo "skip: ctf (babeltrace2 is not installed)"
fi
if command -v trace-cmd >/dev/null 2>&1; then
	"$BPRINT" export -q -f trace-cmd -o t.dat t.bpt && trace-cmd report t.dat > dat.txt 2>&1 ||
		fail "trace.dat"
	check_export "trace.dat (trace-cmd report)" dat.txt
else
	echo "skip: trace.dat (trace-cmd is not installed)"
fi
[ $fails -eq 0 ] && echo "all passed"
[ $fails -eq 0 ]
