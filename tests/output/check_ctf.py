"""Check a `bprint export --format=ctf` directory with babeltrace2's own reader.

    /usr/bin/python3 check_ctf.py BPRINT TRACE_FILE CTF_DIR EXPORT_SUMMARY FLOOD_RECORDS

Read with the bt2 module (Debian's python3-bt2):
  - the multiset of `msg` fields equals `bprint report --msg-only`, and per
    thread the messages and timestamps are those of `bprint report --raw`,
    in the same (time) order;
  - the typed fields equal the recorded arguments: the site's format
    (`bprint formats`), printed with the fields by a printf written here,
    gives the message bprint formatted;
  - a signal handler's events have level > 0, thread names are the
    threads' own;
  - the discarded-events counts add up to the exporter's lost count, and
    on the flood thread to FLOOD_RECORDS minus its records read;
  - `babeltrace2 --clock-date DIR` exits 0 and prints the recording's date.
Exit 77 if bt2 cannot be imported.
"""
import collections
import datetime
import os
import re
import socket
import subprocess
import sys
import uuid

try:
    import bt2
except ImportError as e:
    print("SKIP: the bt2 module (Debian: python3-bt2) is not importable:", e)
    sys.exit(77)

from export_check import LOSS, check_names, fail, finish, layouts, ok, unraw

site_of_class = {}


