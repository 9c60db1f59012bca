"""What the exporters' and analysis' checkers share: ok/fail lines and their
count, a bprint command run with its exit status checked, and
`bprint report` run as a list of byte lines (its lines that say where
records were lost left out: the exports show losses their own way), with
--raw's escapes of the message undone by unraw().  Bytes that are not UTF-8
decode as the code point of their value ("bytevalue"), as the exporters
write them."""
import codecs
import collections
import re
import subprocess

codecs.register_error("bytevalue", lambda e: (e.object[e.start:e.start + 1].decode("latin-1"), e.start + 1))
fails = 0


def fail(msg):
    global fails
    fails += 1
    print("FAIL:", msg)


def ok(msg):
    print("ok:", msg)


def run(bprint, *args, rc=0):
    """bprint ARGS, its exit status checked (rc None: any)."""
    p = subprocess.run([bprint] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if rc is not None and p.returncode != rc:
        fail("bprint %s: exit %d, want %d: %s" % (" ".join(args), p.returncode, rc, p.stderr[:300]))
    return p


def report(bprint, *args):
    p = subprocess.run([bprint, "report"] + list(args), stdout=subprocess.PIPE)
    if p.returncode:
        fail("bprint report %s exited %d" % (" ".join(args), p.returncode))
    out = p.stdout.split(b"\n")
    out = out[:-1] if out and out[-1] == b"" else out
    return [ln for ln in out if not LOSS.search(ln)]


# report's line where records were lost: "... 0 [12 records lost...]" (raw),
# "...: [12 records lost...]" (ftrace), "[12 records lost...]" (msg-only)
LOSS = re.compile(rb"^(\d+ -?\d+ -?\d+ 0 |.*: |)\[\d+ records? lost[^]]*\]$")


def unraw(msg):
    """A --raw message as the record holds it: \\n, \\r and \\\\ undone."""
    return re.sub(rb"\\([nr\\])", lambda m: {b"n": b"\n", b"r": b"\r", b"\\": b"\\"}[m.group(1)], msg)


def layouts(bprint, trace):
    """Site id -> the names of its fields, in order, as `bprint formats`
    lists them (a tab, then NAME TYPE CONVERSION after the site's line):
    the names the exports must give its arguments (docs/fields.md)."""
    p = subprocess.run([bprint, "formats", trace], stdout=subprocess.PIPE)
    if p.returncode:
        fail("bprint formats exited %d" % p.returncode)
    out, site = {}, None
    for ln in p.stdout.split(b"\n"):
        if ln.startswith(b"\t") and site is not None:
            out[site].append(ln[1:].split(b" ")[0].decode())
        elif ln[:1].isdigit():
            site = int(ln.split(b" ")[0])
            out[site] = []
    return out


def event_names(bprint, trace):
    """Site id -> the event name every export gives its records
    (docs/exporters.md, "Names"): the function; FUNC:LINE when sites share
    it; FUNC:LINE#ID when that is taken too (a call site with a runtime
    format and its derived sites share a line).  Sites in id order, as the
    exporters take them; only sites with a function are named here."""
    p = subprocess.run([bprint, "formats", trace], stdout=subprocess.PIPE)
    sites = []
    for line in p.stdout.split(b"\n"):
        m = re.match(rb'(\d+) : (?:".*"|\(formatted at trace time\)) (\S+):(\d+) (.+)$', line)
        if m:
            sites.append((int(m.group(1)), int(m.group(3)), m.group(4).decode()))
    count = collections.Counter(func for _, _, func in sites)
    out, taken = {}, set()
    for sid, line, func in sites:
        name = func if count[func] == 1 else "%s:%d" % (func, line)
        if name in taken:
            name = "%s:%d#%d" % (func, line, sid)
        taken.add(name)
        out[sid] = name
    return out


def check_names(what, records, want):
    """records: (site id, [argument names]) of every record with typed
    arguments; each must have exactly its site's fields (want), in order."""
    bad = [(s, got, want.get(s)) for s, got in records if got != want.get(s)]
    if bad or len(records) < 100:
        fail("%s: %d of %d records name their arguments otherwise than bprint formats: %r"
             % (what, len(bad), len(records), bad[:3]))
    else:
        ok("%s: %d records name their arguments as bprint formats names the fields"
           % (what, len(records)))


def finish():
    """The exit status: 1 after any failure."""
    if fails:
        print("%d failure(s)" % fails)
        return 1
    print("all passed")
    return 0
