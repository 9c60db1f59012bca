#!/usr/bin/env python3
"""hist and latency on a trace with blocks that do not match their format.

The analysis binding decodes each block it is given and takes over the
reader's check of it (bp_trace_defer_checks): every block is still checked
once, whether the command chooses its site or not.  Here three records of
"cmd %s ..." lose their string's NUL; the reference is report --json of the
same file (a damaged block has no fields there).  Checked: hist's groups
(count, sum, min, max) equal the reference's, with and without -k; the
problem is said, and the exit status is report's, by hist of the damaged
site, by hist -s of another site and by latency, which never decode it.

  check_damage.py BPRINT TRACED WORKDIR
"""
import json
import os
import subprocess
import sys

BPRINT, TRACED, WORK = sys.argv[1:4]
failed = False


def fail(msg):
    global failed
    failed = True
    print("FAIL: " + msg)


def run(*args):
    return subprocess.run([BPRINT] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE)


os.makedirs(WORK, exist_ok=True)
os.chdir(WORK)
env = dict(os.environ, BPRINT_FILE="a.dat")
if subprocess.run([TRACED, "600"], env=env).returncode:
    print("FAIL: the traced program")
    sys.exit(1)
data = bytearray(open("a.dat", "rb").read())
at, seen = 0, 0
while seen < 13:	# "GET\0": a cmd record's string; the NUL of the 11th to 13th made an X
    at = data.find(b"GET\x00", at)
    if at < 0:
        break
    seen += 1
    if seen > 10:	# not the first records: read after the binding took the checks over
        data[at + 3] = ord("X")
    at += 4
open("d.dat", "wb").write(data)

rep = run("report", "--json", "d.dat")
recs = [json.loads(ln) for ln in rep.stdout.decode("utf-8", "replace").splitlines()]
bad = [r for r in recs if r["message"].startswith("cmd GETX")]
good = [r["fields"] for r in recs if "dur_us" in r["fields"] and "cmd" in r["fields"]]
said = b"does not match its format" in rep.stderr
if len(bad) != 3 or any(r["fields"] for r in bad) or not said or rep.returncode == 0:
    fail("report: %d damaged records (want 3, without fields), problem said %r, exit %d" %
         (len(bad), said, rep.returncode))


def groups_of(values_by_key):
    return {k: (len(v), sum(v), min(v), max(v)) for k, v in values_by_key.items()}


def check(what, args, ref):
    p = run(*args)
    if p.returncode != rep.returncode or b"does not match its format" not in p.stderr:
        fail("%s: exit %d (report's %d), problem said %r" %
             (what, p.returncode, rep.returncode, b"does not match its format" in p.stderr))
    if ref is None:
        return
    doc = json.loads(p.stdout)
    got = {tuple(sorted(g["key"].items())): (g["count"], g["sum"], g["min"], g["max"])
           for g in doc["groups"]}
    if got != ref:
        fail("%s: groups %r, want %r" % (what, got, ref))
    else:
        print("ok: %s (%d groups, %d records)" % (what, len(got), sum(v[0] for v in got.values())))


by_cmd = {}
for f in good:
    by_cmd.setdefault((("cmd", f["cmd"]),), []).append(f["dur_us"])
check("hist -v dur_us -k cmd", ["hist", "-v", "dur_us", "-k", "cmd", "--json", "d.dat"],
      groups_of(by_cmd))
check("hist -v dur_us", ["hist", "-v", "dur_us", "--json", "d.dat"],
      groups_of({(): [f["dur_us"] for f in good]}))
check("hist -v argc -w 'argc > 0'", ["hist", "-v", "argc", "-w", "argc > 0", "--json", "d.dat"],
      groups_of({(): [f["argc"] for f in good if f["argc"] > 0]}))
ends = [r["fields"]["status"] for r in recs if r["message"].startswith("end req")]
check("hist -s 'fmt:end*' -v status (the damaged site not chosen)",
      ["hist", "-s", "fmt:end*", "-v", "status", "--json", "d.dat"], groups_of({(): ends}))
check("latency -k req", ["latency", "--from", "fmt:begin*", "--to", "fmt:end*", "-k", "req",
                         "d.dat"], None)
print("FAIL" if failed else "ok: every damaged block said, every whole one counted")
sys.exit(1 if failed else 0)
