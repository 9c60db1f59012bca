#!/usr/bin/env python3
"""The kernel events of a record --kernel trace in each export, checked
with the export's real consumer against `bprint report --kernel=all`.

    check_kernel_export.py FORMAT BPRINT TRACE OUT [PROTO]

FORMAT and what fails the test:
  trace-cmd  trace-cmd report: every kernel event, as many of each name as
             bprint reports, at the same nanosecond and tid (report -t),
             nothing it cannot parse; libkshark: every record loaded, each
             kernel event under its own name, and the traced threads'
             sched_switch events (what KernelShark's task plot draws from)
  perfetto   protoc --decode with the real protos (PROTO): one ftrace_events
             bundle per CPU and run, every sched_switch and sched_waking
             (full or compact) with bprint's fields and nanoseconds
  ctf        babeltrace2 reads the program's trace and the kernel's (OUT
             and OUT/kernel) as one, merged by time: every kernel event by
             name with the kernel's field names, in time order with the
             program's records, both traces on one clock (the boot id)
  chrome     the traced threads' running slices ("X" events, cat "sched")
             are exactly the intervals their sched_switch events give
"""
import collections
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "output"))
import kshark  # noqa: E402  (libkshark through ctypes, as check_tracedat.py loads it)

FAILS = []


def fail(msg):
    FAILS.append(msg)
    print("FAIL: " + msg)


def ok(msg):
    print("ok: " + msg)


def run(cmd, **kw):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)
    if p.returncode != 0:
        fail("%s exited %d: %s" % (" ".join(cmd), p.returncode, p.stderr.decode(errors="replace")[:400]))
    return p


# bprint report -r: ns tid cpu site message
KERNEL_SITE_BASE = 0x30000


def kernel_events(bprint, trace):
    """Every kernel event of bprint report --kernel=all: (ns, tid, cpu,
    name, {field: value}) in time order, and the program's records."""
    names = {}
    for line in run([bprint, "formats", trace]).stdout.decode().split("\n"):
        m = re.match(r"(\d+) : .* kernel\S*:\d+ (\S+)", line)
        if m and int(m.group(1)) >= KERNEL_SITE_BASE:
            names[int(m.group(1))] = m.group(2)
    kev, prog = [], []
    # the typed fields of --json: a comm may hold spaces ("npm init"),
    # which the text's name=value pairs cannot tell apart
    for line in run([bprint, "report", "--json", "--kernel=all", trace]).stdout.decode(errors="replace").split("\n"):
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        if "site" not in r:
            continue
        ns, tid, cpu, site = r["ns"], r["tid"], r["cpu"], r["site"]
        if site >= KERNEL_SITE_BASE:
            fields = {k: str(v) for k, v in r.get("fields", {}).items()}
            kev.append((ns, tid, cpu, names.get(site, "?%d" % site), fields))
        else:
            prog.append((ns, tid, cpu, r["message"]))
    if not kev:
        fail("bprint report --kernel=all shows no kernel events")
    return kev, prog


# ---- trace.dat ------------------------------------------------------------

TC_LINE = re.compile(r"^ *(.*)-(\d+) +\[(\d+)\] +(\d+)\.(\d+): (\S+): +(.*)$")


