"""The documentation: help(bprint), and the README's example.

help(bprint) shows the docstrings of the package, bprint.open(), Trace and
its methods, Event's attributes, Info's fields and bprint.Error.  The
README's Python example runs on a server recorded with `bprint record`
(with matplotlib's Agg backend), and its p99 per method is the one
computed here from the events' fields.
"""
import os
import pydoc
import re

import bptest

bprint = bptest.need_module()
import numpy  # noqa: E402

c = bptest.Checks()
src = bptest.SOURCE
bptest.workdir()

text = pydoc.render_doc(bprint, renderer=pydoc.plaintext)
for words in ("Read bprint trace files", "open(path, where=None, site=None)",
              "to_numpy(self, *, site=None, where=None, fields=None",
              "to_pandas(self, *", "events(*, site=None, where=None)", "class Event",
              "the values by field name", "formatted when first asked for", "lost_before",
              "class Info", "lacking", "class Error", "exit_status", "refresh()",
              "class Site", "class Thread", "masked", "surrogateescape"):
    c.check(words in text, "help(bprint) shows %r" % words)

readme = open(os.path.join(src, "README.md")).read()
section = readme[readme.index("\n## Python\n"):]
example = re.search(r"```python\n(.*?)```", section, re.S).group(1)
c.check(len(example.strip().splitlines()) <= 10, "the README's example is ten lines at most")
try:
    import matplotlib  # noqa: F401
    import pandas  # noqa: F401
except ImportError as e:
    print("(the README's example needs pandas and matplotlib: %s)" % e)
    c.finish()

os.environ["MPLBACKEND"] = "Agg"
rc, _, err = bptest.bprint_cmd("record", "-q", "-o", "server.bpt", "--", bptest.TRACED, "server",
                               bptest.scale(20000))
c.equal(rc, 0, "bprint record of the server: %s" % err)
scope = {}
exec(compile(example, "README.md", "exec"), scope)
c.check(os.path.getsize("dur_us.png") > 1000, "the example saved its histogram")

want = {}
with bprint.open("server.bpt") as t:
    req = [s.id for s in t.sites if (s.format or "").startswith("req ")]
    for ev in t.events(site=req[0]):
        want.setdefault(ev.fields["method"], []).append(ev.fields["dur_us"])
got = scope["p99"].to_dict()
c.equal(sorted(got), sorted(want), "a p99 per method")
for m, v in want.items():
    q = float(numpy.quantile(numpy.array(v, dtype=float), 0.99))
    c.check(abs(got.get(m, -1) - q) <= 1e-9 * q, "%s: p99 %r, computed here %r" % (m, got.get(m), q))
c.finish()
