#!/bin/sh
# Fault injection, as SQLite tests I/O (issue 19): the Nth write, pwrite,
# ftruncate, fallocate or mmap on the trace files fails (strace's syscall
# injection, only on those files: ENOSPC, ENOMEM for mmap), for N = 1, 2,
# ... until the operation completes without an Nth call.  Each time:
#
#   bprint record (the program's live file, the copier's stream): either
#     the fault was made good (a write tried again) and it exits 0 with
#     every record in the stream, or it exits non-zero with a "bprint:"
#     line, and the stream, if there is one, says what it lacks (bprint
#     stats exits non-zero, with a line);
#   bprint export, each format: exit 3 with a line naming the output.
# Found so far: a chunk of the live file the copier could not map (its
# ring, or a sites chunk) was left out of the stream without a word, and
# so were library records the program had no room for once.
#
# sh runtime_faults.sh BPRINT BURST WORKDIR (BURST: tests/file's file_burst)
. "$(dirname "$0")/rt_lib.sh"
command -v strace > /dev/null || { echo "strace not found: skipped"; exit 0; }
strace -f -qq -o /dev/null true 2> /dev/null || { echo "strace cannot trace here: skipped"; exit 0; }

r=$(scale 500)
[ "$r" -ge 100 ] || r=100
expect=$((2 * r))
MAXN=400
# inject SYSCALL ERRNO N LOG PATHS... -- CMD...: CMD with the Nth SYSCALL on PATHS failing
inject() {
	sc=$1 err=$2 n=$3 log=$4
	shift 4
	only=
	while [ "$1" != -- ]; do
		only="$only -P $1"
		shift
	done
	shift
	# shellcheck disable=SC2086 (LeakSanitizer cannot run under ptrace)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -o "$log" -e trace="$sc" $only -e inject="$sc":error="$err":when="$n" "$@"
}
errno_of() {
	[ "$1" = mmap ] && echo ENOMEM || echo ENOSPC
}

# ---- bprint record, the program's live file and the copier's stream --------
for sc in write pwrite64 ftruncate fallocate mmap; do
	n=1 f0=$fails
	while [ $n -le $MAXN ]; do
		rm -f o.dat o.dat.live
		inject $sc "$(errno_of $sc)" $n st.log "$WORK/o.dat" "$WORK/o.dat.live" -- \
			"$BPRINT" record -b 64K -o o.dat -- "$PROG" --threads 2 --records $r > rec.out 2> rec.err
		rc=$?
		if ! grep -q INJECTED st.log; then	# completed without an Nth call
			[ $rc -eq 0 ] || fail "record, $sc: no fault, exit $rc: $(cat rec.err)"
			"$BPRINT" stats o.dat > st.out 2> st.err ||
				fail "record, $sc: no fault, stats: $(cat st.err)"
			break
		fi
		what="record, $sc #$n ($(grep INJECTED st.log | head -1 | cut -c1-80))"
		if [ $rc -eq 0 ]; then	# made good: the stream must be whole
			"$BPRINT" stats o.dat > st.out 2> st.err ||
				fail "$what: exit 0, but stats: $(cat st.err)"
			read=$(awk '/^# threads/ { t = 1; next } t && $1 ~ /^[0-9]+$/ { s += $6 } END { print s + 0 }' st.out)
			[ "$read" -eq $expect ] || fail "$what: exit 0 with $read records of $expect"
		else
			grep -q '^bprint: ' rec.err || fail "$what: exit $rc, no line on stderr"
			if [ -e o.dat ]; then
				"$BPRINT" stats o.dat > st.out 2> st.err
				src=$?
				if [ $src -eq 0 ]; then
					fail "$what: exit $rc, but the stream reads as complete: $(cat rec.err)"
				elif ! grep -q '^bprint: o.dat: ' st.err; then
					fail "$what: stats exit $src without a line"
				fi
			fi
		fi
		n=$((n + 1))
	done
	[ $n -le $MAXN ] || fail "record, $sc: still failing after $MAXN faults"
	[ $fails -eq $f0 ] && ok "record, $sc: $((n - 1)) faults, each made good or said"
done

# ---- bprint export ---------------------------------------------------------
"$BPRINT" record -q -o in.dat -- "$PROG" --threads 2 --records $((r / 2)) ||
	fail "export: the input: exit $?"
for fmt in trace-cmd chrome perfetto ctf; do
	rm -rf x.$fmt
	"$BPRINT" export -q --format=$fmt -o x.$fmt in.dat || fail "export $fmt: exit $?"
	paths="$WORK/x.$fmt"
	[ -d x.$fmt ] && for p in x.$fmt/*; do paths="$paths $WORK/$p"; done
	for sc in write pwrite64 ftruncate fallocate mmap; do
		n=1 f0=$fails
		while [ $n -le $MAXN ]; do
			rm -rf x.$fmt
			# shellcheck disable=SC2086
			inject $sc "$(errno_of $sc)" $n st.log $paths -- \
				"$BPRINT" export -q --format=$fmt -o x.$fmt in.dat > ex.out 2> ex.err
			rc=$?
			if ! grep -q INJECTED st.log; then
				[ $rc -eq 0 ] || fail "export $fmt, $sc: no fault, exit $rc: $(cat ex.err)"
				break
			fi
			what="export $fmt, $sc #$n"
			[ $rc -eq 3 ] || fail "$what: exit $rc, want 3"
			grep -q "^bprint: x.$fmt" ex.err || fail "$what: no line naming the output: $(cat ex.err)"
			n=$((n + 1))
		done
		[ $n -le $MAXN ] || fail "export $fmt, $sc: still failing after $MAXN faults"
		[ $fails -eq $f0 ] && ok "export $fmt, $sc: $((n - 1)) faults, each said and exited 3"
	done
done
finish