def check_tracedat(bprint, trace, dat):
    kev, prog = kernel_events(bprint, trace)
    p = run(["trace-cmd", "report", "-t", dat])
    if p.stderr.strip():
        fail("trace-cmd report wrote on stderr: %r" % p.stderr[:300])
    got = []
    for line in p.stdout.decode(errors="replace").split("\n"):
        if not line or line.startswith("cpus="):
            continue
        if "FAILED TO PARSE" in line or "NO FORMAT FOUND" in line:
            fail("trace-cmd could not decode: %r" % line[:200])
        m = TC_LINE.match(line)
        if not m:
            fail("trace-cmd report line not understood: %r" % line[:200])
            continue
        got.append((int(m.group(4)) * 10**9 + int(m.group(5)), int(m.group(2)), int(m.group(3)),
                    m.group(6)))
    want_names = collections.Counter(e[3] for e in kev)
    got_names = collections.Counter(g[3] for g in got if g[3] in want_names)
    if got_names != want_names:
        fail("kernel events by name: trace-cmd %r, bprint report --kernel=all %r"
             % (dict(got_names), dict(want_names)))
    else:
        ok("trace-cmd report: %d kernel events, as many of each name as bprint reports (%s)"
           % (sum(got_names.values()), ", ".join("%s %d" % kv for kv in sorted(want_names.items()))))
    a = collections.Counter((e[0], e[1], e[2], e[3]) for e in kev)
    b = collections.Counter(g for g in got if g[3] in want_names)
    if a != b:
        fail("kernel events differ in ns, tid or CPU: %d only in bprint, %d only in trace-cmd"
             % (sum((a - b).values()), sum((b - a).values())))
    else:
        ok("every kernel event at bprint's nanosecond, tid and CPU")
    if len(got) != len(kev) + len(prog):
        fail("trace-cmd shows %d events, bprint %d kernel events and %d records"
             % (len(got), len(kev), len(prog)))
    # trace-cmd report -R: the kernel's own fields, by the kernel's names
    raw = run(["trace-cmd", "report", "-R", dat]).stdout.decode(errors="replace")
    sw = [l for l in raw.split("\n") if " sched_switch: " in l]
    if not sw or not all(re.search(r"prev_comm=.* prev_pid=\d+ prev_prio=\d+ prev_state=\d+ "
                                   r"next_comm=.* next_pid=\d+ next_prio=\d+", l) for l in sw):
        fail("trace-cmd report -R: sched_switch without the kernel's fields: %r" % sw[:1])
    else:
        ok("trace-cmd report -R: %d sched_switch events with the kernel's fields" % len(sw))
    check_kshark(dat, got, kev, prog)


def check_kshark(dat, got, kev, prog):
    try:
        loaded = kshark.load_entries(dat)
    except RuntimeError as e:
        fail(str(e))
        return
    if loaded is None:
        print("SKIP: libkshark not installed (KernelShark's library): not checked")
        return
    ents = [(e.ts, e.pid, e.cpu, e.name) for e in loaded]
    # "sched/sched_switch": the kernel's system, not "bprint/" (a site's event)
    ents = [e[:3] + (e[3].split("/")[1] if e[3].split("/")[0] in ("sched", "syscalls", "irq",
                                                                   "raw_syscalls") else e[3],)
            for e in ents]
    want_names = collections.Counter(e[3] for e in kev)
    got_names = collections.Counter(e[3] for e in ents if e[3] in want_names)
    if len(ents) != len(got) or got_names != want_names:
        fail("libkshark: %d entries, trace-cmd %d; kernel events by name %r, want %r"
             % (len(ents), len(got), dict(got_names), dict(want_names)))
    else:
        ok("libkshark loads all %d events, the %d kernel events under their own names"
           % (len(ents), sum(got_names.values())))
    if sorted(e[:3] for e in ents) != sorted(g[:3] for g in got):
        fail("libkshark's ns, pid and CPU differ from trace-cmd report -t")
    # a traced thread's task plot: its switches away, on the CPUs it ran on
    tids = set(r[1] for r in prog)
    mine = collections.Counter(e[1] for e in ents if e[3] == "sched_switch" and e[1] in tids)
    if not mine or set(mine) != tids & set(e[1] for e in kev if e[3] == "sched_switch"):
        fail("libkshark: the traced threads' sched_switch events: %r (threads %r)"
             % (dict(mine), sorted(tids)))
    else:
        ok("libkshark: sched_switch of every traced thread (%s)"
           % ", ".join("%d: %d" % kv for kv in sorted(mine.items())))


# ---- Perfetto ---------------------------------------------------------------

BUNDLED = ("sched_switch", "sched_wakeup", "sched_waking", "sched_wakeup_new",
           "sched_process_exit", "sched_process_fork")
STATE_BITS = {"S": 1, "D": 2, "T": 4, "t": 8, "X": 16, "Z": 32, "P": 64, "I": 128, "+": 256, "R": 0}


