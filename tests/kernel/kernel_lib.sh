# The kernel tests' common start, sourced once BPRINT and WORK are set:
# every BPRINT_* variable unset and fail/ok/finish defined (tests/lib.sh),
# a fresh work directory made the current one, and root and tracefs there
# (mounted if need be), else exit 77, CTest's skip.  Sets TRACING.
. "$(dirname "$KERNEL_LIB")/../lib.sh"
bp_env_reset
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
[ "$(id -u)" = 0 ] || { echo "SKIP: not root: tracefs instances are root's"; exit 77; }
TRACING=/sys/kernel/tracing
[ -d $TRACING/instances ] || mount -t tracefs nodev $TRACING 2>/dev/null
[ -d $TRACING/instances ] || { echo "SKIP: no tracefs on this kernel"; exit 77; }
