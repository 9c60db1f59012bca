"""Typed values exact, through every way the module gives them.

py_traced values traces the extremes of each type (INT64_MIN, UINT64_MAX,
integers of every length reduced as printf reduces them, doubles bit for
bit: a NaN's payload, -0.0, the smallest subnormal, DBL_MAX; strings with
quotes, newlines, UTF-8 and bytes that are not UTF-8; %c of every kind of
byte; pointers).  The values it traced are listed here, and each must come
back exactly from Event.fields, from to_numpy() (with its dtype) and from
to_pandas(); the messages must be bprint report's, newlines and all, from
events kept after the reading moved on.
"""
import math
import struct
import sys

import bptest

bprint = bptest.need_module()
import numpy  # noqa: E402

c = bptest.Checks()
bptest.workdir()
bptest.traced("v.bpt", "values")

INT64_MIN, UINT64_MAX = -2 ** 63, 2 ** 64 - 1


def bits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def double(u):
    return struct.unpack("<d", struct.pack("<Q", u))[0]


DBL_TRUE_MIN = double(1)
DBL_MAX = double(0x7FEFFFFFFFFFFFFF)
NAN_PAYLOAD = double(0x7FF8000000000123)

# format -> the fields it traced, in order: (name, type as bprint formats
# names it, value)
WANT = {
    "min=%lld max=%llu": [("min", "int64", INT64_MIN), ("max", "uint64", UINT64_MAX)],
    "i8=%hhd u8=%hhu i16=%hd u16=%hu wrap=%hhd": [
        ("i8", "int8", -128), ("u8", "uint8", 255), ("i16", "int16", -32768),
        ("u16", "uint16", 65535), ("wrap", "int8", 44)],
    "int=%d uint=%u hex=%x oct=%o": [
        ("int", "int32", -2 ** 31), ("uint", "uint32", 2 ** 32 - 1),
        ("hex", "uint32", 0xDEADBEEF), ("oct", "uint32", 0o777)],
    "long=%ld size=%zu ptrdiff=%td intmax=%jd": [
        ("long", "int64", INT64_MIN), ("size", "uint64", UINT64_MAX),
        ("ptrdiff", "int64", -1), ("intmax", "int64", 2 ** 63 - 1)],
    "d=%f e=%e g=%g a=%a": [("d", "double", 0.1), ("e", "double", -0.0),
                            ("g", "double", DBL_TRUE_MIN), ("a", "double", DBL_MAX)],
    "nan=%f inf=%f ld=%Lf": [("nan", "double", NAN_PAYLOAD), ("inf", "double", -math.inf),
                             ("ld", "double", 1 / 3)],
    "s=%s utf=%s empty=%s": [("s", "string", 'he said "hi"\n\tand \\left'),
                             ("utf", "string", "caf\u00e9 \u20ac \U0001F600"),
                             ("empty", "string", "")],
    "raw=%s": [("raw", "string", b"not utf-8: \xff\xfe end".decode("utf-8", "surrogateescape"))],
    "c=%c nul=%c hi=%c nl=%c quote=%c": [
        ("c", "char", "A"), ("nul", "char", "\0"), ("hi", "char", "\udcff"),
        ("nl", "char", "\n"), ("quote", "char", '"')],
    "p=%p null=%p": [("p", "pointer", 0x7F00DEADBEEF), ("null", "pointer", 0)],
    "w=%*d": [("w_width", "int32", -12), ("w", "int32", 34)],
    "ts=%d tid=%d msg=%s": [("ts", "int32", 1), ("tid", "int32", 2),
                            ("msg", "string", "field names like the columns")],
    "mixed=%d": [("mixed", "int32", -5)],
    "mixed=%s": [("mixed", "string", "five")],
    "a trace_puts text": [],
    "dyn=%d of 7": [("dyn", "int32", 5)],
}


def same(got, want):
    """Equal, floats bit for bit, and of the same Python type."""
    if isinstance(want, float):
        return isinstance(got, float) and bits(got) == bits(want)
    return type(got) is type(want) and got == want


t = bprint.open("v.bpt")
sites = {s.id: s for s in t.sites}
events = list(t)  # kept: fields and messages are asked for after the reading moved on
c.equal(len(events), len(WANT), "one record per traced call")
seen = set()
for ev in events:
    site = sites.get(ev.site)
    fmt = site.format if site else None
    if not c.check(fmt in WANT, "site %d's format %r is one traced" % (ev.site, fmt)):
        continue
    seen.add(fmt)
    want = WANT[fmt]
    c.equal([(f.name, f.type) for f in site.fields], [(n, ty) for n, ty, _ in want],
            "%r: the site's fields and types" % fmt)
    c.equal(list(ev.fields), [n for n, _, _ in want], "%r: the event's field names" % fmt)
    for name, _, value in want:
        got = ev.fields.get(name)
        c.check(same(got, value), "%r: %s = %r, want %r" % (fmt, name, got, value))
