#!/bin/sh
# A plain fork() child traces into FILE.PID, as an exec'd child does (issue
# 19, item 6: a fork child's records, Redis's BGSAVE child's, were in its
# memory only, in no file, without a word).  rt_fork's parent, child
# (whose first trace is a signal handler's), grandchild, and a child that
# only execs (which makes no file): under BPRINT_FILE and bprint record,
# every record of each in its own file, exactly.
. "$(dirname "$0")/rt_lib.sh"

n=$(scale 20000)
# exactly FILE WHO COUNT [FROM]: FILE holds WHO's records i=FROM..FROM+COUNT-1, once each, and nothing else
exactly() {
	"$BPRINT" report --raw "$1" 2> /dev/null | awk -v who="$2" -v n="$3" -v from="${4:-0}" '
		$5 == who && $6 ~ /^i=/ { i = substr($6, 3) + 0; if (i < from || i >= from + n || seen[i]++) bad++; k++; next }
		$5 == "child" && $6 == "handler" { h++; next }
		{ bad++ }
		END { exit bad || k != n }'
}

# ---- BPRINT_FILE ---------------------------------------------------------
BPRINT_FILE=f.dat "$PROG" "$n" > f.out || fail "BPRINT_FILE: exit $?"
child=$(value child f.out)
grand=$(value grandchild f.out)
exactly f.dat parent $((2 * n)) && ok "BPRINT_FILE: the parent's file" || fail "BPRINT_FILE: the parent's file"
exactly f.dat.$child child "$n" && "$BPRINT" report --raw f.dat.$child 2> /dev/null | grep -q ' child handler$' &&
	ok "BPRINT_FILE: the child's file, its handler's record too" || fail "BPRINT_FILE: the child's file"
exactly f.dat.$grand grandchild $((n / 2)) && ok "BPRINT_FILE: the grandchild's file" ||
	fail "BPRINT_FILE: the grandchild's file"
[ "$(ls f.dat* | wc -l)" -eq 3 ] && ok "BPRINT_FILE: no file for the child that only execs" ||
	fail "BPRINT_FILE: files $(ls f.dat*)"

# ---- bprint record ---------------------------------------------------------
"$BPRINT" record -o r.dat -- "$PROG" "$n" > r.out 2> r.err || fail "record: exit $?: $(cat r.err)"
child=$(value child r.out)
grand=$(value grandchild r.out)
grep -q "3 traced programs, one file each" r.err && ok "record: 3 traced programs" ||
	fail "record: $(cat r.err)"
exactly r.dat parent $((2 * n)) && ok "record: the parent's stream" || fail "record: the parent's stream"
exactly r.dat.$child child "$n" && ok "record: the child's stream" || fail "record: the child's stream"
exactly r.dat.$grand grandchild $((n / 2)) && ok "record: the grandchild's stream" ||
	fail "record: the grandchild's stream"
for f in r.dat r.dat.$child r.dat.$grand; do
	"$BPRINT" stats "$f" > /dev/null 2> s.err || fail "record: stats $f: $(cat s.err)"
done
ls r.dat*.live > /dev/null 2>&1 && fail "record: live files left: $(ls r.dat*.live)"
finish
