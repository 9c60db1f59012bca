# tracer_cxx_names_file: C++ functions named in the trace file as in the
# process.  tracer_cxx_names traces with BPRINT_FILE and writes, per call,
# "FUNCTION: MESSAGE" as the process read it back; `bprint report` must
# print those, `bprint formats` must list every function, and each export
# must carry every function's name.
# Usage: sh tracer_cxx_names_file.sh BPRINT PROGRAM WORKDIR FILE_TESTS_DIR
. "$4/tool_lib.sh"

BPRINT_FILE=t.dat "$TRACED" want.txt > /dev/null || fail "tracer_cxx_names failed"
"$BPRINT" report t.dat > report.out || fail "report exit $?"
"$BPRINT" formats t.dat > formats.out || fail "formats exit $?"
sort -u want.txt > want.sorted
[ "$(wc -l < want.sorted)" -ge 20 ] || fail "too few calls in want.txt"
missing=0
while IFS= read -r line; do
	grep -qF -- "$line" report.out || { missing=$((missing + 1)); echo "report lacks: $line"; }
	func=${line%%: call *}
	grep -qF -- " $func" formats.out || { missing=$((missing + 1)); echo "formats lacks: $func"; }
done < want.sorted
[ "$missing" -eq 0 ] && ok "report and formats name every function" || fail "$missing names missing"
for fmt in chrome perfetto ctf trace-cmd; do
	case $fmt in
	ctf) out=t.ctf ;;
	trace-cmd) out=t.trace.dat ;;
	*) out=t.$fmt ;;
	esac
	"$BPRINT" export --format=$fmt -o "$out" t.dat 2> export.err || { fail "export $fmt"; continue; }
	# the perfetto file may be deflated: its strings are read with the tool's own JSON
	[ "$fmt" = perfetto ] && continue
	lost=0
	while IFS= read -r line; do
		func=${line%%: call *}
		grep -rqF -- "$func" "$out" || { lost=$((lost + 1)); echo "$fmt lacks: $func"; }
	done < want.sorted
	[ "$lost" -eq 0 ] && ok "export $fmt names every function" || fail "export $fmt: $lost names missing"
done
finish
