"""What the Python module's tests share (tests/python/test_*.py).

Each test is run by CTest as `python3 test_X.py WORKDIR`, with in its
environment BPRINT_CMD (the bprint command), PY_TRACED (the traced
program), PY_DLMOD (its module), BPRINT_SOURCE_DIR, PYTHONPATH (the
package in the build tree) and, in an ASan build, the sanitizer's runtime
preloaded for this process only (the programs it runs have their own).
"""
import os
import shutil
import re
import subprocess
import sys

SKIP = 77

BPRINT = os.environ.get("BPRINT_CMD", "bprint")
TRACED = os.environ.get("PY_TRACED", "")
DLMOD = os.environ.get("PY_DLMOD", "")
SOURCE = os.environ.get("BPRINT_SOURCE_DIR", "")
QUICK = bool(os.environ.get("BPRINT_TEST_QUICK"))


def skip(why):
    print("SKIP:", why)
    sys.exit(SKIP)


def need_module():
    """The bprint module, or exit 77 saying why it cannot be tested."""
    if os.environ.get("BPRINT_PY_SKIP"):
        skip(os.environ["BPRINT_PY_SKIP"])
    try:
        import numpy  # noqa: F401
    except ImportError as e:
        skip("python3-numpy is not installed (%s)" % e)
    try:
        import bprint
    except ImportError as e:
        skip("the bprint module does not import (%s)" % e)
    return bprint


def scale(n):
    """Counts: 10x fewer under sanitizers (BPRINT_TEST_QUICK), as check.h."""
    return max(1, n // 10) if QUICK else n


def child_env(**extra):
    """The environment of the programs a test runs: without this process's
    preloaded sanitizer runtime, and without the tracer's settings."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("LD_PRELOAD", "PYTHONMALLOC") and not k.startswith("BPRINT_")}
    env.update({k: str(v) for k, v in extra.items()})
    return env


def workdir():
    work = sys.argv[1] if len(sys.argv) > 1 else "python_test.d"
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    os.chdir(work)
    return work


def traced(path, *args, **env):
    """Run py_traced ARGS with BPRINT_FILE=path (and env); its stdout."""
    env.setdefault("BPRINT_CLOCK", "mono")
    r = subprocess.run([TRACED] + [str(a) for a in args], env=child_env(BPRINT_FILE=path, **env),
                       stdout=subprocess.PIPE, check=True)
    return r.stdout


def bprint_cmd(*args):
    """Run the bprint command: (exit status, stdout bytes, stderr text)."""
    r = subprocess.run([BPRINT] + [str(a) for a in args], env=child_env(),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return r.returncode, r.stdout, r.stderr.decode("utf-8", "surrogateescape")


# report's line where records were lost (-m: the words alone; --raw: site 0)
LOSS_MSG = re.compile(r"^\[\d+ records? lost[^\]\n]*\]\n", re.M)


def report_messages(path, *args):
    """bprint report -m's output, as the module's messages joined (the
    lines that say where records were lost left out: they are no record)."""
    rc, out, err = bprint_cmd("report", "-m", *args, path)
    return rc, LOSS_MSG.sub("", out.decode("utf-8", "surrogateescape")), err


def unraw(msg):
    """A --raw message as the record holds it: \\n, \\r and \\\\ undone."""
    return re.sub(r"\\([nr\\])", lambda m: {"n": "\n", "r": "\r", "\\": "\\"}[m.group(1)], msg)


def raw_records(path, *args):
    """bprint report --raw: a list of (ns, tid, cpu, site, message); the
    messages must not hold newlines."""
    rc, out, err = bprint_cmd("report", "--raw", *args, path)
    if rc not in (0, 4):
        raise RuntimeError("bprint report --raw %s: exit %d: %s" % (path, rc, err))
    recs = []
    for line in out.decode("utf-8", "surrogateescape").splitlines():
        parts = line.split(" ", 4)
        ns, tid, cpu, site, msg = parts + [""] * (5 - len(parts))
        if site == "0" and re.match(r"\[\d+ records? lost", msg):
            continue
        recs.append((int(ns), int(tid), int(cpu), int(site), unraw(msg)))
    return recs


def joined(messages):
    return "".join(m + "\n" for m in messages)


class Checks:
    """Count failures, print each, and exit with the verdict."""

    def __init__(self):
        self.fails = 0
        self.oks = 0

    def check(self, cond, what):
        if cond:
            self.oks += 1
        else:
            self.fails += 1
            print("FAIL:", what)
        return cond

    def equal(self, got, want, what):
        if got == want:
            self.oks += 1
            return True
        self.fails += 1
        g, w = repr(got), repr(want)
        print("FAIL: %s\n  got:  %s\n  want: %s" % (what, g[:400], w[:400]))
        return False

    def finish(self):
        if self.fails:
            print("%d failure(s), %d checks passed" % (self.fails, self.oks))
            sys.exit(1)
        print("all %d checks passed" % self.oks)
        sys.exit(0)
