"""A live file of a running program.

py_traced live N traces N records, says "ready", and traces N more for
each line it reads.  While it waits: the module reads the N records bprint
report reads from the same live file, the file is not closed and complete
(its note the command's words); an iterator that reached the end goes on
after refresh() with what the program traced since; a new pass reads all;
after the program exits, the file is closed.
"""
import subprocess

import bptest

bprint = bptest.need_module()

c = bptest.Checks()
bptest.workdir()
N = bptest.scale(5000)

prog = subprocess.Popen([bptest.TRACED, "live", str(N)], stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE,
                        env=bptest.child_env(BPRINT_FILE="live.bpt", BPRINT_CLOCK="mono"))


def ready():
    c.equal(prog.stdout.readline(), b"ready\n", "the program traced its round")


def more():
    prog.stdin.write(b"more\n")
    prog.stdin.flush()
    ready()


try:
    ready()
    t = bprint.open("live.bpt")
    c.equal((t.info.closed, t.info.complete, t.info.pid), (False, True, prog.pid),
            "a live file: not closed, complete, the program's pid")
    c.check(len(t.info.why) == 1 and t.info.why[0].startswith("not closed cleanly (the process is "
                                                              "still running"),
            "the note says it is not closed: %r" % (t.info.why,))
    it = iter(t)
    first = [(e.ts, e.tid, e.cpu, e.site, e.message) for e in it]
    c.equal(first, bptest.raw_records("live.bpt"), "round 0: the records bprint report reads")
    c.equal(len(first), N, "round 0: N records")

    more()
    c.equal(list(it), [], "an iterator at its end stays there")
    it.refresh()
    second = [e.fields for e in it]
    c.equal(second, [{"round": 1, "i": i} for i in range(N)], "after refresh(): round 1, in order")
    more()
    it.refresh()
    c.equal(len(list(it)), N, "after another refresh(): round 2")

    c.equal(len(t.to_numpy()["ts"]), 3 * N, "a new pass reads every round")
    c.equal([e.fields["round"] for e in t].count(2), N, "iterating again reads every round")
    c.equal(t.threads[0].read, 3 * N, "the counters of the last pass")
finally:
    prog.stdin.close()
    prog.wait()
c.equal(prog.returncode, 0, "the program exits 0")
with bprint.open("live.bpt") as t:
    c.equal((t.info.closed, t.info.complete, t.info.why), (True, True, ()),
            "after the exit: closed cleanly, complete")
    c.equal(len(t.to_numpy()["ts"]), 3 * N, "every record")
c.finish()
