#!/usr/bin/env python3
"""Check a `bprint export --format=chrome` file against `bprint report`.

    check_chrome.py BPRINT TRACE_FILE JSON EXPORT_SUMMARY

The JSON must parse (strict UTF-8); every record must appear, in order, as
an instant event with its tid, its timestamp (ns / 1000, exactly), its
function as name, its message as args.msg (bytes that are not UTF-8 as the
code point of their value) and its site; there must be far fewer distinct
names than messages; every metadata event must have "cat":"__metadata",
every thread a thread_name event with its name, the process a
process_name event; the "records lost" events must add up to the
exporter's lost count; the typed arguments of the flood records must be
the numbers of their messages; a %pS argument must be the symbol its
message shows, in the Chrome args and in `bprint report --json` and
`--csv` alike.
"""
import collections
import csv
import decimal
import io
import json
import re
import sys

from export_check import check_names, event_names, fail, finish, layouts, ok, report, unraw


def check_symbols(bprint, trace, recs):
    """The records of "sym %pS": the symbol of the message, everywhere."""
    chrome = [e["args"]["sym"] for e in recs if e["args"]["msg"].startswith("sym ")]
    lines = report(bprint, "--json", "-s", "fmt:sym*", trace)
    docs = [json.loads(ln) for ln in lines]
    rows = list(csv.DictReader(io.StringIO(b"\n".join(report(bprint, "--csv", "-s", "fmt:sym*",
                                                             trace)).decode() + "\n")))
    want = [d["message"][len("sym "):] for d in docs]
    got = [d["fields"].get("sym") for d in docs]
    if not want or not want[0] or want[0].startswith("0x") or got != want or chrome != want or \
            [r.get("sym") for r in rows] != want:
        fail("%%pS: report --json %r, --csv %r, chrome %r, messages %r" %
             (got[:2], [r.get("sym") for r in rows][:2], chrome[:2], want[:2]))
    else:
        ok("%%pS: %d records give the symbol %r in the Chrome args, report --json and --csv" %
           (len(want), want[0]))


def main():
    bprint, trace, path, summary = sys.argv[1:5]
    try:
        doc = json.loads(open(path, "rb").read().decode("utf-8"), parse_float=decimal.Decimal)
    except (ValueError, UnicodeDecodeError) as e:
        fail("not valid JSON: %s" % e)
        return 1
    ok("valid JSON")
    evs = doc["traceEvents"]
    recs = [e for e in evs if e.get("ph") == "i" and "msg" in e.get("args", {})]
    raw = []
    for ln in report(bprint, "-r", trace):
        m = re.match(rb"^(\d+) (-?\d+) (-?\d+) (\d+) (.*)$", ln, re.S)
        raw.append((int(m.group(1)), int(m.group(2)), int(m.group(4)), unraw(m.group(5)).decode("utf-8", "bytevalue")))
    funcs = []
    comms = {}
    for ln in report(bprint, "-n", trace):
        m = re.match(rb"^ *(.*)-(\d+) +\[[^]]*\] +\d+\.\d+: (\S+): ", ln, re.S)
        funcs.append(m.group(3).decode())
        comms[int(m.group(2))] = m.group(1).decode("utf-8", "bytevalue")
    if len(recs) != len(raw):
        fail("%d instant events, %d records" % (len(recs), len(raw)))
    else:
        ok("%d records, %d instant events" % (len(raw), len(recs)))
    bad = 0
    pid = None
    names = event_names(bprint, trace)
    for e, (ns, tid, site, msg), func in zip(recs, raw, funcs):
        func = names.get(site, "unknown site")
        pid = e["pid"] if pid is None else pid
        if (e["ts"] != decimal.Decimal(ns) / 1000 or e["tid"] != tid or e["args"]["msg"] != msg or
                e["name"] != func or e["args"]["site"] != site or e["s"] != "t" or
                e["pid"] != pid or not e.get("cat")):
            bad += 1
            if bad <= 3:
                print("  differs: %r vs %r" % (e, (ns, tid, site, msg, func)))
    if bad:
        fail("%d events differ from their records" % bad)
    else:
        ok("every record: timestamp (exact), pid, tid, message, event name (function[:line]), site")
    names = set(e["name"] for e in recs)
    if len(recs) > 100 and len(names) * 10 > len(set(m for _, _, _, m in raw)):
        fail("%d distinct names for %d distinct messages" % (len(names), len(raw)))
    else:
        ok("%d distinct event names" % len(names))
    flood = [e for e in recs if re.match(r"^flood \d+ of \d+$", e["args"]["msg"])]
    badargs = [e for e in flood
               if [str(e["args"]["flood"]), str(e["args"]["of"])] != e["args"]["msg"].split()[1::2]]
    if not flood or badargs:
        fail("typed arguments of %d flood records differ: %r" % (len(badargs), badargs[:2]))
    else:
        ok("typed arguments of %d flood records" % len(flood))
    check_symbols(bprint, trace, recs)
    fields = layouts(bprint, trace)
    named = []
    for e, (_, _, site, _) in zip(recs, raw):
        own = {"cpu", "line", "site"} - set(fields.get(site, []))
        keys = [k for k in e["args"] if k != "msg" and k not in own]
        if keys:
            named.append((site, keys))
    check_names("args", named, fields)
    kinds = collections.defaultdict(set)
    for e, (_, _, site, _) in zip(recs, raw):
        for k, v in e["args"].items():
            kinds[(site, k)].add(type(v).__name__)
    mixed = {k: v for k, v in kinds.items() if len(v) > 1}
    big = [v for e in recs for k, v in e["args"].items() if type(v) is int and abs(v) >= 1 << 53]
    if mixed or not big:
        fail("arguments of more than one JSON type: %r; %d integers beyond 2^53" % (mixed, len(big)))
    else:
        ok("every argument has one JSON type; %d integers beyond 2^53 are exact numbers" % len(big))
    nometa = [e for e in evs if e.get("ph") == "M" and e.get("cat") != "__metadata"]
    if nometa:
        fail("metadata events without cat __metadata: %r" % nometa[:2])
    names = {}
    procs = []
    for e in evs:
        if e.get("ph") == "M" and e["name"] == "thread_name":
            names[e["tid"]] = e["args"]["name"]
        elif e.get("ph") == "M" and e["name"] == "process_name":
            procs.append(e)
    missing = [t for t in comms if names.get(t) != comms[t]]
    if missing:
        fail("threads without their thread_name: %r" % missing[:5])
    else:
        ok("%d threads named" % len(comms))
    if len(procs) != 1 or procs[0]["pid"] != pid:
        fail("process_name: %r" % procs)
    else:
        ok("process_name %r" % procs[0]["args"]["name"])
    lost = sum(e["args"]["lost"] for e in evs if e.get("name") == "records lost" and "lost" in e["args"])
    want = int(re.search(rb"(\d+) lost", open(summary, "rb").read()).group(1))
    if lost != want:
        fail("lost events add up to %d, the exporter says %d" % (lost, want))
    else:
        ok("lost: %d" % lost)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
