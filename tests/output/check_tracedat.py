#!/usr/bin/env python3
"""Compare `trace-cmd report` of an exported trace.dat with `bprint report`.

    check_tracedat.py BPRINT TRACE_FILE TRACE_DAT EXPORT_SUMMARY
                      [--expect-lost] [--expect-extend] [--kshark]

Checks, each of which fails the test:
  - every record line agrees: comm, tid, CPU (when bprint knows it),
    timestamp to the microsecond (trace-cmd rounds bprint's nanoseconds to
    the nearest), function, message; as a multiset and, per thread, in order;
  - no [FAILED TO PARSE], no (NO FORMAT FOUND), nothing on trace-cmd's stderr;
  - `trace-cmd report -t` (ns) equals bprint's raw ns, every record;
  - `trace-cmd report --stat` lists every thread with its records and the
    records lost before them, adding up to the exporter's counts;
  - the EVENTS DROPPED counts add up to the exporter's lost count (and are
    not 0 with --expect-lost);
  - with --expect-extend, `trace-cmd report --debug` shows TIME EXTEND events
    (a note, not a failure, when the gap fell at a page start);
  - `trace-cmd dump -v` calls the file valid;
  - with --kshark, libkshark (loaded with ctypes, headless) loads every record
    with the right pid, CPU and timestamp; skipped with a message if the
    library is not installed.
"""
import collections
import os
import re
import subprocess
import sys

from export_check import LOSS, event_names, fail, finish, layouts, ok
import kshark as kshark_lib


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        fail("%s exited %d: %s" % (" ".join(cmd), p.returncode, p.stderr.decode(errors="replace")[:500]))
    return p


BP_LINE = re.compile(rb"^ *(.*)-(\d+) +\[(\d+|\?\?\?)\] +(\d+)\.(\d{6}): (\S+): (.*)$", re.S)
TC_LINE = re.compile(rb"^ *(.*)-(\d+) +\[(\d+)\] +(\d+)\.(\d+): (\S+): +(.*)$", re.S)
TC_DROP = re.compile(rb"^CPU:(\d+) \[(?:(\d+) )?EVENTS DROPPED\]$")
BP_RAW = re.compile(rb"^(\d+) (-?\d+) (-?\d+) (\d+) (.*)$", re.S)


def lines(data):
    out = data.split(b"\n")
    if out and out[-1] == b"":
        out.pop()
    out = [ln for ln in out if not LOSS.search(ln)]
    return out


