"""Lost records, counted exactly.

py_traced flood N writes N records from one thread into a 64 KiB buffer:
in overwrite mode (a flight recorder) the file keeps the newest and the
oldest are overwritten; in discard mode it keeps the oldest and the rest
are discarded.  Either way: the records read are bprint report's, the
records read + lost = N = written (Trace.info and Trace.threads, as
report's header and bprint stats count them), and the file is complete
(every record written is in it or counted).  A stream that bprint record
copied in discard mode with a buffer too small to keep up has gaps: the
events after one say how many records were lost just before them
(lost_before), at most the thread's discarded count in all.
"""
import bptest

bprint = bptest.need_module()

c = bptest.Checks()
bptest.workdir()
N = bptest.scale(300000)

for mode in ("overwrite", "discard"):
    path = "%s.bpt" % mode
    bptest.traced(path, "flood", N, BPRINT_BUFFER_SIZE="64K", BPRINT_MODE=mode)
    t = bprint.open(path)
    events = list(t)
    raw = bptest.raw_records(path)
    c.check(0 < len(events) < N // 10, "%s: the buffer kept part of the %d records (%d)"
            % (mode, N, len(events)))
    c.equal([(e.ts, e.tid, e.cpu, e.site, e.message) for e in events], raw,
            "%s: the records are bprint report's" % mode)
    lost_before = sum(e.lost_before for e in events)
    (th,) = t.threads
    c.equal((th.written, th.read), (N, len(events)), "%s: the thread wrote N, read all kept" % mode)
    c.equal(len(events) + th.overwritten + th.discarded, N, "%s: read + lost = written" % mode)
    c.equal((t.info.written, t.info.lost), (N, N - len(events)),
            "%s: info.written and info.lost" % mode)
    c.check(t.info.complete and t.info.lacking == 0, "%s: complete, lacking nothing" % mode)
    c.equal(len(t.to_numpy()["ts"]), len(events), "%s: to_numpy has the records read" % mode)
    first = int(events[0].message.split()[1])
    if mode == "overwrite":
        c.equal((first, th.overwritten), (N - len(events), N - len(events)),
                "overwrite: the newest kept, the oldest overwritten")
    else:
        c.equal((first, th.overwritten, th.discarded), (0, 0, N - len(events)),
                "discard: the oldest kept, the rest discarded")
    c.equal([int(e.message.split()[1]) for e in events], list(range(first, first + len(events))),
            "%s: the records kept follow each other" % mode)
    t.close()

rc, _, err = bptest.bprint_cmd("record", "-o", "gaps.bpt", "-M", "discard", "-b", "8K", "-p", "1K",
                               "--", bptest.TRACED, "flood", N)
c.equal(rc, 0, "bprint record --mode=discard: %s" % err.strip())
t = bprint.open("gaps.bpt")
events = list(t)
(th,) = t.threads
numbers = [int(e.message.split()[1]) for e in events]
c.equal(len(events) + th.discarded, N, "stream: read + discarded = written")
gaps = [(e.lost_before, n - p - 1) for e, n, p in zip(events[1:], numbers[1:], numbers) if n != p + 1]
c.check(len(gaps) > 0, "stream: the copy fell behind (%d gaps)" % len(gaps))
c.equal([lb for lb, _ in gaps], [g for _, g in gaps], "stream: lost_before is each gap's size")
c.equal(sum(e.lost_before for e in events), sum(g for _, g in gaps),
        "stream: lost_before only after gaps")
c.check(sum(g for _, g in gaps) <= th.discarded, "stream: the gaps are discarded records")
c.finish()
