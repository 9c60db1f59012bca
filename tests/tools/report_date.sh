#!/bin/sh
# bprint report --date and --relative:  sh report_date.sh BPRINT TRACED WORKDIR
#   - the header's start_realtime_ns (offset 32) lies between `date +%s`
#     before and after the recording, within a second;
#   - every --date=utc date is start_realtime_ns + (ns - start_mono_ns),
#     to the nanosecond, ns being report --raw's column;
#   - --date in TZ=UTC-2 is the same instant at +02:00;
#   - --relative: ns minus the first record's ns;
#   - --date=bogus fails with exit 1.
# Exit 77 (skipped) without python3.
set -u
BPRINT=$1 TRACED=$2 WORK=$3
. "$(dirname "$0")/../lib.sh"
bp_env_reset
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 is not installed"; exit 77; }

before=$(date +%s)
BPRINT_FILE=t.bpt BPRINT_CLOCK=mono "$TRACED" 100 || { echo "FAIL: the traced program"; exit 1; }
after=$(date +%s)
"$BPRINT" report --raw t.bpt >raw.txt || exit 1
"$BPRINT" report --raw --date=utc t.bpt >utc.txt || exit 1
TZ=UTC-2 "$BPRINT" report --raw --date t.bpt >local.txt || exit 1
"$BPRINT" report --raw --relative t.bpt >rel.txt || exit 1
"$BPRINT" report --date=bogus t.bpt >/dev/null 2>&1
[ $? -eq 1 ] || { echo "FAIL: --date=bogus did not exit 1"; exit 1; }

python3 - "$before" "$after" <<'PY' || exit 1
import datetime, struct, sys
before, after = int(sys.argv[1]), int(sys.argv[2])
real, mono = struct.unpack_from("<QQ", open("t.bpt", "rb").read(48), 32)
fails = 0
def fail(m):
    global fails
    fails += 1
    print("FAIL:", m)
if not before - 1 <= real / 1e9 <= after + 1:
    fail("start_realtime_ns %d is not between date +%%s %d and %d" % (real, before, after))
def ns_of(date, zone):
    head, frac = date.split(".")
    assert frac.endswith(zone), (date, zone)
    frac = frac[:-len(zone)]
    dt = datetime.datetime.strptime(head, "%Y-%m-%dT%H:%M:%S")
    tz = datetime.timezone.utc if zone == "Z" else datetime.timezone(datetime.timedelta(hours=2))
    return int(dt.replace(tzinfo=tz).timestamp()) * 10**9 + int(frac)
raw = [l.split(" ", 1) for l in open("raw.txt", encoding="latin-1").read().splitlines()]
utc = [l.split(" ", 2) for l in open("utc.txt", encoding="latin-1").read().splitlines()]
loc = [l.split(" ", 2) for l in open("local.txt", encoding="latin-1").read().splitlines()]
rel = [l.split(" ", 1) for l in open("rel.txt", encoding="latin-1").read().splitlines()]
if not raw or not (len(raw) == len(utc) == len(loc) == len(rel)):
    fail("line counts %d %d %d %d" % (len(raw), len(utc), len(loc), len(rel)))
first = int(raw[0][0])
for r, u, l, q in zip(raw, utc, loc, rel):
    ns = int(r[0])
    want = real + ns - mono
    if ns_of(u[0], "Z") != want or u[1] != r[0] or u[2] != r[1]:
        fail("utc line %r, want %d ns" % (u, want)); break
    if ns_of(l[0], "+02:00") != want:
        fail("local line %r, want %d ns at +02:00" % (l, want)); break
    if int(q[0]) != ns - first or q[1] != r[1]:
        fail("relative line %r, want %d" % (q, ns - first)); break
if fails:
    sys.exit(1)
print("ok: %d records: --date = realtime start + offset, local and utc; --relative" % len(raw))
PY
echo "all passed"
