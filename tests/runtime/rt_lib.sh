# Shared by the runtime_*.sh tests: sh runtime_X.sh BPRINT PROGRAM WORKDIR [ARGS...]
# (the helpers and the environment reset are tests/lib.sh's)
BPRINT=$1
PROG=$2
WORK=$3
. "$(dirname "$0")/../lib.sh"
bp_env_reset
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK" || exit 1
