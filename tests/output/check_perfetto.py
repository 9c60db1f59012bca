#!/usr/bin/env python3
"""Check a `bprint export --format=perfetto` file against `bprint report`.

    check_perfetto.py BPRINT TRACE_FILE PFTRACE EXPORT_SUMMARY PROTO_DIR [JSON]

The packets (inflated from compressed_packets with zlib when they are) are
decoded by `protoc --decode=perfetto.protos.Trace` against our subset of
Perfetto's protos (perfetto.proto).  Then: the first packet clears the
sequence's incremental state and holds the clock snapshot (for a mono-based
clock: the file header's realtime and monotonic start, within 10 minutes
of now), every later packet needs it; every
record of `bprint report -r` is a TYPE_INSTANT event, in order, with its
exact time (summing the deltas of the incremental clock), its thread's
track, its message as the "msg" annotation and its function as interned
name; every thread track names its thread as the report does, under the
process track; the "lost" annotations add up to the exporter's count; the
flood records' typed arguments are the numbers of their messages.  With
JSON (the Chrome export of the same trace), a deflated file is at least 5
times smaller.
"""
import codecs
import os
import re
import subprocess
import sys
import time
import zlib

from export_check import check_names, event_names, layouts, fail, finish, ok, report, unraw


def varint(d, i):
    v = shift = 0
    while True:
        b = d[i]
        i += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return v, i


compressed = 0


def packets(data):
    """The Trace's packets as bytes, compressed_packets (field 50) inflated."""
    global compressed
    out, i = [], 0
    while i < len(data):
        key, i = varint(data, i)
        n, i = varint(data, i)
        body = data[i:i + n]
        i += n
        if key != (1 << 3 | 2):
            raise ValueError("not a Trace packet: key %d" % key)
        k, j = varint(body, 0)
        if k == (50 << 3 | 2):
            m, j = varint(body, j)
            compressed += 1
            out.extend(packets(zlib.decompress(body[j:j + m])))
        else:
            out.append(body)
    return out


def frame(pkts):
    res = bytearray()
    for p in pkts:
        res.append(0x0A)
        n = len(p)
        while n >= 0x80:
            res.append(n & 0x7F | 0x80)
            n >>= 7
        res.append(n)
        res += p
    return bytes(res)


def parse_text(text):
    """protoc's text format to nested lists of (key, value) pairs."""
    root, stack = [], []
    cur = root
    for ln in text.split(b"\n"):
        ln = ln.strip()
        if not ln:
            continue
        if ln.endswith(b"{"):
            node = []
            cur.append((ln[:-1].strip().decode(), node))
            stack.append(cur)
            cur = node
        elif ln == b"}":
            cur = stack.pop()
        else:
            k, v = ln.split(b":", 1)
            v = v.strip()
            if v.startswith(b'"'):
                v = codecs.escape_decode(v[1:-1])[0]
            else:
                v = int(v) if re.match(rb"^-?\d+$", v) else v.decode()
            cur.append((k.decode(), v))
    return root


def get(node, key, default=None):
    for k, v in node:
        if k == key:
            return v
    return default


def getall(node, key):
    return [v for k, v in node if k == key]


