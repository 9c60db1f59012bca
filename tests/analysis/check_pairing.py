#!/usr/bin/env python3
"""The checks of pairing.sh: bprint latency's pairing rules (--pair latest,
fifo, all-before), --by fields of either end, --percentiles, --sort and
--limit in latency and hist, and the exact flag of every group, against
references computed here from report --json of the same trace (the
records' times and fields, paired by this script's own lists).

    check_pairing.py BPRINT TRACE JSONL
"""
import csv
import io
import json
import os
import sys
import xml.etree.ElementTree as ET
from fractions import Fraction

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "output"))
import export_check  # noqa: E402  (the checkers' one ok/fail)
from export_check import fail, ok, run  # noqa: E402

BPRINT, TRACE, JSONL = sys.argv[1], sys.argv[2], sys.argv[3]


def bprint(*args, rc=0):
    return run(BPRINT, *args, rc=rc)


def rank(vals, pct):
    """The value at rank ceil(p / 100 * n) of the sorted values (p exact)."""
    n = len(vals)
    q = Fraction(pct) / 100
    r = -((-q.numerator * n) // q.denominator)
    return sorted(vals)[max(1, min(n, r)) - 1]


def pname(pct):
    return "p" + pct.replace(".", "")


recs = [json.loads(line) for line in open(JSONL)]
reqs = sum(1 for r in recs if r["message"].startswith("req "))


def pair(rule):
    """Spans (duration, from-record, to-record) of req -> reply by conn, as
    RULE pairs them; and the opens never closed, the closes without one."""
    open_, spans, lone = {}, [], 0
    for r in recs:
        kind = r["message"].split()[0]
        if kind == "req":
            open_.setdefault(r["fields"]["conn"], []).append(r)
        elif kind == "reply":
            lst = open_.get(r["fields"]["conn"], [])
            if not lst:
                lone += 1
                continue
            if rule == "latest":
                closing = [lst.pop()]
            elif rule == "fifo":
                closing = [lst.pop(0)]
            else:
                closing, lst[:] = list(lst), []
            spans += [(r["ns"] - f["ns"], f, r) for f in closing]
    return spans, sum(len(v) for v in open_.values()), lone


def check_stats(what, g, vals, pcts):
    want = {"count": len(vals), "min": min(vals), "max": max(vals), "sum": sum(vals), "exact": True}
    for p in pcts:
        want[pname(p)] = rank(vals, p)
    bad = {k: (g.get(k), v) for k, v in want.items() if g.get(k) != v}
    if bad:
        fail("%s: got/want %r" % (what, bad))
    return not bad


def groups_of(spans, by):
    out = {}
    for d, f, t in spans:
        key = tuple((t if name.startswith("to.") else f)["fields"][name.split(".")[-1]] for name in by)
        out.setdefault(key, []).append(d)
    return out


PCTS = ["50", "95", "99", "99.99"]
SEQ_RULE = {"latest": lambda f, t: f + t == 17, "fifo": lambda f, t: f == t, "all-before": lambda f, t: t == 1}
for rule in ("latest", "fifo", "all-before"):
    spans, opens, lone = pair(rule)
    base = ["latency", "-F", "fmt:req*", "-T", "fmt:reply*", "-k", "conn", "--pair", rule]
    doc = json.loads(bprint(*base, "--percentiles", ",".join(PCTS), "--json", TRACE).stdout)
    good = len(doc["groups"]) == 1 and check_stats("latency --pair %s" % rule, doc["groups"][0],
                                                    [d for d, *_ in spans], PCTS)
    if doc["unmatched"] != {"opens": opens, "closes": lone}:
        fail("latency --pair %s: unmatched %r, want opens %d closes %d" % (rule, doc["unmatched"], opens, lone))
        good = False
    # which request each reply closed: --by from.seq --by to.seq
    by = ["from.seq", "to.seq"]
    doc = json.loads(bprint(*base, "--by", by[0], "--by", by[1], "--percentiles", "50,99", "--json",
                            TRACE).stdout)
    want = groups_of(spans, by)
    got = {(g["key"]["from.seq"], g["key"]["to.seq"]): g for g in doc["groups"]}
    if set(got) != set(want) or not all(SEQ_RULE[rule](f, t) for f, t in got):
        fail("latency --pair %s --by from.seq --by to.seq: groups %r" % (rule, sorted(got)[:20]))
        good = False
    else:
        good &= all(check_stats("--pair %s seq %r" % (rule, k), got[k], want[k], ["50", "99"]) for k in want)
    if good:
        ok("latency --pair %s: %d spans, %d never closed, %d closes without an open, p50..p99.99 exact; "
           "each reply closed the request the rule names (%d groups by from.seq, to.seq)"
           % (rule, len(spans), opens, lone, len(want)))

# a bare --by field is the from-record's; to.FIELD the to-record's, in the order given
spans, _, _ = pair("fifo")
by = ["to.status", "cmd"]
doc = json.loads(bprint("latency", "-F", "fmt:req*", "-T", "fmt:reply*", "-k", "conn", "--pair", "fifo",
                        "--by", "to.status", "--by", "cmd", "--json", TRACE).stdout)
want = groups_of(spans, by)
got = {(g["key"]["to.status"], g["key"]["cmd"]): g for g in doc["groups"]}
if set(got) != set(want) or [list(g["key"]) for g in doc["groups"][:1]] != [by]:
    fail("latency --by to.status --by cmd: %r, want %r" % (sorted(got), sorted(want)))
elif all(check_stats("--by %r" % (k,), got[k], want[k], ["50", "90", "99", "99.9"]) for k in want):
    ok("latency --by to.status --by cmd: %d groups of fields of both ends, the key in the order given"
       % len(want))

# --sort and --limit: by a percentile, by max, by key
groups = {k[0]: v for k, v in groups_of(spans, ["cmd"]).items()}
orders = set()
for sort, figure in (("p99", lambda v: rank(v, "99")), ("max", max), ("count", len), ("sum", sum),
                     ("p99.99", lambda v: rank(v, "99.99"))):
    order = sorted(groups, key=lambda k: (-figure(groups[k]), -len(groups[k]), k))
    orders.add(tuple(order))
    doc = json.loads(bprint("latency", "-F", "fmt:req*", "-T", "fmt:reply*", "-k", "conn", "--pair", "fifo",
                            "--by", "cmd", "--sort", sort, "--limit", "3", "--json", TRACE).stdout)
    got = [g["key"]["cmd"] for g in doc["groups"]]
    if got != order[:3] or doc.get("omitted") != len(order) - 3:
        fail("latency --sort %s --limit 3: %r (omitted %r), want %r" % (sort, got, doc.get("omitted"), order))
        break
else:
    ok("latency --sort p99|max|count|sum|p99.99 --limit 3: the groups in the reference's order "
       "(%d orders among them), the rest counted" % len(orders))
text = bprint("latency", "-F", "fmt:req*", "-T", "fmt:reply*", "-k", "conn", "--by", "cmd", "--sort", "key",
              "--limit", "2", "--percentiles", "99.99", TRACE).stdout.decode()
lines = [ln for ln in text.splitlines() if ln.startswith("cmd=")]
if [ln.split(":")[0] for ln in lines] != ["cmd=get", "cmd=incr"] or \
        not all("  p99.99 " in ln and ln.endswith("  [exact]") for ln in lines) or \
        "# and 2 more groups (--limit 2)" not in text:
    fail("latency --sort key --limit 2 (text): %s" % text[:600])
else:
    ok("latency text: --sort key, --limit 2 says what it leaves out, p99.99 and [exact] on every group")

# hist: the same options, as CSV
vals = {}
for r in recs:
    if r["message"].startswith("req "):
        vals.setdefault(r["fields"]["cmd"], []).append(r["fields"]["seq"])
order = sorted(vals, key=lambda k: (-rank(vals[k], "95"), -len(vals[k]), k))
rows = list(csv.DictReader(io.StringIO(bprint("hist", "-s", "fmt:req*", "-v", "seq", "-k", "cmd",
                                              "--percentiles", "50,95,99.99", "--sort", "p95", "--limit",
                                              "3", "--csv", TRACE).stdout.decode())))
head = list(rows[0].keys()) if rows else []
if head != ["cmd", "count", "min", "mean", "p50", "p95", "p9999", "max", "sum", "exact"]:
    fail("hist --csv header %r" % head)
elif [r["cmd"] for r in rows] != order[:3]:
    fail("hist --sort p95 --limit 3: %r, want %r" % ([r["cmd"] for r in rows], order))
elif not all(int(r["count"]) == len(vals[r["cmd"]]) and int(r["p95"]) == rank(vals[r["cmd"]], "95") and
             int(r["p9999"]) == rank(vals[r["cmd"]], "99.99") and r["exact"] == "true" for r in rows):
    fail("hist --csv rows %r" % rows)
else:
    ok("hist --percentiles 50,95,99.99 --sort p95 --limit 3 --csv: columns p50 p95 p9999 exact, "
       "rows in order, figures exact")

# --every: per window of the trace's clock, each group's count, rate and
# percentiles (a record in the window of its time, a span in that of its end)
EVERY = 1000000
vals = {}
for r in recs:
    if r["message"].startswith("req "):
        vals.setdefault((r["ns"] // EVERY, r["fields"]["cmd"]), []).append(r["fields"]["seq"])
doc = json.loads(bprint("hist", "-s", "fmt:req*", "-v", "seq", "-k", "cmd", "--every", "1ms", "--percentiles",
                        "50,99", "--json", TRACE).stdout)
got = {(round(w["start"] * 1e9) // EVERY, w["key"]["cmd"]): w for w in doc.get("windows", [])}
order = [(round(w["start"] * 1e9) // EVERY, w["key"]["cmd"]) for w in doc.get("windows", [])]
good = doc.get("every_ns") == EVERY and set(got) == set(vals) and order == sorted(order)
for k, v in vals.items():
    w = got.get(k, {})
    if (w.get("count"), w.get("rate"), w.get("p50"), w.get("p99"), w.get("max"), w.get("exact")) != \
            (len(v), len(v) * 1e9 / EVERY, rank(v, "50"), rank(v, "99"), max(v), True):
        fail("hist --every 1ms: window %r: %r, want count %d" % (k, w, len(v)))
        good = False
        break
spans, _, _ = pair("fifo")
lat = {}
for d, _f, t in spans:
    lat.setdefault(t["ns"] // 500000, []).append(d)
rows = list(csv.DictReader(io.StringIO(bprint("latency", "-F", "fmt:req*", "-T", "fmt:reply*", "-k", "conn",
                                              "--pair", "fifo", "--every", "0.5ms", "--percentiles", "99.99",
                                              "--csv", TRACE).stdout.decode())))
gotl = {int(r["start"].replace(".", "")) // 500000: r for r in rows}
if set(gotl) != set(lat) or any(int(gotl[k]["count"]) != len(v) or int(gotl[k]["p9999"]) != rank(v, "99.99")
                                or float(gotl[k]["rate"]) != len(v) * 2000.0 for k, v in lat.items()):
    fail("latency --every 0.5ms --csv: %d windows, want %d; first %r" % (len(gotl), len(lat), rows[:1]))
    good = False
text = bprint("hist", "-s", "fmt:req*", "-k", "cmd", "--every", "1ms", TRACE).stdout.decode()
if "# per 1ms window" not in text or len([ln for ln in text.splitlines() if "  rate " in ln]) != len(vals):
    fail("hist --every 1ms text: %s" % text[-400:])
    good = False
# and its SVG: p50 and p99 over time, a line each a group, a point a window
bprint("hist", "-s", "fmt:req*", "-v", "seq", "-k", "cmd", "--every", "1ms", "--svg", "every.svg", TRACE)
SVG = "{http://www.w3.org/2000/svg}"
tp = next((g for g in ET.parse("every.svg").getroot().iter(SVG + "g") if g.get("class") == "time-panel"), None)
tlines = list(tp.iter(SVG + "polyline")) if tp is not None else []
npts = sorted(len(pl.get("points").split()) for pl in tlines)
want = sorted(n for cmd in {c for _w, c in vals} for n in [sum(1 for _w, c in vals if c == cmd)] * 2)
if npts != want:
    fail("hist --every --svg: time panel lines of %r points, want %r" % (npts, want))
    good = False
if good:
    ok("--every: hist (%d windows and groups, JSON) and latency (%d windows, CSV, by the span's end): "
       "count, rate and percentiles of each window as the reference computes them" % (len(vals), len(lat)))

BAD = [
    (["--pair", "lifo"], "--pair"),
    (["--percentiles", "0"], "--percentiles"),
    (["--percentiles", "101"], "--percentiles"),
    (["--percentiles", "9.9,99"], "one name"),
    (["--percentiles", "50,,99"], "--percentiles"),
    (["--percentiles", "1e1"], "--percentiles"),
    (["--sort", "p0"], "--sort"),
    (["--sort", "median"], "--sort"),
    (["--limit", "0"], "--limit"),
    (["--by", "to.nosuch"], "to.nosuch"),
    (["--by", "from.status"], "from.status"),
    (["--by", "to."], "--by"),
    (["--every", "0"], "--every"),
    (["--every", "1h"], "--every"),
    (["--every", "0.1ns"], "--every"),
]
bad = 0
for args, word in BAD:
    p = bprint("latency", "-F", "fmt:req*", "-T", "fmt:reply*", "-k", "conn", *args, TRACE, rc=None)
    err = p.stderr.decode().strip().splitlines()
    if p.returncode != 1 or not err or word not in err[0]:
        fail("latency %s: exit %d, said %r" % (" ".join(args), p.returncode, err))
        bad += 1
p = bprint("hist", "-k", "cmd", "--sort", "p99", TRACE, rc=None)
if p.returncode != 1 or b"--sort" not in p.stderr:
    fail("hist --sort p99 without -v: exit %d, %r" % (p.returncode, p.stderr))
    bad += 1
if not bad:
    ok("%d bad options: exit 1 and a line that names the problem" % (len(BAD) + 1))

sys.exit(1 if export_check.fails else 0)
