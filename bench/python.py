"""bench-python: how fast the Python module turns a trace into columns.

    bench-python [RECORDS] [RUNS]

1. python-traced writes RECORDS records (default 4,000,000) of one call
   site into a trace file, twice: a site of scalars only ("req key=%d
   dur_us=%llu status=%d") and a site with one string ("req method=%s ...").
2. RUNS times (default 3), alternating: `bprint report FILE > /dev/null`
   (the child's CPU time), Trace.to_numpy() of the scalar file and
   Trace.to_pandas() of the string file (this process's CPU time, which a
   busy machine disturbs less than wall time).  Printed: the medians in
   records/s, and each against bprint report of the same file
   (targets: to_numpy >= 10 M records/s and >= 1x report, to_pandas >= 5 M
   records/s); then each one's median user and system time apart (the
   system time is mostly the page faults of fresh columns).
3. Memory, in a fresh process each: the peak resident size that to_numpy()
   and to_pandas() add, against the size of the columns they return
   (target: at most 2x).

BENCH_PYTHON_DIR says where the files go (default /tmp); they are removed
at the end.  Run by build/bench/bench-python, which sets the module's path.
"""
import os
import resource
import subprocess
import sys

import bprint

BPRINT, TRACED = os.environ["BPRINT_CMD"], os.environ["PY_TRACED"]


def trace(path, kind, n):
    env = {k: v for k, v in os.environ.items() if not k.startswith("BPRINT_")}
    # one ring that holds every record (48 bytes a record is plenty)
    env.update(BPRINT_FILE=path, BPRINT_CLOCK="mono", BPRINT_MODE="discard",
               BPRINT_BUFFER_SIZE="%dM" % (n * 48 // (1 << 20) + 16))
    subprocess.run([TRACED, kind, str(n)], env=env, check=True)


def cpu_apart(who, before):
    """User and system seconds of who since the rusage before."""
    after = resource.getrusage(who)
    return after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime


def report_cpu(path, n):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(os.devnull, "w") as null:
        subprocess.run([BPRINT, "report", path], stdout=null, check=True)
    return cpu_apart(resource.RUSAGE_CHILDREN, before)


def call_cpu(fn, n):
    before = resource.getrusage(resource.RUSAGE_SELF)
    out = fn()
    spent = cpu_apart(resource.RUSAGE_SELF, before)
    rows = len(out["ts"]) if isinstance(out, dict) else len(out)
    if rows != n:
        sys.exit("bench-python: %d rows, %d records traced" % (rows, n))
    del out
    return spent


def median(v):
    v = sorted(v)
    return v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2


# The peak is the process's VmHWM: ru_maxrss would count this (forking)
# process's size too, which Linux carries over exec().
MEMORY = """
import sys, bprint, numpy
t = bprint.open(sys.argv[1])
if sys.argv[2] == "to_pandas":
    import pandas
def status(key):
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) * 1024 for l in f if l.startswith(key + ":"))
base = status("VmRSS")
out = getattr(t, sys.argv[2])()
peak = status("VmHWM")
if sys.argv[2] == "to_pandas":
    size = int(out.memory_usage(index=False, deep=False).sum())
else:
    size = sum(a.nbytes for a in out.values())
print(peak - base, size)
"""


def memory(path, call):
    out = subprocess.run([sys.executable, "-c", MEMORY, path, call], stdout=subprocess.PIPE,
                         check=True).stdout.split()
    return int(out[0]), int(out[1])


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 4000000
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    d = os.environ.get("BENCH_PYTHON_DIR", "/tmp")
    scalar = os.path.join(d, "bench-python-scalar.%d.bpt" % os.getpid())
    string = os.path.join(d, "bench-python-string.%d.bpt" % os.getpid())
    try:
        trace(scalar, "scalar", n)
        trace(string, "string", n)
        ts, tp = bprint.open(scalar), bprint.open(string)
        names = ("report scalar", "to_numpy", "report string", "to_pandas")
        cpu = {k: [] for k in names}
        for _ in range(runs):
            cpu["report scalar"].append(report_cpu(scalar, n))
            cpu["to_numpy"].append(call_cpu(ts.to_numpy, n))
            cpu["report string"].append(report_cpu(string, n))
            cpu["to_pandas"].append(call_cpu(tp.to_pandas, n))
        m = {k: n / median([u + s for u, s in v]) for k, v in cpu.items()}
        print("to_numpy, scalar site:    %6.2f M records/s (target >= 10), %5.2fx bprint report's "
              "%.2f M/s" % (m["to_numpy"] / 1e6, m["to_numpy"] / m["report scalar"],
                            m["report scalar"] / 1e6))
        print("to_pandas, one string:    %6.2f M records/s (target >= 5),  %5.2fx bprint report's "
              "%.2f M/s" % (m["to_pandas"] / 1e6, m["to_pandas"] / m["report string"],
                            m["report string"] / 1e6))
        for k in names:
            print("  %-14s user %.3f s, system %.3f s (medians)"
                  % (k + ":", median([u for u, _ in cpu[k]]), median([s for _, s in cpu[k]])))
        for path, call in ((scalar, "to_numpy"), (string, "to_pandas")):
            added, size = memory(path, call)
            print("%-9s peak memory added: %6.1f MiB for %6.1f MiB of columns: %.2fx (target <= 2x)"
                  % (call, added / 2 ** 20, size / 2 ** 20, added / size))
        print("[%d records, medians of %d runs, CPU time]" % (n, runs))
    finally:
        for p in (scalar, string):
            if os.path.exists(p):
                os.unlink(p)


main()