def main():
    bprint, trace, path, summary, protodir = sys.argv[1:6]
    data = open(path, "rb").read()
    pkts = packets(data)
    p = subprocess.run(["protoc", "-I", protodir, "--decode=perfetto.protos.Trace", "perfetto.proto"],
                       input=frame(pkts), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode:
        fail("protoc --decode failed: %s" % p.stderr.decode(errors="replace"))
        return 1
    ok("protoc decodes %d packets (%d bytes)" % (len(pkts), len(data)))
    doc = [v for k, v in parse_text(p.stdout) if k == "packet"]
    first = doc[0]
    snap = get(first, "clock_snapshot")
    seq = get(first, "trusted_packet_sequence_id")
    if get(first, "sequence_flags") != 1 or snap is None or seq is None or seq < 0x10000:
        fail("the first packet does not start a sequence of its own (id %r, not 0, 1 or "
             "one the tracing service would assign) with a clock snapshot" % seq)
        return 1
    ok("sequence %d: not reserved, not the service's" % seq)
    clocks = {get(c, "clock_id"): c for c in getall(snap, "clocks")}
    clock = subprocess.run([bprint, "stats", trace], stdout=subprocess.PIPE).stdout
    head = open(trace, "rb").read(48)	# docs/file-format.md: realtime at 32, mono at 40
    start_rt, start_mono = int.from_bytes(head[32:40], "little"), int.from_bytes(head[40:48], "little")
    if 1 in clocks:
        rt = get(clocks[1], "timestamp")
        if (rt, get(clocks.get(3, []), "timestamp"), get(clocks[64], "timestamp")) != (start_rt, start_mono, start_mono):
            fail("clock snapshot %r is not the file's start (realtime %d, mono %d)" % (clocks, start_rt, start_mono))
        elif abs(rt / 1e9 - time.time()) > 600:
            fail("realtime %f is not within 10 minutes of now" % (rt / 1e9))
        else:
            ok("clock snapshot: the file's start, realtime %s" % time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(rt / 1e9)))
    elif b"mono" in clock or b"tsc" in clock:
        fail("no realtime clock in the snapshot of a mono-based trace")
    needs = [q for q in doc[1:] if get(q, "sequence_flags") != 2 or get(q, "trusted_packet_sequence_id") != seq]
    if needs:
        fail("%d packets without SEQ_NEEDS_INCREMENTAL_STATE on sequence %d" % (len(needs), seq))
    else:
        ok("every later packet needs the incremental state")
    names, annames, tracks, tids = {}, {}, {}, {}
    uuids, process = {}, None
    now = get(clocks[64], "timestamp")
    events = []
    lost = 0
    for q in doc[1:]:
        ts = get(q, "timestamp")
        if ts is not None:
            if get(q, "timestamp_clock_id") is None:
                now += ts
                ts = now
        idata = get(q, "interned_data")
        if idata:
            for n in getall(idata, "event_names"):
                names[get(n, "iid")] = get(n, "name").decode()
            for n in getall(idata, "debug_annotation_names"):
                annames[get(n, "iid")] = get(n, "name").decode()
        td = get(q, "track_descriptor")
        if td:
            th = get(td, "thread")
            uuids.setdefault(get(td, "uuid"), set()).add(get(th, "tid") if th else "process")
            if get(td, "process"):
                process = get(td, "uuid")
            if th:
                if get(td, "parent_uuid") != process:
                    fail("thread track %r without the process track as parent" % td)
                tracks[get(td, "uuid")] = get(th, "thread_name").decode("utf-8", "bytevalue")
                tids[get(td, "uuid")] = get(th, "tid")
        te = get(q, "track_event")
        if te:
            order = [annames.get(get(a, "name_iid")) for a in getall(te, "debug_annotations")]
            ann = {annames.get(get(a, "name_iid")): a for a in getall(te, "debug_annotations")}
            ann[None] = order
            name = names.get(get(te, "name_iid"))
            if get(te, "type") != 3:
                fail("event of type %r" % get(te, "type"))
            if "lost" in ann:
                lost += get(ann["lost"], "uint_value")
                continue
            events.append((ts, tids.get(get(te, "track_uuid")), get(ann["msg"], "string_value"), name, ann,
                           tracks.get(get(te, "track_uuid"))))
    shared = {u: owners for u, owners in uuids.items() if len(owners) > 1 or not u}
    if shared or len(uuids) < 3 or max(uuids) < 1 << 32:
        fail("track uuids not one a track, or not random 64-bit: %r" % (shared or sorted(uuids)))
    else:
        ok("%d tracks, each its own random 64-bit uuid" % len(uuids))
    raw = []
    for ln in report(bprint, "-r", trace):
        m = re.match(rb"^(\d+) (-?\d+) (-?\d+) (\d+) (.*)$", ln, re.S)
        raw.append((int(m.group(1)), int(m.group(2)), unraw(m.group(5)), int(m.group(4))))
    funcs, comms = [], []
    for ln in report(bprint, "-n", trace):
        m = re.match(rb"^ *(.*)-(\d+) +\[[^]]*\] +\d+\.\d+: (\S+): ", ln, re.S)
        funcs.append(m.group(3).decode())
        comms.append(m.group(1).decode("utf-8", "bytevalue"))
    if len(events) != len(raw):
        fail("%d events, %d records" % (len(events), len(raw)))
    else:
        ok("%d records, %d events" % (len(raw), len(events)))
    bad = 0
    fields, named, enames = layouts(bprint, trace), [], event_names(bprint, trace)
    for (ts, tid, msg, name, ann, comm), (ns, rtid, rmsg, site), func, rcomm in zip(events, raw, funcs, comms):
        func = enames.get(site, "unknown site")
        own = {"msg", "site"} | ({"cpu"} - set(fields.get(site, [])))
        keys = [k for k in ann[None] if k not in own]
        if keys:
            named.append((site, keys))
        if ts != ns or tid != rtid or msg != rmsg or name != func or comm != rcomm:
            bad += 1
            if bad <= 3:
                print("  differs: %r vs %r" % ((ts, tid, msg, name, comm), (ns, rtid, rmsg, func, rcomm)))
    if bad:
        fail("%d events differ from their records" % bad)
    else:
        ok("every record: time (exact), thread track and its name, message, event name")
    check_names("debug annotations", named, fields)
    flood = [e for e in events if re.match(rb"^flood \d+ of \d+$", e[2])]
    badargs = [e[2] for e in flood
               if [str(get(e[4].get("flood", []), "int_value")), str(get(e[4].get("of", []), "int_value"))]
               != e[2].decode().split()[1::2]]
    if not flood or badargs:
        fail("typed arguments of %d flood records differ: %r" % (len(badargs), badargs[:2]))
    else:
        ok("typed arguments of %d flood records" % len(flood))
    want = int(re.search(rb"(\d+) lost", open(summary, "rb").read()).group(1))
    if lost != want:
        fail("lost annotations add up to %d, the exporter says %d" % (lost, want))
    else:
        ok("lost: %d" % lost)
    if len(sys.argv) > 6 and not compressed:
        print("note: packets not deflated (bprint built without zlib): no size check")
    elif len(sys.argv) > 6:
        js = os.path.getsize(sys.argv[6])
        if len(data) * 5 > js:
            fail("%d bytes, the Chrome JSON %d: not 5 times smaller" % (len(data), js))
        else:
            ok("%d bytes, %.1f times smaller than the Chrome JSON (%d)" % (len(data), js / len(data), js))
    return finish()


if __name__ == "__main__":
    sys.exit(main())
