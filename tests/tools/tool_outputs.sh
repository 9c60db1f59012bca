# tool_outputs: the files bprint writes follow one rule (src/trace/safe_open.c):
# BPRINT_DUMP_FILE, BPRINT_FILE, `bprint export -o` and `bprint record -o`
# pointed at a symlink, at another user's file (as root only), at a FIFO or
# at a directory leave it exactly as it was (content, mode, mtime) and say so
# in one line; a file of ours is replaced, a dump file only once a dump is
# written; created files are 0600, exports follow the umask.
. "$(dirname "$0")/tool_lib.sh"

state() {	# what must not change: type, mode, owner, size, mtime (ns)
	stat -c '%F %a %u %s %.9Y' "$1" 2>/dev/null || echo missing
}
mode_of() {
	stat -c %a "$1"
}
# one_line FILE WANT WHAT: FILE is the one line WANT
one_line() {
	printf '%s\n' "$2" > want.err
	same want.err "$1" "$3"
}

mkdir targets
printf 'not yours\n' > targets/secret
touch -d '2001-01-01 00:00:00' targets/secret
ln -s secret targets/link
mkfifo targets/fifo
mkdir targets/dir
others="link fifo dir"
if [ "$(id -u)" -eq 0 ]; then
	printf 'nobody\047s\n' > targets/theirs
	touch -d '2001-01-01 00:00:00' targets/theirs
	chown nobody targets/theirs && others="$others theirs"
else
	echo "SKIP: another user's file (needs root to chown a file to nobody)"
fi
reason() {	# the output rule's reason for target $1
	case $1 in
	link) echo "is a symbolic link (not followed, not replaced)" ;;
	fifo) echo "is a FIFO (not written to)" ;;
	dir) echo "is a directory (not replaced)" ;;
	theirs) echo "belongs to another user (not replaced)" ;;
	esac
}
snapshot() {
	for n in secret $others; do
		printf '%s %s\n' "$n" "$(state targets/$n)"
	done
	cat targets/secret
	[ -f targets/theirs ] && cat targets/theirs
	return 0
}
snapshot > before

BPRINT_FILE=good.dat "$TRACED" --threads 0 --records 10 > /dev/null || fail "traced failed"

for n in $others; do
	# the dump file, at exit
	BPRINT_DUMP=exit BPRINT_DUMP_FILE=targets/$n timeout 20 "$TRACED" --threads 0 --records 3 \
		> /dev/null 2> dump.err
	[ $? -eq 0 ] || fail "dump to $n: traced failed"
	grep -v '^[# ]' dump.err > dump.line
	one_line dump.line "bprint: BPRINT_DUMP_FILE=targets/$n: $(reason $n); dumping to stderr" \
		"BPRINT_DUMP_FILE=$n refused"
	grep -q 'trace_one: thread 0 record 0' dump.err || fail "dump to $n: not dumped to stderr"
	# export
	timeout 20 "$BPRINT" export -q -f chrome -o targets/$n good.dat > out 2> err
	rc=$?
	[ $rc -eq 3 ] || fail "export -o $n: exit $rc, want 3"
	one_line err "bprint: targets/$n: $(reason $n)" "export -o $n refused"
	# the live file: a name taken is left alone, the writer picks NAME.PID
	BPRINT_FILE=targets/$n timeout 20 "$TRACED" --threads 0 --records 3 > /dev/null 2>&1 ||
		fail "BPRINT_FILE=$n: traced failed"
done
# record, which replaces only an old trace of ours
for n in $others; do
	timeout 20 "$BPRINT" record -q -o targets/$n -- "$TRACED" --threads 0 --records 3 \
		> out 2> err
	rc=$?
	[ $rc -eq 2 ] || fail "record -o $n: exit $rc, want 2"
	one_line err "bprint: targets/$n: $(reason $n)" "record -o $n refused"
done
# record's live file taken by a symlink
ln -s secret targets/rec.live
timeout 20 "$BPRINT" record -q -o targets/rec -- "$TRACED" --threads 0 --records 3 > out 2> err
rc=$?
[ $rc -eq 2 ] || fail "record with its .live a symlink: exit $rc, want 2"
one_line err "bprint: targets/rec.live: $(reason link)" "record's live file refused"
snapshot > after
same before after "nothing behind the refused names changed"

