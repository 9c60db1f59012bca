#!/bin/sh
# latency --sched on a program whose spans' time is known (sched_traced
# span): one thread's span sleeps 10 ms then spins 5 ms of its own CPU
# time, so it is running ~5 ms (within 5 % or 200 us: the records' own
# cost; SCHED_SLACK_NS for a sanitizer's build, whose records cost more)
# and blocked at least the 10 ms asked, at most the sleep's wall time as
# the program measured it (a loaded VM fires the timer late: 13.8 ms
# once), and with the wait for a CPU after the wake, no less than it;
# two threads
# pinned to one CPU at one SCHED_FIFO priority spin 20 ms each, the second
# waiting (runnable) for the first, which it names as the one that ran
# instead.  Every split adds up to its span exactly.
# Then SCHED_LOST reads the same file with a kernel event marked as
# following lost events (sched_lost.c).
#   sh latency_sched.sh BPRINT TRACED WORKDIR PYTHON SCHED_LOST
# Skips (77) where it is not root or the kernel has no tracefs.
set -u
BPRINT=$1 TRACED=$2 WORK=$3 PYTHON=$4 SCHED_LOST=$5
KERNEL_LIB=$(cd "$(dirname "$0")" && pwd)/kernel_lib.sh
. "$KERNEL_LIB"
[ "$(nproc)" -ge 2 ] || { echo "SKIP: one CPU: the spinners need two"; exit 77; }

"$BPRINT" record -q --kernel -o s.dat -- "$TRACED" span > span.out ||
	{ echo "FAIL: record: exit $?"; exit 1; }
"$BPRINT" latency --sched --from 'fmt:span begin*' --to 'fmt:span end*' -k id --top 3 --json --svg s.svg s.dat > s.json ||
	{ echo "FAIL: latency --sched: exit $?"; exit 1; }
"$BPRINT" latency --sched --from 'fmt:span begin*' --to 'fmt:span end*' -k id --csv s.dat > s.csv ||
	{ echo "FAIL: latency --sched --csv: exit $?"; exit 1; }
"$SCHED_LOST" s.dat || { echo "FAIL: a loss marked: the split above"; exit 1; }
"$PYTHON" - s.json s.csv s.svg span.out <<'PY'
import csv, json, os, sys
import xml.etree.ElementTree as ET

doc = json.load(open(sys.argv[1]))
fails = []
ids = {(t["tid"], t["ns"]): t["key"]["id"] for t in doc["latency"]["top"]}
spans = {}
for t in doc["top"]:
    spans[ids[(t["tid"], t["ns"])]] = t
    parts = t["running"] + t["runnable"] + t["blocked"] + t["unknown"]
    if parts != t["ns"]:
        fails.append("span of tid %d: parts add up to %d, the span is %d" % (t["tid"], parts, t["ns"]))

slack = int(os.environ.get("SCHED_SLACK_NS", "200000"))

def near(what, got, want):
    if abs(got - want) > max(want * 0.05, slack):
        fails.append("%s: %.3f ms, want %.3f ms within 5%% or %.1f ms"
                     % (what, got / 1e6, want / 1e6, slack / 1e6))

if set(spans) != {1, 2, 3}:
    fails.append("the top spans are %s, want ids 1, 2, 3" % sorted(spans))
else:
    slept = int(open(sys.argv[4]).read().split()[1])
    blocked, runnable = spans[1]["blocked"], spans[1]["runnable"]
    if blocked < 10e6 - slack or blocked > slept + slack or blocked + runnable < slept - slack:
        fails.append("span 1 blocked %.3f ms, runnable %.3f ms: want at least 10 ms blocked, "
                     "at most the %.3f ms the sleep took, and with runnable no less (within "
                     "%.1f ms)" % (blocked / 1e6, runnable / 1e6, slept / 1e6, slack / 1e6))
    near("span 1 running", spans[1]["running"], 5e6)
    for me in (2, 3):
        near("span %d running" % me, spans[me]["running"], 20e6)
    s = spans[3]
    if s["runnable"] < 1e6:
        fails.append("span 3: %d ns runnable, waiting for the first spinner" % s["runnable"])
    if not s["ran_instead"] or s["ran_instead"][0]["tid"] != spans[2]["tid"]:
        fails.append("span 3: the first spinner (tid %d) is not who ran instead most: %s"
                     % (spans[2]["tid"], s["ran_instead"]))
    if not spans[1]["woken_by"]:
        fails.append("span 1: nobody woke it after its sleep")
# the CSV: a part column, the total's count in each part
rows = list(csv.DictReader(open(sys.argv[2])))
if sorted(r["part"] for r in rows) != ["blocked", "runnable", "running", "total"] or \
        any(r["count"] != "3" for r in rows):
    fails.append("CSV: %s" % rows)
# the SVG: a bar a group, in the JSON's order, each part's rect its
# group's mean (sum / count) of that part
ns = {"s": "http://www.w3.org/2000/svg"}
rects = {k: [float(r.get("data-value")) for r in ET.parse(sys.argv[3]).getroot().iter("{%s}rect" % ns["s"])
             if r.get("class") == "part-%d" % k] for k in range(3)}
for k, part in enumerate(("running", "runnable", "blocked")):
    want = [g["sum"] / g["count"] for g in doc[part]["groups"]]
    if len(rects[k]) != len(want) or any(abs(a - b) > 1e-6 * max(b, 1) for a, b in zip(rects[k], want)):
        fails.append("SVG %s bars %s, want the means %s" % (part, rects[k], want))
for f in fails:
    print("FAIL:", f)
if fails:	# what the analysis said of each span, for the failure's cause
    print("records lost:", doc["latency"]["lost"])
    for t in doc["top"]:
        print("span of tid %d: %s" % (t["tid"], {k: v for k, v in t.items() if k != "tid"}))
if not fails:
    print("latency --sched: spans split into running, runnable and blocked as the program spent them")
sys.exit(1 if fails else 0)
PY
