"""site= and where= keep what the command's -s and --where keep.

site=: the records of each pattern (an id, file:, line:, func:, fmt:, a
bare function glob, a list) against `bprint report --raw -s`, from
iteration and from to_numpy(), and from bprint.open(site=) with a
per-call filter on top.  where=: against `bprint report --where` when the
command has it, and always against a reference evaluator written here from
bprint/query.h's rules over the events' typed fields (integers exactly,
floats as doubles, strings as bytes, '~' a glob, a site without the field
never matching).  Bad filters raise ValueError with the command's words.
"""
import fnmatch
import re

import bptest

bprint = bptest.need_module()

c = bptest.Checks()
bptest.workdir()
N = bptest.scale(20000)
bptest.traced("srv.bpt", "server", N)
t = bprint.open("srv.bpt")
everything = list(t)
sites = {s.id: s for s in t.sites}
req = next(s for s in t.sites if (s.format or "").startswith("req "))


def rows(events):
    return [(e.ts, e.tid, e.cpu, e.site, e.message) for e in events]


def column_rows(cols):
    return list(zip(cols["ts"].tolist(), cols["tid"].tolist(), cols["cpu"].tolist(),
                    cols["site"].tolist(), cols["message"].tolist()))


# ---- site= ----
PATTERNS = [str(req.id), req.id, "func:serve", "serve", "fmt:tick*", "file:*py_traced.c",
            "line:%s:%d" % (req.file, req.line), ["fmt:warning*", "fmt:server*"], "fmt:*%c*"]
for pat in PATTERNS:
    args = []
    for p in (pat if isinstance(pat, list) else [pat]):
        args += ["-s", str(p)]
    want = bptest.raw_records("srv.bpt", *args)
    if pat == "file:*py_traced.c":  # every site is in that file
        c.equal(len(want), len(everything), "site=%r keeps every record" % (pat,))
    else:
        c.check(0 < len(want) < len(everything), "site=%r keeps some records, not all" % (pat,))
    c.equal(rows(t.events(site=pat)), want, "events(site=%r) is report %s" % (pat, " ".join(args)))
    c.equal(column_rows(t.to_numpy(site=pat, message=True)), want,
            "to_numpy(site=%r) is report %s" % (pat, " ".join(args)))
    with bprint.open("srv.bpt", site=pat) as t2:
        c.equal(rows(t2), want, "open(site=%r) is report %s" % (pat, " ".join(args)))

# both filters hold: open()'s and the call's
with bprint.open("srv.bpt", site="func:serve") as t2:
    want = bptest.raw_records("srv.bpt", "-s", "fmt:tick*")
    c.equal(rows(t2.events(site="fmt:tick*")), want, "open(site=) and events(site=) both hold")
    c.equal(len(t2.to_numpy(site="fmt:server*")["ts"]), 0, "disjoint site filters keep nothing")

# ---- where= ----


def parse(expr):
    """FIELD OP VALUE terms (the tests' expressions: no ',' inside quotes)."""
    terms = []
    for term in expr.split(","):
        m = re.match(r"\s*([A-Za-z_]\w*)\s*(==|!=|<=|>=|<|>|~|=)\s*(.*?)\s*$", term)
        name, op, text = m.groups()
        quoted = text[:1] in "\"'" and text != ""
        if quoted:
            text = text[1:-1].replace('\\"', '"').replace("\\'", "'").replace("\\\\", "\\")
        terms.append((name, "==" if op == "=" else op, text, quoted))
    return terms


def number(text, quoted):
    if quoted:
        return None
    try:
        return int(text, 0) if re.fullmatch(r"[-+]?(0[xX][0-9a-fA-F]+|\d+)", text) else float(text)
    except ValueError:
        return None


def compare(a, op, b):
    return {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]


def reference(ev, terms):
    """query.h's rules, over the event's typed fields."""
    types = {f.name: f.type for f in sites[ev.site].fields} if ev.site in sites else {}
    for name, op, text, quoted in terms:
        if name not in ev.fields:
            return False
        v, ty = ev.fields[name], types[name]
        if ty in ("string", "char"):
            vb = v.encode("utf-8", "surrogateescape")
            tb = text.encode("utf-8", "surrogateescape")
            if op == "~":
                if not fnmatch.fnmatchcase(vb.decode("latin-1"), tb.decode("latin-1")):
                    return False
            elif not compare(vb, op, tb):
                return False
            continue
        n = number(text, quoted)
        if op == "~" or n is None:
            return False
        if isinstance(n, float) and not isinstance(v, float):
            v = float(v)  # an integer against a fraction: as floating point
        if not compare(v, op, n):
            return False
    return True


