# What the tests of a running program share (attach.sh, control.sh,
# trigger.sh), sourced once WORK is set, with ATTACH_LIB this file's
# folder: tests/lib.sh (fail, ok, scale) with every BPRINT_* variable
# unset, so that the programs they start have no bprint variable at all;
# a fresh work directory made the current one; the programs whose pids
# are in $pids killed at exit; wait_ready.
. "$ATTACH_LIB/../lib.sh"
bp_env_reset
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
pids=""
trap 'for p in $pids; do kill -9 "$p" 2>/dev/null; done' EXIT

# wait_ready FILE: until a program makes FILE (it is ready), 20 s at most
wait_ready() {
	wait_until 20 test -e "$1" || { fail "$1 never appeared"; return 1; }
}
