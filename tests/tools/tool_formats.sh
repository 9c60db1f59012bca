# tool_formats: `bprint formats FILE` lists every call site of the traced
# program, each with its file:line (taken here from the program's source),
# as "ID : "FORMAT" FILE:LINE FUNCTION", ids unique and sorted.
. "$(dirname "$0")/tool_lib.sh"

BPRINT_FILE=t.dat "$TRACED" --threads 1 --records 16 || fail "traced failed"
"$BPRINT" formats t.dat > formats.out; rc=$?
[ $rc -eq 0 ] || fail "formats exit $rc"
cat formats.out

# every line of the source that holds a call site (not comments)
grep -n 'trace_printk(\|trace_puts(' "$SRC/traced.c" | grep -v '^[0-9]*: *\*' |
	sed 's/:.*//' | sort -n | sed 's/^/traced.c:/' > want.lines
# the file:line field, base name only; a site with a runtime format is
# listed once itself and once per format it traced (a derived site)
awk '{ print $(NF - 1) }' formats.out | sed 's|.*/||' | grep '^traced\.c:' |
	sort -t: -k2 -n -u > got.lines
same want.lines got.lines "every site, with file:line"
[ "$(wc -l < want.lines)" -ge 9 ] || fail "expected at least 9 sites in traced.c"

# ids: unique, ascending (the site lines; a site's fields follow it after a tab)
awk '/^[0-9]/ { print $1 }' formats.out > ids
sort -n -u ids > ids.sorted
same ids ids.sorted "ids unique and sorted"

# the shape of a line and the quoting
grep -q '^[0-9]* : "seq %d of thread %d" [^ ]*traced\.c:[0-9]* trace_one$' formats.out ||
	fail "line of the seq site"
grep -q '^[0-9]* : "timer tick %d" [^ ]*traced\.c:[0-9]* on_timer$' formats.out ||
	fail "line of the timer site"
grep -q '^[0-9]* : "a literal puts" ' formats.out || fail "trace_puts site"
grep -q '^[0-9]* : (formatted at trace time) [^ ]*traced\.c:[0-9]* trace_one$' formats.out ||
	fail "site with a runtime format"
# ... and its derived sites: the formats it traced, at its own file:line
dyn_line=$(grep -n 'trace_printk(fmt, who, i)' "$SRC/traced.c" | sed 's/:.*//')
puts_line=$(grep -n 'trace_puts(dyn)' "$SRC/traced.c" | sed 's/:.*//')
grep -q "^[0-9]* : \"dynamic format %d/%d\" [^ ]*traced\\.c:$dyn_line trace_one\$" formats.out ||
	fail "derived site of the runtime format (traced.c:$dyn_line)"
grep -q "^[0-9]* : \"%s\" [^ ]*traced\\.c:$puts_line trace_one\$" formats.out ||
	fail "derived site of trace_puts() of a runtime string (traced.c:$puts_line)"
# the fields after their site: TAB NAME TYPE CONVERSION (docs/fields.md)
grep -A2 '^[0-9]* : "seq %d of thread %d" ' formats.out | tail -n 2 > got.fields
printf '\tseq int32 %%d\n\tthread int32 %%d\n' > want.fields
same want.fields got.fields "the fields of the seq site"
[ "$(grep -c "$(printf '^\t')" formats.out)" -ge 4 ] || fail "too few field lines"
"$BPRINT" formats --libraries t.dat | grep -q '^lib 1 ' || fail "--libraries"
finish
