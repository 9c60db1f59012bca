#!/usr/bin/env python3
"""The checks of analysis.sh: bprint hist, bprint latency and report's
--where, --json and --csv against references computed here, without the
reading library: the record values from analysis_traced.c's formulas, the
spans from pairing report --raw's text lines.

    check_analysis.py BPRINT TRACED TRACE RAW N
"""
import collections
import csv
import decimal
import io
import json
import math
import os
import re
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "output"))
from export_check import fail, finish, ok, run  # noqa: E402  (the checkers' one ok/fail)
import check_perfetto as cp  # noqa: E402

BPRINT, TRACED, TRACE, RAW, N = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])


def bprint(*args, rc=0):
    return run(BPRINT, *args, rc=rc)


def rank(sorted_vals, q_ppm):
    """The value at rank ceil(q * n), q in millionths (exact integers)."""
    n = len(sorted_vals)
    r = max(1, min(n, (q_ppm * n + 999999) // 1000000))
    return sorted_vals[r - 1]


QUANTILES = {"p50": 500000, "p90": 900000, "p99": 990000, "p999": 999000}


def log2_buckets(vals):
    """[lo, hi, count] of the log2 buckets, lowest non-empty to highest."""
    counts = {}
    for v in vals:
        k = ("zero",) if v == 0 else ("pos", v.bit_length() - 1) if v > 0 else ("neg", (-v).bit_length() - 1)
        counts[k] = counts.get(k, 0) + 1
    return counts


def check_group(what, g, vals, integer=True):
    vals = sorted(vals)
    want = {"count": len(vals), "min": vals[0], "max": vals[-1], "sum": sum(vals)}
    for q, ppm in QUANTILES.items():
        want[q] = rank(vals, ppm)
    for k, v in want.items():
        got = g.get(k)
        if (integer and got != v) or (not integer and not math.isclose(got, v, rel_tol=1e-12, abs_tol=1e-12)):
            fail("%s: %s %r, want %r" % (what, k, got, v))
    mean = sum(vals) / len(vals)
    if not math.isclose(g["mean"], mean, rel_tol=1e-9, abs_tol=1e-9):
        fail("%s: mean %r, want %r" % (what, g["mean"], mean))
    total = sum(c for _lo, _hi, c in g["buckets"])
    if total != len(vals):
        fail("%s: buckets hold %d of %d" % (what, total, len(vals)))
    for lo, hi, c in g["buckets"]:
        n = sum(1 for v in vals if (lo <= v < hi if lo >= 0 else lo < v <= hi))
        if n != c and not (lo == -1 and hi == 1):
            fail("%s: bucket [%r, %r) %d, want %d" % (what, lo, hi, c, n))


# ---- the records' values, from the formulas ----------------------------------
CMDS = ["GET", "SET", "DEL"]
recs = []
for i in range(N):
    base = (i * 7919) % 1000 + 1
    dur = base if i % 3 == 0 else 2 * base if i % 3 == 1 else 7
    recs.append({"cmd": CMDS[i % 3], "argc": i % 5 - 2, "dur_us": dur, "ratio": i / 8.0 - 3,
                 "flag": chr(ord("a") + i % 4)})
recs.append({"cmd": "EDGE", "argc": 0, "dur_us": -2**63, "ratio": 0.0, "flag": "z"})
recs.append({"cmd": "EDGE", "argc": 0, "dur_us": 2**63 - 1, "ratio": -0.0, "flag": "z"})

# hist -v dur_us -k cmd
p = bprint("hist", "-v", "dur_us", "-k", "cmd", "--json", TRACE)
doc = json.loads(p.stdout)
groups = {g["key"]["cmd"]: g for g in doc["groups"]}
if set(groups) != {"GET", "SET", "DEL", "EDGE"}:
    fail("hist -k cmd: groups %r" % sorted(groups))
else:
    for cmd, g in groups.items():
        check_group("hist dur_us cmd=" + cmd, g, [r["dur_us"] for r in recs if r["cmd"] == cmd])
    if [g["key"]["cmd"] for g in doc["groups"]] != sorted(groups, key=lambda c: (-groups[c]["count"], c)):
        fail("hist: groups not by count, then key: %r" % [g["key"]["cmd"] for g in doc["groups"]])
    ok("hist -v dur_us -k cmd: count, min, max, sum, mean, p50..p99.9 and buckets exact, "
       "INT64_MIN and INT64_MAX included")
if doc.get("lost") != 0:
    fail("hist: lost %r" % doc.get("lost"))

# hist -v ratio (a double), no key
doc = json.loads(bprint("hist", "-v", "ratio", "-s", "fmt:cmd*", "--json", TRACE).stdout)
if len(doc["groups"]) != 1 or doc["groups"][0]["key"] != {}:
    fail("hist -v ratio: %r" % doc["groups"][:1])
else:
    check_group("hist ratio", doc["groups"][0], [r["ratio"] for r in recs], integer=False)
    ok("hist -v ratio: a floating-point field, one group")

# hist without -v, two keys, as CSV
p = bprint("hist", "-k", "flag", "-k", "argc", "--csv", "-s", "fmt:cmd*", TRACE)
rows = list(csv.DictReader(io.StringIO(p.stdout.decode())))
want = {}
for r in recs:
    want[(r["flag"], str(r["argc"]))] = want.get((r["flag"], str(r["argc"])), 0) + 1
got = {(row["flag"], row["argc"]): int(row["count"]) for row in rows}
if got != want or list(rows[0].keys()) != ["flag", "argc", "count"]:
    fail("hist -k flag -k argc --csv: %r, want %r" % (sorted(got.items())[:5], sorted(want.items())[:5]))
else:
    ok("hist -k flag -k argc --csv: %d groups, counts exact" % len(rows))

# --where: every operator and type, in hist and in report
WHERE = [
    ("dur_us>=500", lambda r: r["dur_us"] >= 500),
    ("dur_us<10,cmd==GET", lambda r: r["dur_us"] < 10 and r["cmd"] == "GET"),
    ("cmd~S*", lambda r: r["cmd"].startswith("S")),
    ("cmd~'[DE]*'", lambda r: r["cmd"][0] in "DE"),
    ("cmd!=GET", lambda r: r["cmd"] != "GET"),
    ("argc<=-1", lambda r: r["argc"] <= -1),
    ("argc>1", lambda r: r["argc"] > 1),
    ("argc == -2", lambda r: r["argc"] == -2),
    ("flag==b", lambda r: r["flag"] == "b"),
    ("flag<c", lambda r: r["flag"] < "c"),
    ("ratio<0.5", lambda r: r["ratio"] < 0.5),
    ("ratio>=100.125", lambda r: r["ratio"] >= 100.125),
    ("dur_us==-9223372036854775808", lambda r: r["dur_us"] == -2**63),
    ("dur_us>9223372036854775806", lambda r: r["dur_us"] > 2**63 - 2),
    ("dur_us<1.5", lambda r: r["dur_us"] < 1.5),
    ("arg2>0x3e7", lambda r: r["dur_us"] > 999),
    ('cmd="GET",flag=a', lambda r: r["cmd"] == "GET" and r["flag"] == "a"),
]
bad = 0
for expr, pred in WHERE:
    want = sum(1 for r in recs if pred(r))
    doc = json.loads(bprint("hist", "-s", "fmt:cmd*", "--where", expr, "--json", TRACE).stdout or b"{}")
    got = sum(g["count"] for g in doc.get("groups", []))
    lines = bprint("report", "--raw", "-s", "fmt:cmd*", "--where", expr, TRACE).stdout.count(b"\n")
    if got != want or lines != want:
        fail("--where %s: hist %d, report %d lines, want %d" % (expr, got, lines, want))
        bad += 1
if not bad:
    ok("--where: %d expressions, every operator and type, in hist and report" % len(WHERE))

# report --json and --csv: typed fields, one record a line
p = bprint("report", "--json", "-s", "fmt:cmd*", TRACE)
lines = p.stdout.decode().splitlines()
docs = [json.loads(ln) for ln in lines]
fields = [d["fields"] for d in docs]
if len(docs) != len(recs) or any(f != r for f, r in zip(fields, recs)):
    fail("report --json: %d records, first differing %r" %
         (len(docs), next(((f, r) for f, r in zip(fields, recs) if f != r), None)))
elif [d["ns"] for d in docs] != [int(ln.split(" ", 1)[0]) for ln in open(RAW, encoding="utf-8")
                                 if ln.split(" ", 4)[4].startswith("cmd ")]:
    fail("report --json: the times differ from report --raw's")
elif not all(isinstance(f["ratio"], float) for f in fields) or math.copysign(1, fields[-1]["ratio"]) != -1:
    # a typed reader keeps a %f a float, whole (3.0) or -0.0 alike
    fail("report --json: a %%f read back as %r" %
         next((f["ratio"] for f in fields if not isinstance(f["ratio"], float)), fields[-1]["ratio"]))
else:
    ok("report --json: %d records, their fields exact (INT64_MIN, INT64_MAX, doubles as floats "
       "with -0.0, chars)" % len(docs))
rows = list(csv.DictReader(io.StringIO(bprint("report", "--csv", TRACE).stdout.decode())))
csv_recs = [row for row in rows if row["cmd"]]
if len(csv_recs) != len(recs) or any(int(row["dur_us"]) != r["dur_us"] or row["cmd"] != r["cmd"]
                                      for row, r in zip(csv_recs, recs)):
    fail("report --csv: %d rows with cmd, want %d" % (len(csv_recs), len(recs)))
elif not any(row["req"] for row in rows) or not {"ns", "tid", "message", "lost_before"} <= rows[0].keys():
    fail("report --csv: columns %r" % list(rows[0].keys()))
else:
    ok("report --csv: %d rows, a column per field name of every site" % len(rows))

# export --where: the records report --where gives, and the losses carried
def chrome_records(*args):
    bprint("export", "-q", "-f", "chrome", "-o", "w.json", *args)
    evs = json.load(open("w.json"))["traceEvents"]
    return [e for e in evs if e.get("ph") == "i" and "msg" in e.get("args", {})], \
        sum(e["args"].get("lost", 0) for e in evs if e.get("name") == "records lost")


recs_w, _ = chrome_records("--where", "cmd~S*,argc>=0", TRACE)
want = sum(1 for r in recs if r["cmd"].startswith("S") and r["argc"] >= 0)
if len(recs_w) != want or any(not e["args"]["msg"].startswith("cmd S") for e in recs_w):
    fail("export --where: %d records, want %d" % (len(recs_w), want))
else:
    ok("export --where: %d records, those the expression chooses" % want)

# report's options work in tail: -n (--no-header) too, where tail prints
# no header; a closed file's tail prints what report prints and ends
tailed = subprocess.run([BPRINT, "tail", "-n", "--raw", "--where", "cmd==SET", TRACE], stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE, timeout=60)
if tailed.returncode or tailed.stdout != bprint("report", "-n", "--raw", "--where", "cmd==SET", TRACE).stdout:
    fail("tail -n: exit %d, %r" % (tailed.returncode, tailed.stderr[:200]))
else:
    ok("tail -n --where: report -n's records, the same options")

# repeated --where: the terms of every one hold (AND), in either order, in
# every command that takes --where
both = [("dur_us>=500", "cmd==SET"), ("cmd==SET", "dur_us>=500"), ("flag<c", "argc>1")]
bad = 0
for a, b in both:
    pa, pb = dict(WHERE + [("cmd==SET", lambda r: r["cmd"] == "SET")])[a], \
        dict(WHERE + [("cmd==SET", lambda r: r["cmd"] == "SET")])[b]
    want = sum(1 for r in recs if pa(r) and pb(r))
    twice = ["--where", a, "--where", b]
    lines = bprint("report", "--raw", "-s", "fmt:cmd*", *twice, TRACE).stdout.count(b"\n")
    doc = json.loads(bprint("hist", "-s", "fmt:cmd*", *twice, "--json", TRACE).stdout or b"{}")
    hist = sum(g["count"] for g in doc.get("groups", []))
    exported = len(chrome_records(*twice, TRACE)[0])
    if not (lines == hist == exported == want) or want == sum(1 for r in recs if pb(r)):
        fail("--where %s --where %s: report %d, hist %d, export %d, want %d" % (a, b, lines, hist, exported, want))
        bad += 1
lat = [json.loads(bprint("latency", "-F", "fmt:begin*", "-T", "fmt:end*", "-k", "req", *w, "--json",
                         TRACE).stdout)["groups"][0]["count"]
       for w in (["--where", "req>=100", "--where", "kind==read"], ["--where", "req>=100,kind==read"],
                 ["--where", "kind==read"])]
if lat[0] != lat[1] or lat[0] == lat[2]:
    fail("latency --where req>=100 --where kind==read: %d spans, one expression %d, the last alone %d" % tuple(lat))
    bad += 1
if not bad:
    ok("--where A --where B: A and B, in report, hist, export and latency")

subprocess.run([TRACED, "20000"], env=dict(os.environ, BPRINT_FILE="ow.dat", BPRINT_BUFFER_SIZE="64K"),
               check=True)
# the main thread's ring overwrote; its last record (EDGE, argc 0) is chosen
main_tid = int(bprint("report", "--raw", "-s", "fmt:cmd*", "ow.dat").stdout.split()[1])
_, lost_all = chrome_records("-t", str(main_tid), "ow.dat")
kept, lost_some = chrome_records("-t", str(main_tid), "--where", "argc>=0", "ow.dat")
raw = bprint("report", "--raw", "-t", str(main_tid), "ow.dat").stdout
report_loss = sum(int(m) for m in re.findall(rb" 0 \[(\d+) records? lost", raw))
chosen = bprint("report", "--raw", "-t", str(main_tid), "--where", "argc>=0", "ow.dat").stdout
chosen_recs = [ln for ln in chosen.splitlines() if not re.search(rb" 0 \[\d+ records? lost", ln)]
if lost_all == 0 or lost_some != lost_all or report_loss != lost_all or len(kept) != len(chosen_recs):
    fail("export --where of an overwritten ring: lost %d (unfiltered %d, report's lines %d), "
         "%d records (report %d)" % (lost_some, lost_all, report_loss, len(kept), len(chosen_recs)))
else:
    ok("export --where of an overwritten ring: its %d lost records still shown, before the next "
       "record chosen; report's loss lines count as many" % lost_all)

# ---- spans, from report --raw -------------------------------------------------
RAW_LINE = re.compile(r"^(\d+) (\d+) (-?\d+) (\d+) (.*)$")
begins, ends, enters = [], [], []
events = []
for ln in open(RAW, encoding="utf-8"):
    m = RAW_LINE.match(ln.rstrip("\n"))
    ns, tid, msg = int(m.group(1)), int(m.group(2)), m.group(5)
    events.append((ns, tid, msg))


def pair(events, open_re, close_re, key_of):
    """Stacks per key: (durations as (dur, from_ns, key, by), unmatched opens, closes)."""
    stacks, spans, unmatched_closes = {}, [], 0
    for ns, tid, msg in events:
        mo, mc = open_re.match(msg), close_re.match(msg)
        if mo:
            stacks.setdefault(key_of(mo, tid), []).append((ns, mo))
        elif mc:
            st = stacks.get(key_of(mc, tid))
            if not st:
                unmatched_closes += 1
                continue
            ns0, mo = st.pop()
            spans.append((ns - ns0, ns0, key_of(mc, tid), mo))
    return spans, sum(len(s) for s in stacks.values()), unmatched_closes


BEGIN, END = re.compile(r"begin req (-?\d+) kind (\w+)"), re.compile(r"end req (-?\d+) status")
spans, opens, closes = pair(events, BEGIN, END, lambda m, tid: int(m.group(1)))
p = bprint("latency", "--from", "fmt:begin*", "--to", "fmt:end*", "-k", "req", "--top", "5", "--json", TRACE)
doc = json.loads(p.stdout)
if len(doc["groups"]) != 1:
    fail("latency -k req: %d groups" % len(doc["groups"]))
else:
    check_group("latency -k req", doc["groups"][0], [d for d, *_ in spans])
if doc["unmatched"] != {"opens": opens, "closes": closes} or opens != (N // 4 + 49) // 50 or closes != 3:
    fail("latency unmatched %r, want opens %d closes %d" % (doc["unmatched"], opens, closes))
top = sorted(spans, key=lambda s: (-s[0], s[1]))[:5]
if [t["ns"] for t in doc["top"]] != [s[0] for s in top] or [t["key"]["req"] for t in doc["top"]] != [s[2] for s in top]:
    fail("latency --top 5: %r, want %r" % ([(t["ns"], t["key"]) for t in doc["top"]], [(s[0], s[2]) for s in top]))
elif any(t["tid"] == t["to_tid"] for t in doc["top"]):
    fail("latency --top: spans should cross threads: %r" % doc["top"][:1])
else:
    ok("latency -k req: %d spans across threads exact, %d never closed, %d closes without an open, "
       "the 5 longest" % (len(spans), opens, closes))

# --by kind, --where on the from-record, --where-to on the to-record
doc = json.loads(bprint("latency", "-F", "fmt:begin*", "-T", "fmt:end*", "-k", "req", "--by", "kind",
                        "--where", "req>=100", "--where-to", "status==201", "--json", TRACE).stdout)
for kind in ("read", "write"):
    want = [d for d, _f, k, mo in spans if mo.group(2) == kind and k >= 100 and k % 3 == 1]
    got = [g for g in doc["groups"] if g["key"] == {"kind": kind}]
    if not got or got[0]["count"] != len(want) or got[0]["max"] != max(want) or got[0]["min"] != min(want):
        fail("latency --by kind=%s: %r, want %d spans" % (kind, got[:1], len(want)))
ok("latency --by kind --where --where-to")

# --where-to given twice: both must hold (status!=200 and !=202: 201 only),
# the same groups as the one --where-to above
doc2 = json.loads(bprint("latency", "-F", "fmt:begin*", "-T", "fmt:end*", "-k", "req", "--by", "kind",
                         "--where", "req>=100", "--where-to", "status!=200", "--where-to", "status!=202",
                         "--json", TRACE).stdout)
if doc2["groups"] != doc["groups"]:
    fail("latency --where-to twice: %r, want %r" % (doc2["groups"][:1], doc["groups"][:1]))
else:
    ok("latency --where-to twice: every one must hold")

# export --span: each pair a slice, as latency pairs them.  Chrome: keyed
# spans overlap on a thread without nesting, so they are async pairs (b/e
# with an id), never complete (X) events; spans paired within a thread
# nest and are X events.  Every slice carries the closing record's fields.
bprint("export", "-q", "-f", "chrome", "-o", "spans.json", "--span", "fmt:begin*,fmt:end*,req",
       "--span", "fmt:enter*,fmt:leave*", TRACE)
evs = json.load(open("spans.json"), parse_float=decimal.Decimal)["traceEvents"]
bs = {e["id"]: e for e in evs if e.get("ph") == "b"}
es = {e["id"]: e for e in evs if e.get("ph") == "e"}
xs = [e for e in evs if e.get("ph") == "X"]
us = lambda e: int(e["ts"] * 1000)  # noqa: E731  (exact ns: the times read as Decimal)
got = sorted((us(es[i]) - us(b), b["args"].get("req"), b["args"].get("status")) for i, b in bs.items()
             if i in es and b["cat"] == es[i]["cat"] == "span")
want = sorted((d, k, 200 + k % 3) for d, _f, k, _m in spans)
names = {e["name"] for e in list(bs.values()) + list(es.values())}
if got != want or len(bs) != len(es) or len(names) != 1:
    fail("export --span chrome: %d b/e pairs, want %d; first differing %r" %
         (len(got), len(want), next(((g, w) for g, w in zip(got, want) if g != w), None)))
elif sorted(x["args"].get("depth") for x in xs) != sorted(d for _ in range(N // 30) for d in (0, 1, 2)):
    fail("export --span chrome: nested X events' depths %r" % sorted(x["args"].get("depth") for x in xs)[:6])
else:
    ok("export --span chrome: %d keyed spans as b/e pairs with an id (durations exact), %d nested as X; "
       "the closing record's fields as args" % (len(got), len(xs)))
bprint("export", "-q", "-f", "perfetto", "-o", "spans.pftrace", "--span", "fmt:enter*,fmt:leave*",
       "--span", "fmt:begin*,fmt:end*,req", TRACE)
pd = subprocess.run(["protoc", "-I", os.path.dirname(cp.__file__), "--decode=perfetto.protos.Trace",
                     "perfetto.proto"], input=cp.frame(cp.packets(open("spans.pftrace", "rb").read())),
                    stdout=subprocess.PIPE)
tes = [cp.get(p, "track_event") for k, p in cp.parse_text(pd.stdout)
       if k == "packet" and cp.get(p, "track_event") is not None]
types = [cp.get(te, "type") for te in tes]
named = collections.Counter(cp.get(a, "name") for te in tes if cp.get(te, "type") == 1
                            for a in cp.getall(te, "debug_annotations"))
want = len(spans) + 3 * (N // 30)
if pd.returncode or types.count(1) != want or types.count(2) != want:
    fail("export --span perfetto: %d slice begins, %d ends, want %d" % (types.count(1), types.count(2), want))
elif (named[b"to_tid"] != want or named[b"req"] != len(spans) or named[b"status"] != len(spans) or
      named[b"depth"] != 3 * (N // 30)):
    fail("export --span perfetto: the slices' arguments %r" % dict(named))
else:
    ok("export --span perfetto: %d slices, nested ones on their thread, cross-thread ones on lanes, "
       "with to_tid and the closing record's fields" % want)
p = bprint("export", "-f", "ctf", "-o", "x.ctf", "--span", "fmt:begin*,fmt:end*", TRACE, rc=1)
if b"no slices" not in p.stderr:
    fail("export -f ctf --span: %r" % p.stderr)

# nesting without a key: spans pair within the thread
ENTER, LEAVE = re.compile(r"enter depth (\d+)"), re.compile(r"leave depth (\d+)")
nspans, nopens, ncloses = pair(events, ENTER, LEAVE, lambda m, tid: tid)
doc = json.loads(bprint("latency", "-F", "fmt:enter*", "-T", "fmt:leave*", "--json", TRACE).stdout)
check_group("latency nested", doc["groups"][0], [d for d, *_ in nspans])
if doc["unmatched"] != {"opens": 0, "closes": 0} or len(nspans) != 3 * (N // 30):
    fail("latency nested: %d spans, unmatched %r" % (len(nspans), doc["unmatched"]))
else:
    ok("latency without -k: %d nested spans pair within their thread" % len(nspans))

# text and SVG
p = bprint("latency", "-F", "fmt:begin*", "-T", "fmt:end*", "-k", "req", "--by", "kind", "--top", "3",
           "--svg", "lat.svg", TRACE)
text = p.stdout.decode()
if not re.search(r"^kind=read: count \d+  min \S+  mean", text, re.M) or "longest spans" not in text:
    fail("latency text: %s" % text[:300])
root = ET.parse("lat.svg").getroot()
SVG = "{http://www.w3.org/2000/svg}"
panels = {g.get("class"): len(list(g.iter(SVG + "polyline"))) for g in root.iter(SVG + "g") if g.get("class")}
if root.tag != SVG + "svg" or panels != {"histogram-panel": 2, "percentiles-panel": 2}:
    fail("latency --svg: not an SVG with 2 series in its histogram and percentile panels: %r" % panels)
else:
    ok("latency: text and an SVG of 2 series (histogram, percentiles) that an XML parser reads")

# bad input: one line on stderr that names the problem, exit 1
BAD = [
    (["hist", "-v", "nosuch", TRACE], "nosuch"),
    (["hist", "-v", "cmd", TRACE], "not a number"),
    (["hist", "-k", "cmd", "--where", "dur_us>>3", TRACE], "dur_us"),
    (["hist", "-k", "cmd", "--where", "nosuch==3", TRACE], "nosuch"),
    (["hist", "-k", "cmd", "--where", "ratio~1*", TRACE], "ratio"),
    (["hist", "-k", "cmd", "-s", "func:nosuch", TRACE], "func:nosuch"),
    (["latency", "--from", "fmt:begin*", "--to", "fmt:leave*", "-k", "req", TRACE], "req"),
    (["latency", "--from", "fmt:begin*", TRACE], "--to"),
    (["report", "--where", "nosuch==1", TRACE], "nosuch"),
]
bad = 0
for args, word in BAD:
    p = bprint(*args, rc=None)
    err = p.stderr.decode().strip().splitlines()
    if p.returncode != 1 or not err or word not in err[0]:
        fail("%s: exit %d, said %r" % (" ".join(args), p.returncode, err))
        bad += 1
if not bad:
    ok("%d bad inputs: exit 1 and a line that names the problem" % len(BAD))

# a damaged file: what could be read is aggregated, the output says what it lacks
data = open(TRACE, "rb").read()
open("cut.dat", "wb").write(data[:len(data) * 2 // 3])
p = bprint("hist", "-v", "dur_us", "-k", "cmd", "--json", "cut.dat", rc=None)
rp = bprint("report", "cut.dat", rc=None)
try:
    doc = json.loads(p.stdout)
except ValueError:
    doc = None
if doc is None or p.returncode != rp.returncode or (p.returncode != 0) != bool(p.stderr):
    fail("hist of a damaged file: exit %d (report %d), said %r" % (p.returncode, rp.returncode, p.stderr[:200]))
else:
    ok("hist of a cut file: valid JSON, exit %d as report's, stderr says why" % p.returncode)

# the header names the sites counted: the formats with a cmd field (read
# from `formats`), or the one site chosen, by its file's name and line
fmts = bprint("formats", TRACE).stdout.decode()
with_cmd = []
for block in re.split(r"\n(?=\d+ : )", fmts.strip()):
    head = re.match(r'(\d+) : ".*" (\S+):(\d+) (\S+)', block)
    if head and re.search(r"^\tcmd ", block, re.M):
        with_cmd.append((int(head.group(1)), os.path.basename(head.group(2)), head.group(3), head.group(4)))
first = bprint("hist", "-k", "cmd", TRACE).stdout.decode().split("\n")[0]
one = with_cmd[0] if with_cmd else (0, "", "", "")
single = bprint("hist", "-s", str(one[0]), "-v", "dur_us", TRACE).stdout.decode().split("\n")[0]
if len(with_cmd) < 2 or ", %d sites:" % len(with_cmd) not in first:
    fail("hist header over the sites with cmd (%d): %r" % (len(with_cmd), first))
elif ", site %d (%s:%s %s):" % one not in single:
    fail("hist header of site %r: %r" % (one, single))
else:
    ok("hist's header: %d sites counted, or the one site by name" % len(with_cmd))

# --follow: a live program, by its pid, until it ends
live = subprocess.Popen([TRACED, str(N), "slow"], env=dict(os.environ, BPRINT_FILE="live.dat"))
i = 0
# a header and its first chunk written, as tail's test waits for them
while (not os.path.exists("live.dat") or os.path.getsize("live.dat") < 8192) and i < 500:
    time.sleep(0.01)
    i += 1
p = subprocess.run([BPRINT, "hist", "--follow", "-v", "dur_us", "-k", "cmd", "--json", str(live.pid)],
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
live.wait()
try:
    doc = json.loads(p.stdout)
    counts = {g["key"]["cmd"]: g["count"] for g in doc["groups"]}
except ValueError:
    counts = None
if counts != {"GET": (N + 2) // 3, "SET": (N + 1) // 3, "DEL": N // 3, "EDGE": 2}:
    fail("hist --follow PID: %r (exit %d, %r)" % (counts, p.returncode, p.stderr[:200]))
else:
    ok("hist --follow PID: every record of the live program, the process's end ends it")

def record_child(out, n):
    """bprint record -o out of TRACED n slow, with 64 KiB rings: the
    recorder's Popen, and the pid of the program it runs once that is the
    traced program (not record's fork before its exec), or None."""
    if os.path.exists(out):
        os.unlink(out)
    rec = subprocess.Popen([BPRINT, "record", "-q", "-o", out, "--", TRACED, str(n), "slow"],
                           env=dict(os.environ, BPRINT_BUFFER_SIZE="64K"))
    for _ in range(500):  # the program has started
        if os.path.exists(out + ".live"):
            break
        time.sleep(0.01)
    for _ in range(500):
        try:
            kids = open("/proc/%d/task/%d/children" % (rec.pid, rec.pid)).read().split()
            if kids and os.path.realpath(os.readlink("/proc/%s/exe" % kids[0])) == \
                    os.path.realpath(TRACED):
                return rec, int(kids[0])
        except OSError:
            pass
        time.sleep(0.01)
    return rec, None


# --follow PID of a program under bprint record: the stream the recorder
# writes, not the live file whose copied pages it frees (every record, none
# called lost), and the recorder's last pages before the end
rec, child = record_child("rec.dat", N)
if child is None:
    rec.wait()
    fail("hist --follow PID under record: the traced program was not found")
else:
    p = subprocess.run([BPRINT, "hist", "--follow", "-v", "dur_us", "-k", "cmd", "--json", str(child)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    rec.wait()
    try:
        doc = json.loads(p.stdout)
        counts = {g["key"]["cmd"]: g["count"] for g in doc["groups"]}
        lost = doc["lost"]
    except (ValueError, KeyError):
        counts, lost = None, None
    want = {"GET": (N + 2) // 3, "SET": (N + 1) // 3, "DEL": N // 3, "EDGE": 2}
    if counts != want or lost != 0 or p.returncode != 0:
        fail("hist --follow PID under record: %r, lost %r (exit %d, %r)"
             % (counts, lost, p.returncode, p.stderr[:200]))
    else:
        ok("hist --follow PID under record: the recorder's stream, every record, none lost")

# --follow PID stopped by SIGINT while bprint record still runs ends as
# tail does: what the recorder has not copied yet is said apart, not lost,
# the stream not closed yet is no trouble (exit 0), and the counts are a
# prefix of the main thread's records (nothing missing before the stop)
rec, child = record_child("int.dat", 100 * N)
for _ in range(1000):  # the stream has the call sites: the followers find them at once
    if child is None or b"cmd" in subprocess.run([BPRINT, "formats", "int.dat"], stdout=subprocess.PIPE,
                                                 stderr=subprocess.DEVNULL).stdout:
        break
    time.sleep(0.01)
if child is not None:
    followers = [subprocess.Popen([BPRINT] + args + [str(child)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                 for args in (["hist", "--follow", "-k", "cmd", "--json"], ["tail"],
                              ["latency", "--follow", "-F", "fmt:begin*", "-T", "fmt:end*", "--json"])]
    time.sleep(1.5)
    running = rec.poll() is None
    for f in followers:
        f.send_signal(signal.SIGINT)
    outs = [f.communicate(timeout=60) + (f.returncode,) for f in followers]
    os.kill(child, signal.SIGTERM)
    rec.wait()
    try:
        doc = json.loads(outs[0][0])
        counts = {g["key"]["cmd"]: g["count"] for g in doc["groups"]}
    except (ValueError, KeyError):
        doc, counts = {}, {}
    m = sum(counts.values())
    if not running:
        fail("hist --follow interrupted under record: the program ended before the signal")
    elif any(rc != 0 or err for _out, err, rc in outs):
        fail("--follow interrupted under record: exits %r, said %r" % ([o[2] for o in outs], [o[1][:200] for o in outs]))
    elif doc.get("lost") != 0 or counts != {"GET": (m + 2) // 3, "SET": (m + 1) // 3, "DEL": m // 3} or not m:
        fail("hist --follow interrupted under record: %r, lost %r" % (counts, doc.get("lost")))
    else:
        ok("hist, latency --follow and tail interrupted under a running record: exit 0, nothing called "
           "lost (%d records, %d not copied yet)" % (m, doc.get("not_copied_yet", 0)))

sys.exit(finish())