def check_perfetto(bprint, trace, pftrace, proto):
    import os
    sys.path.insert(0, os.path.join(os.path.dirname(proto)))
    from check_perfetto import packets, frame
    kev, _ = kernel_events(bprint, trace)
    data = open(pftrace, "rb").read()
    p = subprocess.run(["protoc", "-I", os.path.dirname(proto), "--decode=perfetto.protos.Trace",
                        os.path.basename(proto)], input=frame(packets(data)),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        fail("protoc --decode failed: %s" % p.stderr.decode(errors="replace")[:300])
        return
    text = p.stdout.decode(errors="replace")
    # the bundles: "ftrace_events {" ... at two spaces of indent
    got, bundles, cpus_last = [], 0, {}
    for b in re.finditer(r"\n  ftrace_events \{\n(.*?)\n  \}", text, re.S):
        bundles += 1
        body = b.group(1)
        cpu = int(re.search(r"^    cpu: (\d+)", body, re.M).group(1))
        for ev in re.finditer(r"    event \{\n      timestamp: (\d+)\n      pid: (\d+)\n"
                              r"      (\w+) \{\n(.*?)\n      \}\n    \}", body, re.S):
            fields = dict(re.findall(r'^        (\w+): "?(.*?)"?$', ev.group(4), re.M))
            got.append((int(ev.group(1)), int(ev.group(2)), cpu, ev.group(3), fields))
    want = [e for e in kev if e[3] in BUNDLED]
    if not bundles or len(got) != len(want):
        fail("%d ftrace events in %d bundles, bprint reports %d of %s"
             % (len(got), bundles, len(want), ", ".join(BUNDLED)))
        return
    ok("protoc decodes %d ftrace events in %d bundles (%s)" % (len(got), bundles, ", ".join(
        "%s %d" % kv for kv in sorted(collections.Counter(g[3] for g in got).items()))))
    key = lambda e: (e[0], e[1], e[2], e[3])
    if collections.Counter(map(key, got)) != collections.Counter(map(key, want)):
        fail("ftrace events differ from bprint's in ns, pid, CPU or name")
    else:
        ok("every ftrace event at bprint's nanosecond, pid and CPU")
    # the fields: each as bprint reports it (prev_state as the kernel's bits)
    bad = 0
    index = {key(e): e[4] for e in want}
    for g in got:
        w = index.get(key(g), {})
        for name, value in g[4].items():
            exp = w.get(name)
            if name == "prev_state":
                exp = str(sum(STATE_BITS.get(c, 0) for c in exp or ""))
            if exp != value:
                bad += 1
                if bad <= 3:
                    print("  %s %s: %r, bprint %r" % (g[3], name, value, exp))
        if g[3] == "sched_switch" and len(g[4]) != 7:
            bad += 1
    if bad:
        fail("%d ftrace event fields differ from bprint's" % bad)
    else:
        ok("every field of every ftrace event as bprint reports it")
    # per CPU, the bundles' events in time order
    per = collections.defaultdict(list)
    for g in got:
        per[g[2]].append(g[0])
    if any(v != sorted(v) for v in per.values()):
        fail("a CPU's ftrace events out of time order")
    else:
        ok("each CPU's ftrace events in time order (%d CPUs)" % len(per))


# ---- CTF ------------------------------------------------------------------------

BT_LINE = re.compile(r"^\[(\d+)\] \(\+[?\d]+\) (\S+) (\w+): \{ cpu_id = (\d+) \}, (.*)$")


def clock_uuid(metadata):
    m = re.search(r'clock \{[^}]*uuid = "([0-9a-f-]+)"', open(metadata).read())
    return m.group(1) if m else None


def check_ctf(bprint, trace, out):
    import os
    kev, prog = kernel_events(bprint, trace)
    kmeta = os.path.join(out, "kernel", "metadata")
    if not os.path.exists(kmeta):
        fail("no kernel trace in %s/kernel" % out)
        return
    text = open(kmeta).read()
    if 'domain = "kernel"' not in text or 'tracer_name = "lttng-modules"' not in text:
        fail("the kernel trace's env is not lttng-modules' kernel domain")
    boot = open("/proc/sys/kernel/random/boot_id").read().strip()
    a, b = clock_uuid(os.path.join(out, "metadata")), clock_uuid(kmeta)
    if a != boot or b != boot:
        fail("clock uuids %r and %r, the boot id is %s" % (a, b, boot))
    else:
        ok("both traces' clock: uuid the boot id")
    p = run(["babeltrace2", "--clock-cycles", out, os.path.join(out, "kernel")])
    names = set(e[3] for e in kev)
    got, order, bad = [], [], 0
    for line in p.stdout.decode(errors="replace").split("\n"):
        if not line:
            continue
        m = BT_LINE.match(line)
        if not m:
            bad += 1
            continue
        ns, name, cpu, rest = int(m.group(1)), m.group(3), int(m.group(4)), m.group(5)
        order.append(ns)
        if name in names:
            got.append((ns, cpu, name, rest))
    if bad:
        fail("%d babeltrace2 lines not understood" % bad)
    want = collections.Counter((e[0], e[2], e[3]) for e in kev)
    have = collections.Counter(g[:3] for g in got)
    if want != have:
        fail("babeltrace2: %d kernel events, bprint %d (%d only in bprint, %d only in babeltrace2)"
             % (len(got), len(kev), sum((want - have).values()), sum((have - want).values())))
    else:
        ok("babeltrace2 reads both traces as one: %d kernel events at bprint's ns and CPU, "
           "%d records" % (len(got), len(order) - len(got)))
    if len(order) - len(got) != len(prog):
        fail("babeltrace2: %d program records, bprint %d" % (len(order) - len(got), len(prog)))
    if order != sorted(order):
        fail("babeltrace2's output is not in time order")
    else:
        ok("merged by time: records and kernel events in one time order")
    fields = [re.findall(r"(\w+) = ", g[3]) for g in got if g[2] == "sched_switch"]
    want_f = ["prev_comm", "prev_tid", "prev_prio", "prev_state", "next_comm", "next_tid", "next_prio"]
    if not fields or any(f != want_f for f in fields):
        fail("sched_switch fields %r, want %r" % (fields[:1], want_f))
    else:
        ok("sched_switch: %s, as lttng-modules names them" % ", ".join(want_f))


# ---- Chrome JSON -------------------------------------------------------------


def check_chrome(bprint, trace, out):
    kev, prog = kernel_events(bprint, trace)
    try:
        doc = json.load(open(out))
    except ValueError as e:
        fail("not JSON: %s" % e)
        return
    traced = set(r[1] for r in prog)
    want, on = [], {}
    for ns, tid, cpu, name, f in kev:
        if name != "sched_switch":
            continue
        prev, nxt = int(f["prev_pid"]), int(f["next_pid"])
        if cpu in on and on[cpu][1] and on[cpu][1] == prev:
            want.append((on[cpu][1], on[cpu][0], ns - on[cpu][0], cpu))
        on[cpu] = (ns, nxt) if nxt in traced else (ns, 0)
    got = [(e["tid"], round(e["ts"] * 1000), round(e["dur"] * 1000), e["args"]["cpu"])
           for e in doc["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "sched"]
    if not want or sorted(got) != sorted(want):
        fail("running slices: %d, the sched_switch events give %d" % (len(got), len(want)))
        return
    ok("%d running slices of %d traced threads, as the sched_switch events give them"
       % (len(got), len(set(g[0] for g in got))))
    # a record is written while its thread runs: inside one of its slices.
    # Unless the kernel left out the switch that began it: on some VMs the
    # switches away from the host's own tasks are never in the trace (not
    # even in tracefs's own "trace"), so a CPU's chain of switches breaks
    # (a switch's prev is not the one before's next).  A record right
    # before a switch away from its thread that follows such a break has
    # no slice to lie in; every other record is judged.
    switches = collections.defaultdict(list)
    for ns, tid, cpu, name, f in kev:
        if name == "sched_switch":
            switches[cpu].append((ns, int(f["prev_pid"]), int(f["next_pid"])))
    outside = unjudged = 0
    for ns, tid, cpu, _ in prog:
        mine = [g for g in got if g[0] == tid]
        if not (mine and min(g[1] for g in mine) <= ns <= max(g[1] + g[2] for g in mine)) or \
                any(g[1] <= ns <= g[1] + g[2] for g in mine):
            continue
        sw = switches.get(cpu, [])
        before = [s for s in sw if s[0] <= ns][-1:]
        after = [s for s in sw if s[0] > ns][:1]
        if before and after and after[0][1] == tid and before[0][2] != tid:
            unjudged += 1
        else:
            outside += 1
    if outside:
        fail("%d records outside their thread's running slices" % outside)
    elif unjudged * 2 > len(prog):
        fail("%d of %d records after a switch the kernel left out: too few to judge"
             % (unjudged, len(prog)))
    else:
        ok("every record lies within a running slice of its thread (%d after a switch "
           "the kernel left out)" % unjudged)
    if any(e.get("cat") == "kernel" or str(e.get("cat", "")).startswith("kernel/")
           for e in doc["traceEvents"]):
        fail("kernel events as instant events")


def main():
    fmt, bprint, trace, out = sys.argv[1:5]
    if fmt == "trace-cmd":
        check_tracedat(bprint, trace, out)
    elif fmt == "perfetto":
        check_perfetto(bprint, trace, out, sys.argv[5])
    elif fmt == "ctf":
        check_ctf(bprint, trace, out)
    elif fmt == "chrome":
        check_chrome(bprint, trace, out)
    else:
        fail("no such format %s" % fmt)
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