# A dump file of ours: untouched until a dump happens, then replaced whole and 0600.
yes 'an old and much longer dump line' | head -1000 > mine
chmod 644 mine
touch -d '2001-01-01 00:00:00' mine
cp mine mine.copy
stat -c '%s %.9Y' mine > b
BPRINT_DUMP=crash BPRINT_DUMP_FILE=mine "$TRACED" --threads 0 --records 3 > /dev/null ||
	fail "traced (crash dump armed, no crash) failed"
stat -c '%s %.9Y' mine > a
same b a "a dump file is not touched when no dump happens (size, mtime)"
same mine.copy mine "a dump file is not touched when no dump happens (content)"
BPRINT_DUMP=exit BPRINT_DUMP_FILE=mine "$TRACED" --threads 0 --records 3 > /dev/null ||
	fail "traced (exit dump) failed"
grep -q 'an old and much' mine && fail "the old dump's tail is left in the dump file"
grep -q 'trace_one: thread 0 record 0' mine || fail "the dump file holds no dump"
[ "$(mode_of mine)" = 600 ] || fail "a reused dump file is $(mode_of mine), want 600"

# Modes of created files under two umasks.
for um in 022 077; do
	rm -rf m$um && mkdir m$um
	(
		umask $um
		BPRINT_DUMP=exit BPRINT_DUMP_FILE=m$um/dump "$TRACED" --threads 0 --records 3 \
			> /dev/null
		BPRINT_FILE=m$um/live "$TRACED" --threads 0 --records 3 > /dev/null
		"$BPRINT" export -q -f chrome -o m$um/export.json good.dat
		"$BPRINT" record -q -o m$um/rec -- "$TRACED" --threads 0 --records 3 > /dev/null
	) || fail "umask $um: a command failed"
	[ $um = 022 ] && ex=644 || ex=600
	for f in dump:600 live:600 export.json:$ex rec:600; do
		n=${f%%:*} want=${f#*:}
		got=$(mode_of m$um/$n 2>/dev/null)
		[ "$got" = "$want" ] && ok "umask $um: $n is $want" ||
			fail "umask $um: $n is ${got:-missing}, want $want"
	done
done
# An export of ours is replaced and keeps its mode, as a shell redirection does.
printf 'old\n' > m022/export.json
chmod 640 m022/export.json
"$BPRINT" export -q -f chrome -o m022/export.json good.dat || fail "export over our file"
grep -q '^old$' m022/export.json && fail "export did not replace our file"
[ "$(mode_of m022/export.json)" = 640 ] || fail "a replaced export is $(mode_of m022/export.json)"
# A setuid program reads no BPRINT_ variable: whoever runs it cannot pick its files.
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: setuid program (needs root to make a copy setuid nobody)"
elif findmnt -n -o OPTIONS -T . 2>/dev/null | grep -q nosuid; then
	echo "SKIP: setuid program (the build directory is mounted nosuid)"
else
	cp "$TRACED" suid_traced && chown nobody suid_traced && chmod 4755 suid_traced
	BPRINT_DUMP=exit BPRINT_DUMP_FILE=suid.dump BPRINT_FILE=suid.live ./suid_traced \
		--threads 0 --records 3 > /dev/null 2> suid.err
	rc=$?
	if [ $rc -ne 0 ] && grep -q Sanitizer suid.err; then
		echo "SKIP: setuid program (a sanitizer cannot run setuid)"
		finish
	fi
	[ $rc -eq 0 ] || fail "the setuid copy failed"
	[ -e suid.dump ] || [ -e suid.live ] || [ -s suid.err ] &&
		fail "a setuid program took BPRINT_DUMP_FILE or BPRINT_FILE from its caller"
	[ -e suid.dump ] || [ -e suid.live ] || [ -s suid.err ] || ok "setuid: environment ignored"
	chmod u-s suid_traced
	BPRINT_DUMP=exit BPRINT_DUMP_FILE=suid.dump ./suid_traced --threads 0 --records 3 \
		> /dev/null 2>&1
	[ -s suid.dump ] || fail "the same copy without setuid did not dump (the check proves nothing)"
fi
finish
