# tracer_fmtcache_file: a trace of runtime-format call sites through a trace
# file.  tracer_fmtcache traces with BPRINT_FILE and writes what each record
# must read as (its message and the format it was traced with); `bprint
# report` must print those messages, and each record's site id must name,
# in `bprint formats`, a derived site: the traced format, at the call
# site's file.  Usage: sh tracer_fmtcache_file.sh BPRINT PROGRAM WORKDIR FILE_TESTS_DIR
. "$4/tool_lib.sh"

BPRINT_FILE=t.dat BPRINT_BUFFER_SIZE=1M "$TRACED" file want || fail "tracer_fmtcache file failed"
"$BPRINT" report -m t.dat > got.msg; rc=$?
[ $rc -eq 0 ] || fail "report exit $rc"
same want.msg got.msg "every message"
[ "$(wc -l < want.msg)" -gt 100 ] || fail "too few records"

"$BPRINT" formats t.dat > formats.out || fail "formats"
"$BPRINT" report --raw t.dat | awk '{ print $4 }' > ids
# ID : "FORMAT" FILE:LINE FUNCTION; these formats hold no character that is quoted
awk 'NR == FNR && /^[0-9]+ : "/ {
	id = $1; f = $0
	sub(/^[0-9]+ : "/, "", f); sub(/" [^ ]+ [^ ]+$/, "", f)
	fmt[id] = f; where[id] = $(NF - 1); next
     }
     NR != FNR { print (($1 in fmt) ? fmt[$1] : "(not a derived site: " $1 ")") }' \
	formats.out ids > got.fmt
same want.fmt got.fmt "each record under a derived site of its format"
awk 'NR == FNR && /^[0-9]+ : "/ { where[$1] = $(NF - 1); next }
     NR != FNR && !(where[$1] ~ /tracer_fmtcache\.c:[0-9]+$/) { bad++ }
     END { exit bad != 0 }' formats.out ids || fail "a derived site not at the call site's file"
# the call sites themselves stay listed, without a format
n=$(grep -c '^[0-9]* : (formatted at trace time) [^ ]*tracer_fmtcache\.c:' formats.out)
[ "$n" -ge 2 ] || fail "the runtime-format call sites are listed ($n)"
finish
