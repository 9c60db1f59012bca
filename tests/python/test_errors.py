"""Bad input: bprint.Error with the command's words, or what a file lacks.

A missing, foreign, truncated or empty file, or a directory: bprint.open()
raises bprint.Error (an OSError), str(e) is what `bprint report` prints
after "bprint: ", e.exit_status its exit status.  A damaged file (a byte
of a ring flipped until report calls it damaged): it opens, reading gives
what report printed and then raises bprint.Error with report's line, the
columns read in e.partial.  An incomplete file (bprint record killed while
it copied): it opens and reads without an error, and Trace.info says what
it lacks in report's words.
"""
import errno
import os
import re
import signal
import subprocess
import time

import bptest

bprint = bptest.need_module()

c = bptest.Checks()
bptest.workdir()


def command_says(path):
    """report's exit status and its lines on stderr without 'bprint: ', but
    the one that points to a killed recorder's live file (bprint recover):
    a word about another file, not about what this one lacks."""
    rc, out, err = bptest.report_messages(path)
    return rc, out, \
        [line[len("bprint: "):] for line in err.splitlines()
         if line.startswith("bprint: ") and "recover" not in line]


def without_path(lines, path):
    return [ln[len(path) + 2:] if ln.startswith(path + ": ") else ln for ln in lines]


# ---- files that do not open ----
bptest.traced("good.bpt", "server", 400)
good = open("good.bpt", "rb").read()
with open("foreign.txt", "w") as f:
    f.write("hello, not a trace\n")
with open("short.bpt", "wb") as f:
    f.write(good[:10])
open("empty.bpt", "wb").close()
os.mkdir("dir.bpt")
for path in ("missing.bpt", "foreign.txt", "short.bpt", "empty.bpt", "dir.bpt"):
    rc, _, lines = command_says(path)
    try:
        bprint.open(path)
    except bprint.Error as e:
        c.check(isinstance(e, OSError), "%s: bprint.Error is an OSError" % path)
        c.equal([str(e)], lines, "%s: the command's words" % path)
        c.equal((e.exit_status, e.filename), (rc, path), "%s: the command's exit status" % path)
        if path == "missing.bpt":
            c.equal(e.errno, errno.ENOENT, "a missing file's errno")
    else:
        c.check(False, "%s: bprint.open() raises" % path)

# ---- a damaged file: a byte flipped in a page that holds records ----
bptest.traced("server.bpt", "server", bptest.scale(20000))
data = open("server.bpt", "rb").read()
damaged = None
for off in range(4096 + 16, len(data), 4096):
    if not any(data[off - 16:off + 48]):
        continue
    d = bytearray(data)
    d[off] ^= 0x5A
    with open("damaged.bpt", "wb") as f:
        f.write(d)
    rc, out, lines = command_says("damaged.bpt")
    if rc == 2:
        damaged = (out, lines)
        break
if c.check(damaged is not None, "a flipped byte that report calls damage"):
    out, lines = damaged
    t = bprint.open("damaged.bpt")
    messages = []
    try:
        for ev in t:
            messages.append(ev.message)
    except bprint.Error as e:
        c.equal([str(e)], [ln for ln in lines if "damaged" in ln], "iteration: report's damage line")
        c.equal(e.exit_status, 2, "damage: exit status 2")
    else:
        c.check(False, "iteration over a damaged file raises at its end")
    c.equal(bptest.joined(messages), out, "damage: the records report printed, first")
    c.equal(t.info.state, "damaged", "info.state says damaged")
    c.equal([w for w in t.info.why if "damaged" in w],
            without_path([ln for ln in lines if "damaged" in ln], "damaged.bpt"),
            "info.why has report's line")
    try:
        t.to_numpy(message=True)
    except bprint.Error as e:
        c.equal(list(e.partial["message"]), messages, "to_numpy: the columns read, in e.partial")
    else:
        c.check(False, "to_numpy of a damaged file raises")

# ---- a damaged file whose sites are in the damaged part: a filter that
# names them is not the caller's mistake (bprint.Error, not ValueError) ----
sites_off = None
for off in range(4096, len(good) - 8, 4096):
    if good[off:off + 4] == b"BPCK" and good[off + 4] == 1:
        sites_off = off
        break
if c.check(sites_off is not None, "good.bpt has a sites chunk"):
    d = bytearray(good)
    d[sites_off:sites_off + 4] = b"XXXX"
    with open("nosites.bpt", "wb") as f:
        f.write(d)
    for kw in ({"site": "fmt:*"}, {"where": "nosuchfield > 1"}):
        try:
            bprint.open("nosites.bpt", **kw)
        except bprint.Error as e:
            c.equal(e.exit_status, 2, "damaged sites, %s: exit status 2" % kw)
            c.check("damaged" in str(e), "damaged sites, %s: says damaged" % kw)
        except ValueError as e:
            c.check(False, "damaged sites, %s: ValueError %s" % (kw, e))
        else:
            c.check(False, "damaged sites, %s: bprint.open() raises" % kw)
    try:
        bprint.open("nosites.bpt").to_numpy(fields=["nosuchfield"])
    except bprint.Error as e:
        c.equal(e.exit_status, 2, "damaged sites, fields: exit status 2")
    except ValueError as e:
        c.check(False, "damaged sites, fields: ValueError %s" % e)
    else:
        c.check(False, "damaged sites, fields: to_numpy raises")

# ---- an incomplete file: bprint record killed while the program runs ----
rec = subprocess.Popen([bptest.BPRINT, "record", "-o", "inc.bpt", "--", bptest.TRACED, "live",
                        str(bptest.scale(50000))], stdin=subprocess.PIPE,
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=bptest.child_env())
c.equal(rec.stdout.readline(), b"ready\n", "the recorded program traced")
# the recorder makes its stream once it finds the program's live file: a
# loaded machine may not have got there yet when the program says ready
for _ in range(1000):
    if os.path.exists("inc.bpt") and os.path.getsize("inc.bpt") >= 4096:
        break
    time.sleep(0.01)
rec.send_signal(signal.SIGKILL)
rec.wait()
rc, out, lines = command_says("inc.bpt")
c.equal(rc, 4, "report: exit 4 for an incomplete file")
t = bprint.open("inc.bpt")
messages = [ev.message for ev in t]  # no error: what it holds is read
c.equal(bptest.joined(messages), out, "incomplete: the records report reads")
c.equal((t.info.complete, t.info.state, t.info.closed), (False, "incomplete", False),
        "incomplete: info says so")
c.equal(list(t.info.why), without_path(lines, "inc.bpt"), "incomplete: info.why is report's words")
m = re.search(r"; (\d+) records? written (is|are) not in the file", t.info.why[0])
c.equal(t.info.lacking, int(m.group(1)) if m else None, "incomplete: lacking is the count said")
c.equal(len(t.to_numpy()["ts"]), len(messages), "incomplete: to_numpy reads it too")

# ---- a closed trace ----
t = bprint.open("good.bpt")
t.close()
for what, call in (("info", lambda: t.info), ("iteration", lambda: list(t)),
                   ("to_numpy", lambda: t.to_numpy())):
    try:
        call()
    except ValueError:
        c.check(True, "")
    else:
        c.check(False, "%s of a closed trace raises ValueError" % what)
with bprint.open("good.bpt") as t:
    events = list(t)
c.check(len(events) > 400 and events[0].message, "events outlive their closed trace")
c.finish()
