"""A dlopen()ed library's call sites, after dlclose().

py_traced dlopen MODULE traces from MODULE's own sites, dlclose()s it and
traces again: the module's sites are in Trace.sites (its file, function,
format and fields), and its records decode (fields exact, messages as
bprint report's), from iteration and from to_numpy().
"""
import bptest

bprint = bptest.need_module()

c = bptest.Checks()
bptest.workdir()
bptest.traced("dl.bpt", "dlopen", bptest.DLMOD)
t = bprint.open("dl.bpt")
mod = [s for s in t.sites if s.file.endswith("py_dlmod.c")]
c.equal(sorted((s.func, s.format) for s in mod),
        [("py_dlmod_trace", "dl n=%d s=%s x=%f"), ("py_dlmod_trace", "dl puts")],
        "the module's two sites, with their function and format")
dl = next(s for s in mod if s.format.startswith("dl n="))
c.equal([(f.name, f.type) for f in dl.fields], [("n", "int32"), ("s", "string"), ("x", "double")],
        "the module's site's fields")
events = list(t)
c.equal([e.fields for e in events if e.site == dl.id],
        [{"n": i, "s": "from the module", "x": i / 4.0} for i in range(5)],
        "the module's records, exact")
rc, out, _ = bptest.report_messages("dl.bpt")
c.equal(bptest.joined(e.message for e in events), out, "the messages are bprint report's")
c.check(events[-1].message == "after dlclose 7", "the program traced after dlclose()")
cols = t.to_numpy(site=str(dl.id))
c.equal((cols["n"].tolist(), cols["s"].tolist(), cols["x"].tolist()),
        (list(range(5)), ["from the module"] * 5, [i / 4.0 for i in range(5)]),
        "to_numpy of the module's site")
c.finish()
