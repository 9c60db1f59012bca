# tool_uncalibrated: a live file whose process was killed before it
# published its first calibration (calib_seq 0, both slots and their crcs
# zero: docs/file-format.md) is no damage: it holds no record to convert.
# Made from a program that traced nothing, its calibration wiped at the
# documented offsets (calib_seq at 56, the slots at 64, their crcs at
# 2272).  Such a file said "damaged: header: calibration: checksum
# mismatch", and a stream copied from it "a tsc line that cannot be".
. "$(dirname "$0")/tool_lib.sh"

BPRINT_FILE=u.dat "$TRACED" --threads 0 --records 0 || fail "traced failed"
dd if=/dev/zero of=u.dat bs=1 seek=56 count=72 conv=notrunc 2> /dev/null &&
	dd if=/dev/zero of=u.dat bs=1 seek=2272 count=8 conv=notrunc 2> /dev/null ||
	fail "cannot wipe the calibration"
"$BPRINT" report u.dat > u.out 2> u.err
rc=$?
[ $rc -eq 0 ] && ok "report: exit 0" || fail "report: exit $rc: $(cat u.err)"
grep -q "damaged" u.err && fail "report: $(cat u.err)" || ok "report: no damage said"
# one byte of a slot set: that is a calibration, and its crc does not match
printf '\001' | dd of=u.dat bs=1 seek=64 conv=notrunc 2> /dev/null
"$BPRINT" report u.dat > /dev/null 2> u.err
[ $? -eq 2 ] && grep -q "calibration: checksum mismatch" u.err &&
	ok "a slot not all zero: damage" || fail "a slot not all zero: $(cat u.err)"
finish
