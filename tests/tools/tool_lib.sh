# Shared by the tool_*.sh tests: sh tool_X.sh BPRINT TRACED WORKDIR SRCDIR
# (the helpers and the environment reset are tests/lib.sh's)
BPRINT=$1
TRACED=$2
WORK=$3
SRC=$4
. "$(dirname "$0")/../lib.sh"
bp_env_reset
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK" || exit 1
