"""The module reads what the bprint command reads.

On a traced server's file (5 threads, several sites, strings with quotes):
the records (ns, tid, cpu, site, message) against `bprint report --raw`,
in the same order, from iteration and from to_numpy(); the counters of
report's header against Trace.info; each thread against `bprint stats`;
each site's fields against `bprint formats`; the dates of to_pandas(dates=
True) against `bprint report --raw --date=utc`, to the nanosecond.  The
same for the stream file `bprint record` writes of the same program.  A
wrapper's record (FILE and FILE.PID): FILE's Info.siblings are the files
report names beside it, and each opens as a trace of its own program.
"""
import datetime
import re

import bptest

bprint = bptest.need_module()
import numpy  # noqa: E402

c = bptest.Checks()
bptest.workdir()
N = bptest.scale(40000)


def stats_threads(path):
    rc, out, _ = bptest.bprint_cmd("stats", path)
    lines = out.decode().splitlines()
    rows = lines[lines.index("# threads") + 2:]
    return [(int(r.split()[0]), r.split()[1]) + tuple(int(x) for x in r.split()[2:6])
            for r in rows if r and not r.startswith("#")]


def formats_fields(path):
    rc, out, _ = bptest.bprint_cmd("formats", path)
    sites, cur = {}, None
    for line in out.decode("utf-8", "surrogateescape").splitlines():
        if line.startswith("\t"):
            name, ty = line[1:].split(" ")[:2]
            sites[cur].append((name, ty))
        else:
            cur = int(line.split(" : ")[0])
            sites[cur] = []
    return sites


def check_file(path, what):
    t = bprint.open(path)
    raw = bptest.raw_records(path)
    c.check(len(raw) > N, "%s: the file holds the server's records (%d)" % (what, len(raw)))
    events = [(e.ts, e.tid, e.cpu, e.site, e.message) for e in t]
    c.equal(len(events), len(raw), "%s: as many records as bprint report" % what)
    c.equal(events, raw, "%s: the records are bprint report's, in its order" % what)

    cols = t.to_numpy(message=True)
    rows = list(zip(cols["ts"].tolist(), cols["tid"].tolist(), cols["cpu"].tolist(),
                    cols["site"].tolist(), cols["message"].tolist()))
    c.equal(rows, raw, "%s: to_numpy's rows are bprint report's" % what)

    rc, out, _ = bptest.bprint_cmd("report", path)
    m = re.search(r"entries-written: (\d+)\s+lost: (\d+)", out.decode())
    c.equal((t.info.written, t.info.lost), (int(m.group(1)), int(m.group(2))),
            "%s: written and lost as report's header" % what)
    c.check(t.info.complete and t.info.state == "complete", "%s: complete" % what)

    c.equal([(h.tid, h.comm, h.written, h.overwritten, h.discarded, h.read) for h in t.threads],
            stats_threads(path), "%s: the threads are bprint stats'" % what)
    c.equal({s.id: [(f.name, f.type) for f in s.fields] for s in t.sites},
            formats_fields(path), "%s: the sites' fields are bprint formats'" % what)
    return t


t = None
bptest.traced("srv.bpt", "server", N)
t = check_file("srv.bpt", "live file")
c.equal((t.info.stream, t.info.closed, t.info.mode, t.info.clock), (False, True, "overwrite", "mono"),
        "the header: a closed live file, overwrite mode, mono clock")
c.equal(t.info.command.split()[1:], ["server", str(N)], "the command line")

# Dates: report --date=utc's, to the nanosecond.
try:
    import pandas  # noqa: F401
except ImportError:
    print("(pandas not installed: the dates are checked through to_numpy only)")
    pandas = None
rc, out, _ = bptest.bprint_cmd("report", "--raw", "--date=utc", "srv.bpt")
want = [line.split(" ", 1)[0] for line in out.decode().splitlines()]


def iso(ns):
    s, frac = divmod(int(ns), 10 ** 9)
    d = datetime.datetime.fromtimestamp(s, datetime.timezone.utc)
    return d.strftime("%Y-%m-%dT%H:%M:%S") + ".%09dZ" % frac


dates = t.to_numpy(dates=True)["date"]
c.equal(str(dates.dtype), "datetime64[ns]", "to_numpy's dates are datetime64[ns]")
c.equal([iso(d) for d in dates.astype("int64")], want, "to_numpy's dates are report --date's")
if pandas is not None:
    df = t.to_pandas(dates=True)
    c.equal(str(df["date"].dtype), "datetime64[ns, UTC]", "to_pandas' dates are UTC")
    c.equal([iso(d.value) for d in df["date"]], want, "to_pandas' dates are report --date's")
c.equal(t.info.start_date, iso(t.info.start_ns), "start_date is start_ns in UTC")

# The stream bprint record writes: the same program, read the same way.
rc, _, err = bptest.bprint_cmd("record", "-o", "rec.bpt", "--", bptest.TRACED, "server", N)
c.equal(rc, 0, "bprint record of the server: %s" % err.strip())
t = check_file("rec.bpt", "stream file")
c.equal((t.info.stream, t.info.mode), (True, "block"), "a stream, block mode")

# A wrapper's record: the first traced program in FILE, the others in FILE.PID.
script = "%s server 100; %s server 50; %s values" % ((bptest.TRACED,) * 3)
rc, _, err = bptest.bprint_cmd("record", "-q", "-o", "wr.bpt", "--", "sh", "-c", script)
c.equal(rc, 0, "bprint record of a wrapper: %s" % err.strip())
rc, _, err = bptest.bprint_cmd("report", "wr.bpt")
said = re.search(r"beside it, the traces? of \d+ other programs?: (.*)", err)
t = bprint.open("wr.bpt")
c.equal(list(t.info.siblings), sorted(said.group(1).split(", ")) if said else [],
        "info.siblings are the traces report names beside FILE")
c.equal(len(t.info.siblings), 2, "two other programs")
for path in ("wr.bpt",) + t.info.siblings:
    c.equal(bptest.joined(e.message for e in bprint.open(path)), bptest.report_messages(path)[1],
            "%s: the trace of one program, read as report reads it" % path)

# Large columns: 600,000 records (4.6 MiB a 64-bit column).  The whole pass
# starts at the file's count; a filtered pass grows from 4,096 rows.
BIG = bptest.scale(600000)
bptest.traced("big.bpt", "flood", BIG, BPRINT_BUFFER_SIZE="64M", BPRINT_MODE="discard")
t = bprint.open("big.bpt")
whole = t.to_numpy()
for what, cols in (("a whole pass", whole),
                   ("a filtered pass", t.to_numpy(site=int(whole["site"][0])))):
    fields = [k for k in cols if k not in ("ts", "tid", "cpu", "site")]
    c.equal(len(fields), 2, "%s: the flood's two fields" % what)
    c.equal(len(cols["ts"]), BIG, "%s: every record" % what)
    c.check(bool((cols[fields[0]] == numpy.arange(BIG)).all()),
            "%s: the first field is 0..%d, in order" % (what, BIG - 1))
    c.check(bool((cols[fields[1]] == BIG).all()), "%s: the second is %d" % (what, BIG))
    c.check(bool((numpy.diff(cols["ts"]) >= 0).all()), "%s: times in order" % what)
    c.equal(len(set(cols["tid"].tolist())), 1, "%s: one thread" % what)
c.finish()
