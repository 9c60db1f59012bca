"""to_pandas(): the columns of to_numpy() as a DataFrame.

On a traced server: one frame of every record with the union of the
sites' fields (a float lacking is NaN, a string None, an integer <NA> in
pandas' nullable dtypes, the present values exact), the values equal to
the events' fields; by_site frames with each site's own fields and
dtypes; message and date columns; and pandas is imported by to_pandas()
only (import bprint, iteration and to_numpy() leave it alone).
"""
import subprocess
import sys

import bptest

bprint = bptest.need_module()
try:
    import pandas
except ImportError:
    bptest.skip("python3-pandas is not installed")

c = bptest.Checks()
bptest.workdir()
bptest.traced("srv.bpt", "server", bptest.scale(8000))
t = bprint.open("srv.bpt")
events = list(t)
sites = {s.id: s for s in t.sites}

df = t.to_pandas(message=True)
c.equal(len(df), len(events), "one row a record")
c.equal(list(df.columns[:5]), ["ts", "tid", "cpu", "site", "message"], "the record columns first")
c.equal([str(df[k].dtype) for k in ("ts", "tid", "cpu", "site")],
        ["int64", "int32", "int32", "uint32"], "the record columns' dtypes")
c.equal({k: str(df[k].dtype) for k in ("method", "dur_us", "status", "load", "slow", "took")},
        {"method": "object", "dur_us": "UInt64", "status": "Int64", "load": "float64",
         "slow": "object", "took": "Int64"}, "lacking values: nullable integers, NaN, None")
c.equal(df["message"].tolist(), [e.message for e in events], "the messages")
for name in ("method", "dur_us", "status", "load", "slow", "bytes"):
    want = [e.fields.get(name) for e in events]
    got = [None if pandas.isna(v) else (v.item() if hasattr(v, "item") else v) for v in df[name]]
    c.equal(got, want, "%s: the events' values, missing where their site lacks it" % name)

frames = t.to_pandas(by_site=True, dates=True)
c.equal(sorted(frames), sorted({e.site for e in events}), "by_site: a frame per site read")
for sid, frame in frames.items():
    own = [f.name for f in sites[sid].fields]
    c.equal(list(frame.columns), ["ts", "date", "tid", "cpu", "site"] + own,
            "by_site %d: its own fields" % sid)
    c.equal(len(frame), sum(e.site == sid for e in events), "by_site %d: its records" % sid)
    c.check(not any(frame[k].isna().any() for k in own), "by_site %d: nothing missing" % sid)
    c.equal(str(frame["date"].dtype), "datetime64[ns, UTC]", "by_site %d: the dates" % sid)

sub = t.to_pandas(where="status==500", fields=["method", "arg1", "took"])
c.equal(list(sub.columns), ["ts", "tid", "cpu", "site", "method", "arg1", "took"],
        "fields=: the record columns and those asked for")
c.equal(len(sub), sum(e.fields.get("status") == 500 for e in events), "where= keeps the 500s")

# pandas only for to_pandas()
code = ("import sys, bprint; t = bprint.open('srv.bpt'); list(t); t.to_numpy(message=True); "
        "t.to_numpy(by_site=True); print('pandas' in sys.modules)")
out = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, check=True).stdout
c.equal(out, b"False\n", "import bprint, iteration and to_numpy() do not import pandas")
c.finish()
