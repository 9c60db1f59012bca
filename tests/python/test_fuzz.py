"""The reader's fuzz corpus through the module: never a crash.

Every file of fuzz/corpus/fuzz_tracefile/ and, for each, mutants made here
with a fixed seed (cut at eighths of its length, bytes flipped, runs of
bytes overwritten): each is opened and read every way the module reads (info,
sites, threads, every event's fields and message, to_numpy with messages,
by site and with a where= filter, to_pandas), catching only bprint.Error
and ValueError.  A crash of the interpreter fails the test (under ASan, any
bad access too).  And each reads as `bprint report -m` reads it: the same
messages, and when report says why it stops, the same words.
"""
import os
import random

import bptest

bprint = bptest.need_module()
try:
    import pandas  # noqa: F401
except ImportError:
    pandas = None

c = bptest.Checks()
corpus = os.path.join(bptest.SOURCE, "fuzz", "corpus", "fuzz_tracefile")
bptest.workdir()
seeds = sorted(os.listdir(corpus))
c.check(len(seeds) > 0, "the corpus has files")
rng = random.Random(20261204)
MUTANTS = bptest.scale(60)


def mutants(data):
    yield "as is", data
    for k in range(1, 8):
        yield "cut at %d/8" % k, data[:len(data) * k // 8]
    for i in range(MUTANTS):
        d = bytearray(data)
        if not d:
            break
        if i % 3 == 2:
            at = rng.randrange(len(d))
            d[at:at + 8] = bytes(rng.randrange(256) for _ in range(8))[:len(d) - at]
        else:
            for _ in range(1 + i % 4):
                d[rng.randrange(len(d))] ^= 1 << rng.randrange(8)
        yield "mutant %d" % i, bytes(d)


def read_all(t):
    """Every way to read; the messages of the events, and the error at the end."""
    _ = (t.info, t.sites, repr(t))
    messages, error = [], None
    try:
        for ev in t:
            _ = (ev.ts, ev.tid, ev.cpu, ev.site, ev.comm, ev.fields, ev.lost_before, repr(ev))
            messages.append(ev.message)
    except bprint.Error as e:
        error = str(e)
    for call in (lambda: t.threads, lambda: t.to_numpy(message=True),
                 lambda: t.to_numpy(by_site=True, message=True),
                 lambda: t.to_pandas(by_site=True) if pandas else None,
                 lambda: t.to_pandas(message=True) if pandas else None):
        try:
            call()
        except bprint.Error:
            pass
    names = [f.name for s in t.sites for f in s.fields]
    for name in names[:3]:
        for expr in ("%s>0" % name, "%s~a*" % name):
            try:
                list(t.events(where=expr))
                t.to_numpy(where=expr)
            except (bprint.Error, ValueError):
                pass
    _ = t.info
    return messages, error


n = 0
for seed in seeds:
    data = open(os.path.join(corpus, seed), "rb").read()
    for what, d in mutants(data):
        n += 1
        with open("input.bpt", "wb") as f:
            f.write(d)
        rc, out, err = bptest.report_messages("input.bpt")
        said = [ln[len("bprint: "):] for ln in err.splitlines() if ln.startswith("bprint: ")]
        try:
            t = bprint.open("input.bpt")
        except bprint.Error as e:
            c.equal([str(e)], said, "%s, %s: does not open, in the command's words" % (seed, what))
            continue
        messages, error = read_all(t)
        c.equal(bptest.joined(messages), out, "%s, %s: the messages are report's" % (seed, what))
        if error is not None:
            c.check(error in said, "%s, %s: %r is one of the command's lines %r"
                    % (seed, what, error, said))
        else:
            c.check(rc != 2 or not any(": damaged" in ln for ln in said),
                    "%s, %s: damage raised as report says it: %r" % (seed, what, said))
        t.close()
print("%d files read" % n)
c.finish()
