"""What the exporters' checkers share: ok/fail lines and their count, and
`bprint report` run as a list of byte lines.  Bytes that are not UTF-8
decode as the code point of their value ("bytevalue"), as the exporters
write them."""
import codecs
import subprocess

codecs.register_error("bytevalue", lambda e: (e.object[e.start:e.start + 1].decode("latin-1"), e.start + 1))
fails = 0


def fail(msg):
    global fails
    fails += 1
    print("FAIL:", msg)


def ok(msg):
    print("ok:", msg)


def report(bprint, *args):
    p = subprocess.run([bprint, "report"] + list(args), stdout=subprocess.PIPE)
    if p.returncode:
        fail("bprint report %s exited %d" % (" ".join(args), p.returncode))
    out = p.stdout.split(b"\n")
    return out[:-1] if out and out[-1] == b"" else out


def finish():
    """The exit status: 1 after any failure."""
    if fails:
        print("%d failure(s)" % fails)
        return 1
    print("all passed")
    return 0