c.equal(seen, set(WANT), "every traced format read")
c.equal(sites and next(s for s in t.sites if s.format == "a trace_puts text").fields, (),
        "a trace_puts() site has no fields")

# The messages, kept after the loop, against bprint report -m (bytes for bytes).
rc, out, err = bptest.report_messages("v.bpt")
c.equal(rc, 0, "bprint report exits 0")
c.equal(bptest.joined(ev.message for ev in events), out, "the messages are bprint report's")
c.check("\n" in events[[i for i, e in enumerate(events)
                        if (sites[e.site].format or "").startswith("s=")][0]].message,
        "a message holds its newline")

# Columns: each site's own, exact, with the dtype of the field's type.
DTYPE = {"int8": "int64", "int16": "int64", "int32": "int64", "int64": "int64",
         "uint8": "uint64", "uint16": "uint64", "uint32": "uint64", "uint64": "uint64",
         "double": "float64", "pointer": "uint64", "string": "object", "char": "object"}
COLUMN = {"ts": "ts_", "tid": "tid_"}  # fields named like the record columns
tables = t.to_numpy(by_site=True, message=True)
for sid, cols in tables.items():
    fmt = sites[sid].format
    want = WANT[fmt]
    c.equal(list(cols), ["ts", "tid", "cpu", "site", "message"] +
            [COLUMN.get(n, n) for n, _, _ in want], "%r: the columns" % fmt)
    c.equal(str(cols["ts"].dtype), "int64", "ts is int64")
    c.equal(cols["message"][0], next(e.message for e in events if e.site == sid),
            "%r: the message column" % fmt)
    for name, ty, value in want:
        col = cols[COLUMN.get(name, name)]
        c.equal(str(col.dtype), DTYPE[ty], "%r: %s's dtype" % (fmt, name))
        got = col[0].item() if col.dtype != object else col[0]
        c.check(same(got, value), "%r: column %s = %r, want %r" % (fmt, name, got, value))

# One table: the union of the fields, masked where a site lacks one.
cols = t.to_numpy()
c.equal(len(cols["ts"]), len(events), "to_numpy: one row a record")
row = [i for i, e in enumerate(events) if sites[e.site].format == "min=%lld max=%llu"][0]
c.check(numpy.ma.isMaskedArray(cols["min"]), "a field most sites lack is masked")
c.equal(int(cols["min"].data[row]), INT64_MIN, "INT64_MIN in the union's int64 column")
c.equal(int(cols["max"].data[row]), UINT64_MAX, "UINT64_MAX in the union's uint64 column")
c.equal(int(numpy.ma.count_masked(cols["min"])), len(events) - 1, "masked where it is lacking")
c.equal(list(cols["ts"]), [e.ts for e in events], "ts: the events'")
c.equal(list(cols["tid"]), [e.tid for e in events], "tid: the events'")
c.equal(list(cols["site"]), [e.site for e in events], "site: the events'")
mixed = [(i, e.fields["mixed"]) for i, e in enumerate(events) if "mixed" in e.fields]
c.equal(str(cols["mixed"].dtype), "object", "a name with an int and a string: objects")
c.equal([(i, cols["mixed"].data[i]) for i, _ in mixed], [(i, v) for i, v in mixed],
        "each row of the merged column its own value and type")
c.equal(int(numpy.ma.count_masked(cols["mixed"])), len(events) - 2, "masked elsewhere")

# The same through pandas: integers stay exact where missing (nullable).
try:
    import pandas  # noqa: F401
except ImportError:
    print("(pandas not installed: its checks are skipped)")
else:
    df = t.to_pandas()
    c.equal(str(df["min"].dtype), "Int64", "a lacking int64 field is pandas' nullable Int64")
    c.equal(int(df["min"][row]), INT64_MIN, "INT64_MIN through pandas")
    c.equal(int(df["max"][row]), UINT64_MAX, "UINT64_MAX through pandas")
    g = df["g"].dropna()
    c.check(len(g) == 1 and bits(float(g.iloc[0])) == bits(DBL_TRUE_MIN),
            "the smallest subnormal through pandas")
    c.check(df["s"].isna().sum() == len(events) - 1, "a lacking string is None")
t.close()
c.finish()