def run(*cmd):
    p = subprocess.run(list(cmd), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode:
        fail("%s exited %d: %s" % (" ".join(cmd), p.returncode, p.stderr[:300]))
    lines = p.stdout.split(b"\n")
    lines = lines[:-1] if lines and lines[-1] == b"" else lines
    return [ln for ln in lines if not LOSS.search(ln)]


def b(s):
    """A bt2 string (bytes that are not UTF-8 as surrogates) as bytes."""
    return str(s).encode("utf-8", "surrogateescape")


CONV = re.compile(rb"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d*))?(hh|h|ll|l|j|z|t|L)?([diouxXcspfFeEgGaAn%])")


def c_int(v, flags, width, prec, conv):
    """One integer as glibc prints it."""
    neg = v < 0
    digits = {"o": "%o", "x": "%x", "X": "%X"}.get(conv, "%d") % abs(v)
    if prec is not None:
        digits = "" if prec == 0 and v == 0 else digits.rjust(prec, "0")
    prefix = ""
    if "#" in flags and conv == "o" and not digits.startswith("0"):
        digits = "0" + digits
    if "#" in flags and conv in "xX" and v != 0:
        prefix = "0" + conv
    if conv in "di":
        prefix = "-" if neg else "+" if "+" in flags else " " if " " in flags else ""
    return pad(prefix, digits, flags, width, prec is None)


def pad(prefix, body, flags, width, zero_ok):
    n = len(prefix) + len(body)
    if width is None or n >= width:
        return prefix + body
    if "-" in flags:
        return prefix + body + " " * (width - n)
    if "0" in flags and zero_ok:
        return prefix + "0" * (width - n) + body
    return " " * (width - n) + prefix + body


def c_format(fmt, values):
    """fmt (bytes) printed with the typed values in order; None if this
    printf cannot (%a, %pS-style letters, long double)."""
    out, pos, vals = b"", 0, list(values)
    for m in CONV.finditer(fmt):
        out += fmt[pos:m.start()]
        pos = m.end()
        flags, width, prec, length, conv = (m.group(1).decode(), m.group(2), m.group(3),
                                            m.group(4), m.group(5).decode())
        if conv == "%":
            out += b"%"
            continue
        if width == b"*":
            width = vals.pop(0)
            if width < 0:
                flags, width = flags + "-", -width
        elif width is not None:
            width = int(width)
        if prec == b"*":
            prec = vals.pop(0)
            prec = None if prec < 0 else prec
        elif prec is not None:
            prec = int(prec or b"0")
        if conv == "n":
            continue
        v = vals.pop(0)
        if conv == "p" and fmt[pos:pos + 1] in (b"S", b"s") and isinstance(v, str):
            out += b(v)	# %pS and %ps: the symbol, as bprint report prints it
            pos += 1
            continue
        if conv in "aA" or length == b"L" or (conv == "p" and fmt[pos:pos + 1].isalnum()):
            return None
        if conv in "diouxX":
            s = c_int(v, flags, width, prec, conv)
        elif conv in "cs":
            body = b(v)	# %c is a string of its byte too
            fill = b" " * max(0, (width or 0) - len(body))
            out += body + fill if "-" in flags else fill + body
            continue
        elif conv == "p":
            s = pad("", "(nil)" if v == 0 else "0x%x" % v, flags, width, False)
        else:
            s = ("%" + flags + (str(width) if width is not None else "") +
                 ("." + str(prec) if prec is not None else "") + conv) % v
        out += s.encode()
    if vals:
        return None
    return out + fmt[pos:]


def stale_empty(fmt, vals, seen, msg):
    """babeltrace2 2.0 reads an empty string field as the value the same
    field had in an earlier event of its class (the bytes say ""): try ""
    for the string fields that repeat an earlier value of their field."""
    idx = [i for i, v in enumerate(vals) if isinstance(v, str) and v in seen[i]]
    for mask in range(1, 1 << min(len(idx), 6)):
        alt = list(vals)
        for k, i in enumerate(idx):
            if mask >> k & 1:
                alt[i] = ""
        got = c_format(fmt, alt)
        if got == msg:
            return got, bin(mask).count("1")
    return c_format(fmt, vals), 0


def formats(bprint, trace):
    """Class name -> format, as the exporter names classes: the function,
    FUNC:LINE when sites share it, FUNC:LINE#ID when that is taken too (a
    call site with a runtime format and its derived sites share a line).
    Sites come in id order, as the exporter takes them."""
    sites = []
    for line in run(bprint, "formats", trace):
        m = re.match(rb'\s*(\d+) : (?:"(.*)"|\(formatted at trace time\)) (\S+):(\d+) (.*)$', line)
        if m:
            sites.append((int(m.group(1)), m.group(2), int(m.group(4)), m.group(5).decode()))
    count = collections.Counter(s[3] for s in sites)
    out, taken = {}, set()
    for sid, fmt, line, func in sites:
        name = func if count[func] == 1 else "%s:%d" % (func, line)
        if name in taken:
            name = "%s:%d#%d" % (func, line, sid)
        taken.add(name)
        site_of_class[name] = sid
        if fmt is not None:
            out[name] = bytes(fmt.decode("unicode_escape", "surrogateescape"), "latin-1",
                              "surrogateescape") if b"\\" in fmt else fmt
    return out


def lttng_shape(ctf):
    """The metadata against LTTng-UST 2.x's own (lttng-tools writes it; the
    contexts are LTTng-UST's): the environment Trace Compass validates and
    picks its event layout by, the packet context's cpu_id and the event
    context's vtid, vpid and procname, with LTTng-UST's types (pid_t: a
    signed 32-bit integer; procname: char[16] text, which bt2 reads as a
    string).  Returns the environment's vpid."""
    for m in bt2.TraceCollectionMessageIterator(ctf):
        if type(m) is bt2._StreamBeginningMessageConst:
            break
    else:
        fail("no stream")
        return -1
    env = {k: int(v) if isinstance(v, bt2._IntegerValueConst) else str(v)
           for k, v in m.stream.trace.environment.items()}
    sc = m.stream.cls
    want = {"domain": "ust", "tracer_name": "lttng-ust", "tracer_major": 2,
            "tracer_buffering_scheme": "pid", "procname": str(env.get("procname"))}
    bad = {k: env.get(k) for k, v in want.items() if env.get(k) != v}
    for k in ("tracer_minor", "tracer_patchlevel", "vpid", "tracer_buffering_id",
              "architecture_bit_width"):
        if type(env.get(k)) is not int:
            bad[k] = env.get(k)
    if env.get("tracer_minor", 0) < 9:
        bad["tracer_minor"] = env.get("tracer_minor")
    if "clock" in env:
        bad["clock"] = "a TSDL keyword: babeltrace2's CTF writer refuses it"
    # a trace of this boot: the host's name (babeltrace2 names the trace by
    # it) and the boot id as the clock's uuid (Trace Compass matches the
    # traces of one host by it)
    if env.get("hostname") != socket.gethostname():
        bad["hostname"] = env.get("hostname")
    with open("/proc/sys/kernel/random/boot_id") as f:
        boot_id = uuid.UUID(f.read().strip())
    for m2 in bt2.TraceCollectionMessageIterator(ctf):
        if type(m2) is bt2._EventMessageConst:
            if m2.default_clock_snapshot.clock_class.uuid != boot_id:
                bad["clock uuid"] = m2.default_clock_snapshot.clock_class.uuid
            break
    if bad:
        fail("environment is not LTTng-UST's: %r" % bad)
    else:
        ok("environment: domain ust, lttng-ust %d.%d.%d, vpid %d, hostname %s; clock uuid the boot id" %
           (env["tracer_major"], env["tracer_minor"], env["tracer_patchlevel"], env["vpid"],
            env["hostname"]))
    pc = sc.packet_context_field_class
    cpu = pc["cpu_id"].field_class if pc is not None and "cpu_id" in pc else None
    if (not isinstance(cpu, bt2._UnsignedIntegerFieldClassConst) or
            cpu.field_value_range != 32 or not sc.supports_discarded_events):
        fail("packet context: cpu_id %r, discarded events %r" % (cpu, sc.supports_discarded_events))
    else:
        ok("packet context: cpu_id, a 32-bit unsigned integer; discarded events counted")
    ec = sc.event_common_context_field_class
    types = {k: ec[k].field_class for k in ("vtid", "vpid", "procname") if ec is not None and k in ec}
    if (len(types) != 3 or any(not isinstance(types[k], bt2._SignedIntegerFieldClassConst) or
                               types[k].field_value_range != 32 for k in ("vtid", "vpid")) or
            not isinstance(types["procname"], bt2._StringFieldClassConst)):
        fail("event context: %r" % types)
    else:
        ok("event context: vtid and vpid (signed 32-bit), procname (text)")
    return env.get("vpid", -1)


def field_types(bprint, trace):
    """(site id, field name) -> TYPE, as `bprint formats` lists them."""
    out, site = {}, None
    for line in run(bprint, "formats", trace):
        if line.startswith(b"\t") and site is not None:
            name, typ = line[1:].split(b" ")[:2]
            out[(site, name.decode())] = typ.decode()
        elif line[:1].isdigit():
            site = int(line.split(b" ")[0])
    return out


def main():
    bprint, trace, ctf, summary, flood_n = sys.argv[1:6]
    flood_n = int(flood_n)
    fmts = formats(bprint, trace)
    msgs, per_tid, names, levels = [], collections.defaultdict(list), {}, 0
    discarded, disc_by_tid, checked, unchecked = 0, collections.Counter(), 0, set()
    last, stale = {}, 0
    vpids = set()
    named, chars = [], 0
    layout_types = field_types(bprint, trace)
    for m in bt2.TraceCollectionMessageIterator(ctf):
        if type(m) is bt2._DiscardedEventsMessageConst:
            discarded += m.count
            disc_by_tid[m.stream.id] += m.count
            continue
        if type(m) is not bt2._EventMessageConst:
            continue
        e = m.event
        ctx = e.common_context_field
        tid = int(ctx["vtid"])
        names.setdefault(tid, set()).add(str(ctx["procname"]))
        vpids.add(int(ctx["vpid"]))
        cpu = int(e.packet.context_field["cpu_id"])
        msg = b(e.payload_field["msg"])
        msgs.append(msg)
        per_tid[tid].append((m.default_clock_snapshot.value, msg, -1 if cpu == 0xffffffff else cpu))
        levels += int(e.common_context_field["level"]) > 0
        fields = [f for k, f in e.payload_field.items() if k != "msg"]
        if e.name.startswith("bprint_text") or not fields:
            continue
        named.append((site_of_class.get(e.name), [k for k in e.payload_field if k != "msg"]))
        chars += sum(1 for k, f in e.payload_field.items()
                     if isinstance(f, bt2._StringFieldConst) and layout_types.get(
                         (site_of_class.get(e.name), k)) == "char" and len(b(f)) == 1)
        fmt = fmts.get(e.name)
        if fmt is None:
            fail("event class %s is no site's" % e.name)
            continue
        vals = [str(f) if isinstance(f, bt2._StringFieldConst) else
                float(f) if isinstance(f, bt2._RealFieldConst) else int(f) for f in fields]
        got = c_format(fmt, vals)
        seen = last.setdefault(e.name, [set() for _ in vals])
        if got is not None and got != msg:
            got, n = stale_empty(fmt, vals, seen, msg)
            stale += n
        for i, v in enumerate(vals):
            if isinstance(v, str):
                seen[i].add(v)
        if got is None:
            unchecked.add(e.name)
        elif got != msg:
            fail("%s: fields %r print %r, the message is %r" % (e.name, vals, got, msg))
        else:
            checked += 1

    check_names("fields", named, layouts(bprint, trace))
    if chars < 10:
        fail("only %d %%c fields read as one-character strings" % chars)
    else:
        ok("%d %%c fields read as one-character strings" % chars)
    want = run(bprint, "report", "--msg-only", trace)
    if collections.Counter(msgs) == collections.Counter(want):
        ok("%d msg fields, the multiset of bprint report --msg-only" % len(msgs))
    else:
        d1 = collections.Counter(msgs) - collections.Counter(want)
        d2 = collections.Counter(want) - collections.Counter(msgs)
        fail("msg multiset differs: extra %r, missing %r" % (list(d1)[:3], list(d2)[:3]))
    raw = collections.defaultdict(list)
    for line in run(bprint, "report", "--raw", trace):
        ns, tid, cpu, _site, msg = line.split(b" ", 4)
        raw[int(tid)].append((int(ns), unraw(msg), int(cpu)))
    for tid, evs in per_tid.items():
        if [t for t, _, _ in evs] != sorted(t for t, _, _ in evs):
            fail("thread %d: events out of time order" % tid)
        if evs != raw[tid]:
            fail("thread %d: events differ from bprint report --raw" % tid)
    ok("%d threads: each in time order, as bprint report --raw has them (time, message, "
       "cpu_id)" % len(per_tid))
    pid = lttng_shape(ctf)
    if vpids != {pid}:
        fail("event contexts' vpid %r, the environment's %d" % (vpids, pid))
    else:
        ok("every event's vpid is the process's, %d" % pid)
    if set(raw) != set(per_tid):
        fail("threads %s vs %s" % (sorted(raw), sorted(per_tid)))
    if checked < 100:
        fail("only %d events had their fields checked" % checked)
    ok("typed fields give the message for %d events (not checked: %s; %d empty strings "
       "read back stale)" % (checked, ", ".join(sorted(unchecked)), stale))
    if levels == 0:
        fail("no event from a signal handler (level > 0)")
    else:
        ok("%d events from a signal handler's ring" % levels)
    if not any("flood" in n for ns in names.values() for n in ns):
        fail("no thread named flood: %r" % names)

    lost = int(re.search(rb"(\d+) lost", open(summary, "rb").read()).group(1))
    if discarded != lost or lost == 0:
        fail("discarded events %d, the exporter lost %d" % (discarded, lost))
    else:
        ok("discarded events add up to the %d lost records" % lost)
    flood = [t for t, ns in names.items() if "flood" in ns]
    if flood:
        got = sum(1 for _, msg, _ in per_tid[flood[0]] if msg.startswith(b"flood "))
        if got + disc_by_tid[flood[0]] != flood_n:
            fail("flood: %d events + %d discarded != %d written" %
                 (got, disc_by_tid[flood[0]], flood_n))
        else:
            ok("flood: %d events + %d discarded = %d written" %
               (got, disc_by_tid[flood[0]], flood_n))

    p = subprocess.run(["babeltrace2", "--clock-date", ctf], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    first = p.stdout.split(b"\n", 1)[0].decode("utf-8", "replace")
    m = re.match(r"\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\.\d{9}\]", first)
    if p.returncode != 0 or not m:
        fail("babeltrace2 --clock-date: exit %d, first line %r" % (p.returncode, first))
    else:
        shown = datetime.datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S").timestamp()
        age = os.stat(trace).st_mtime - shown
        if not -2 < age < 120:
            fail("babeltrace2 dates the first event %s, %.0f s from the trace's mtime"
                 % (m.group(1), age))
        else:
            ok("babeltrace2 exits 0 and dates the first event %s" % m.group(1))
    return finish()


sys.exit(main())