EXPRESSIONS = ["status==500", "status=404", "dur_us>=4000,status!=200", "method~P*",
               "path=='/a \"quoted\" path'", "path~/api/*,bytes<1000", "load>5.5",
               "tick<=100", "slow==G", "slow~[DP]", "dur_us<2.5", "took>-1", "bytes>=0x8000",
               "method>=PUT"]
rc, _, err = bptest.bprint_cmd("report", "--where", "status==500", "srv.bpt")
command_where = rc == 0
if not command_where:
    print("(bprint report has no --where here: where= is checked against the reference only)")
for expr in EXPRESSIONS:
    terms = parse(expr)
    want = [e for e in everything if reference(e, terms)]
    c.check(0 < len(want) < len(everything), "where=%r keeps some records, not all" % expr)
    got = list(t.events(where=expr))
    c.equal(rows(got), rows(want), "events(where=%r) is the reference's" % expr)
    c.equal(column_rows(t.to_numpy(where=expr, message=True)), rows(want),
            "to_numpy(where=%r) is the reference's" % expr)
    if command_where:
        c.equal(rows(got), bptest.raw_records("srv.bpt", "--where", expr),
                "events(where=%r) is report --where's" % expr)

# where= and site= together, from open() and from the call
with bprint.open("srv.bpt", where="status==500") as t2:
    got = rows(t2.events(site="fmt:req*", where="dur_us>2500"))
    want = rows(e for e in everything if (sites[e.site].format or "").startswith("req ")
                and reference(e, parse("status==500,dur_us>2500")))
    c.check(len(want) > 0, "the combined filters keep some records")
    c.equal(got, want, "open(where=) and events(site=, where=) all hold")

# where= a list: every expression holds (as --where given more than once),
# against the reference and against report --where A --where B
for exprs in (["dur_us>=4000", "status!=200"], ("method~P*", "bytes<1000"),
              ["path~/api/*", "bytes<1000"], ["status==500"]):
    want = [e for e in everything if all(reference(e, parse(x)) for x in exprs)]
    c.check(0 < len(want) < min(len([e for e in everything if reference(e, parse(x))]) for x in exprs)
            or len(exprs) == 1, "where=%r keeps fewer records than each alone" % (exprs,))
    c.equal(rows(t.events(where=exprs)), rows(want), "events(where=%r) is the reference's" % (exprs,))
    c.equal(column_rows(t.to_numpy(where=list(exprs), message=True)), rows(want),
            "to_numpy(where=%r) is the reference's" % (exprs,))
    if command_where:
        args = [a for x in exprs for a in ("--where", x)]
        c.equal(rows(t.events(where=exprs)), bptest.raw_records("srv.bpt", *args),
                "events(where=%r) is report %s" % (exprs, " ".join(args)))
with bprint.open("srv.bpt", where=["status==500", "dur_us>2500"]) as t2:
    c.equal(rows(t2), rows(e for e in everything if reference(e, parse("status==500,dur_us>2500"))),
            "open(where=[A, B]) keeps what both hold")
c.equal(len(list(t.events(where=[]))), len(everything), "where=[] keeps every record")

# ---- bad filters: ValueError with the command's words ----
BAD = [(dict(where="nosuch>1"), "no field 'nosuch'"),
       (dict(where="status>>1"), "status"),
       (dict(where="method<"), "expected a value"),
       (dict(where="method~'P*"), "quote is not closed"),
       (dict(where="load~1*"), "'~' compares strings"),
       (dict(where="status==abc"), "status is a number"),
       (dict(where=["status==500", "method~'P*"]), "quote is not closed"),
       (dict(where=["method~'P*", "x'"]), "quote is not closed"),
       (dict(site="func:nosuch"), "no such site"),
       (dict(site=[]), None)]
try:
    list(t.events(where=["status==500", 3]))
except TypeError as e:
    c.check("list of str" in str(e) or "str in the list" in str(e), "where=[str, int]: %s" % e)
else:
    c.check(False, "where=[str, int] is refused")
for kw, words in BAD:
    try:
        list(t.events(**kw))
    except ValueError as e:
        c.check(words and words in str(e), "%r: %s" % (kw, e))
    else:
        c.check(words is None, "%r is refused" % (kw,))
    if words:
        try:
            bprint.open("srv.bpt", **kw)
        except ValueError:
            c.check(True, "")
        else:
            c.check(False, "open(%r) is refused" % (kw,))
c.finish()