def main():
    bprint, trace, dat, summary = sys.argv[1:5]
    expect_lost = "--expect-lost" in sys.argv
    kshark = "--kshark" in sys.argv

    want = []
    raw = []
    for ln in lines(run([bprint, "report", "-r", trace]).stdout):
        m = BP_RAW.match(ln)
        if m:
            raw.append((int(m.group(2)), int(m.group(1))))
    for ln, (_, ns) in zip(lines(run([bprint, "report", "-n", trace]).stdout), raw):
        m = BP_LINE.match(ln)
        if not m:
            fail("bprint report line not understood: %r" % ln[:120])
            continue
        comm, tid, cpu, sec, usec, func, msg = m.groups()
        want.append((comm, int(tid), None if cpu == b"???" else int(cpu),
                     (ns + 500) // 1000, func, msg))

    ev2func, site_events = site_event_names(bprint, trace)
    p = run(["trace-cmd", "report", dat])
    if p.stderr.strip():
        fail("trace-cmd report wrote on stderr: %r" % p.stderr[:300])
    got, dropped, ndrops, kinds = [], 0, 0, collections.Counter()
    for ln in lines(p.stdout):
        if ln.startswith(b"cpus="):
            continue
        m = TC_DROP.match(ln)
        if m:
            if m.group(2) is None:
                fail("EVENTS DROPPED without a count")
            dropped += int(m.group(2) or 0)
            ndrops += 1
            continue
        if b"FAILED TO PARSE" in ln or b"NO FORMAT FOUND" in ln:
            fail("trace-cmd could not decode: %r" % ln[:200])
            continue
        m = TC_LINE.match(ln)
        if not m:
            fail("trace-cmd report line not understood: %r" % ln[:200])
            continue
        comm, tid, cpu, sec, usec, event, rest = m.groups()
        if len(usec) != 6:
            fail("not a microsecond timestamp: %r" % ln[:100])
        if event == b"print":	# "%ps: %s": the function, the text
            kind, (func, msg) = b"print", rest.split(b": ", 1)
        elif event.decode() in ev2func:
            kind, func, msg = b"site", ev2func[event.decode()].encode(), rest
        else:
            fail("an event of no site: %r" % ln[:200])
            continue
        kinds[kind] += 1
        got.append((comm, int(tid), int(cpu), int(sec) * 1000000 + int(usec), func, msg))

    # messages the exporter cut to fit a page: a prefix of bprint's
    full = {(r[0], r[1], r[3], r[4]): r[5] for r in want}
    cut = 0
    for i, r in enumerate(got):
        m = full.get((r[0], r[1], r[3], r[4]))
        if m is not None and m != r[5] and len(r[5]) > 1000 and m.startswith(r[5]):
            got[i] = r[:5] + (m,)
            cut += 1
    exported_cut = int(re.search(rb"(\d+) truncated", open(summary, "rb").read()).group(1))
    if cut != exported_cut:
        fail("%d messages cut, the exporter says %d" % (cut, exported_cut))
    elif cut:
        ok("%d long messages cut to a page, as the exporter says" % cut)
    if len(got) != len(want):
        fail("%d records in trace-cmd report, %d in bprint report" % (len(got), len(want)))
    else:
        ok("%d records (%d site events, %d print events)" % (len(got), kinds[b"site"], kinds[b"print"]))
    # CPUs: bprint's where it knows them; lanes are numbered after them
    norm = lambda rows: collections.Counter((r[0], r[1], r[3], r[4], r[5]) for r in rows)
    a, b = norm(want), norm(got)
    if a != b:
        missing, extra = a - b, b - a
        fail("records differ: %d only in bprint report, %d only in trace-cmd report" %
             (sum(missing.values()), sum(extra.values())))
        for r in list(missing)[:5]:
            print("  bprint only:   %r" % (r,))
        for r in list(extra)[:5]:
            print("  trace-cmd only: %r" % (r,))
    else:
        ok("every record agrees: comm, tid, timestamp (us), function, message")
    cpu_bad = sum(1 for w, g in zip(sorted(want, key=lambda r: (r[3], r[1], r[5])),
                                    sorted(got, key=lambda r: (r[3], r[1], r[5])))
                  if w[2] is not None and w[2] != g[2])
    if cpu_bad:
        fail("%d records on another CPU" % cpu_bad)
    else:
        ok("CPUs agree")
    per = lambda rows: {t: [r for r in rows if r[1] == t] for t in set(r[1] for r in rows)}
    pw, pg = per([(r[0], r[1], None, r[3], r[4], r[5]) for r in want]), \
        per([(r[0], r[1], None, r[3], r[4], r[5]) for r in got])
    if pw != pg:
        fail("per-thread order differs")
    else:
        ok("%d threads, each in order" % len(pw))

    # nanoseconds
    tns = []
    for ln in lines(run(["trace-cmd", "report", "-t", dat]).stdout):
        m = TC_LINE.match(ln)
        if m:
            tns.append((int(m.group(2)), int(m.group(4)) * 1000000000 + int(m.group(5))))
    if sorted(raw) != sorted(tns) or not raw:
        fail("nanosecond timestamps differ (trace-cmd report -t vs bprint report -r)")
    else:
        ok("nanosecond timestamps: trace-cmd report -t equals bprint report -r, %d records"
           % len(raw))
    check_stat(dat, want, summary)
    check_raw(bprint, trace, dat, site_events)

    exported_lost = int(re.search(rb"(\d+) lost", open(summary, "rb").read()).group(1))
    if dropped != exported_lost:
        fail("EVENTS DROPPED add up to %d, the exporter counted %d lost" % (dropped, exported_lost))
    elif expect_lost and dropped == 0:
        fail("no EVENTS DROPPED, but records were lost")
    else:
        ok("EVENTS DROPPED: %d records" % dropped)

    if "--expect-extend" in sys.argv:
        p = run(["trace-cmd", "report", "--debug", dat])
        n = len(re.findall(rb"TIME EXTEND: delta:(\d+)", p.stdout))
        if n == 0:
            # Whether the gap falls inside one page depends on scheduling
            # (a CPU change or a loss starts a new page, whose absolute time
            # needs no extend); the timestamps themselves are checked above.
            print("note: no TIME EXTEND this run: the long gap fell at a page start")
        else:
            ok("%d time-extend events" % n)

    p = run(["trace-cmd", "dump", "-v", dat])
    if b"is a valid trace-cmd file" not in p.stdout + p.stderr:
        fail("trace-cmd dump -v: %r" % (p.stdout + p.stderr)[:300])
    else:
        ok("trace-cmd dump -v: valid")

    if kshark:
        check_kshark(dat, got, ndrops)
    return finish()


def site_event_names(bprint, trace):
    """The names of the sites' events as the exporter makes them: every
    export's event name (function, function:LINE, ...) in the characters
    ftrace allows, the site id appended to the later of two that clash.
    Returns {event name: function} and {event name: site id}."""
    names = event_names(bprint, trace)
    clean = {sid: re.sub(r"[^A-Za-z0-9_]", "_", n[:1]) + re.sub(r"[^A-Za-z0-9_]", "_", n[1:])
             for sid, n in names.items()}
    out, taken = {}, set()
    for sid in sorted(clean, key=lambda s: (clean[s], s)):
        name = clean[sid] if clean[sid] not in taken else "%s_%d" % (clean[sid], sid)
        taken.add(clean[sid])
        out[name] = sid
    funcs = {}
    p = subprocess.run([bprint, "formats", trace], stdout=subprocess.PIPE)
    for line in p.stdout.split(b"\n"):
        m = re.match(rb"(\d+) : .* \S+:\d+ (.+)$", line)
        if m:
            funcs[int(m.group(1))] = m.group(2).decode()
    return {n: funcs[sid] for n, sid in out.items()}, out


def check_raw(bprint, trace, dat, site_events):
    """trace-cmd report -R: a site's event shows every field of the site,
    by name and in order, then msg; the flood records' values are the
    numbers of their messages."""
    fields = layouts(bprint, trace)
    bad, n, flood = 0, 0, 0
    for ln in lines(run(["trace-cmd", "report", "-R", dat]).stdout):
        m = TC_LINE.match(ln)
        if not m or m.group(6) == b"print":
            continue
        rest, pos, n = m.group(7), 0, n + 1
        for name in fields.get(site_events.get(m.group(6).decode()), []) + ["msg"]:
            at = rest.find((" " if pos else "") .encode() + name.encode() + b"=", pos)
            if at < 0 or (pos == 0 and at != 0):
                bad += 1
                if bad <= 3:
                    print("  -R lacks %s: %r" % (name, ln[:200]))
                break
            pos = at + len(name) + 1
        f = re.match(rb"flood=(\d+) of=(\d+) msg=flood (\d+) of (\d+)$", rest)
        if f:
            flood += 1
            if f.group(1, 2) != f.group(3, 4):
                bad += 1
    if bad or not n or not flood:
        fail("trace-cmd report -R: %d of %d site events without their fields (%d flood)"
             % (bad, n, flood))
    else:
        ok("trace-cmd report -R: %d site events show their fields by name (%d flood records' "
           "values are their messages' numbers)" % (n, flood))


def check_stat(dat, want, summary):
    """trace-cmd report --stat: each thread's records and losses."""
    out = run(["trace-cmd", "report", "--stat", dat]).stdout
    got = {int(t): (int(r), int(l)) for t, r, l in
           re.findall(rb"thread: (\d+)[^\n]*\nrecords: (\d+)\nlost: (\d+)\n", out)}
    per = collections.Counter(r[1] for r in want)
    lost = int(re.search(rb"(\d+) lost", open(summary, "rb").read()).group(1))
    if {t: r for t, (r, _) in got.items()} != dict(per) or sum(l for _, l in got.values()) != lost:
        fail("--stat: %r; want records %r and %d lost" % (got, dict(per), lost))
    else:
        ok("--stat: %d threads, their records and the %d lost" % (len(got), lost))


def check_kshark(dat, got, ndrops):
    try:
        loaded = kshark_lib.load_entries(dat)
    except RuntimeError as e:
        fail(str(e))
        return
    if loaded is None:
        print("SKIP: libkshark not installed (KernelShark's library): not checked")
        return
    # KernelShark adds one entry of event id -EOVERFLOW per missed-events mark
    ents = loaded
    marks = sum(1 for e in ents if e.event_id == -75)
    ents = sorted((e.pid, e.cpu, (e.ts + 500) // 1000) for e in ents if e.event_id != -75)
    if len(ents) != len(got) or marks != ndrops:
        fail("libkshark loaded %d entries and %d missed-events marks, trace-cmd reported %d "
             "records and %d" % (len(ents), marks, len(got), ndrops))
    else:
        ok("libkshark loads all %d records (and %d missed-events marks)" % (len(ents), marks))
    want = sorted((r[1], r[2], r[3]) for r in got)
    if ents != want:
        diff = sum(1 for a, b in zip(ents, want) if a != b)
        fail("libkshark entries differ from trace-cmd report (pid, cpu, us): %d" % diff)
    else:
        ok("libkshark entries: pid, CPU and timestamp of every record agree")


if __name__ == "__main__":
    sys.exit(main())
