"""make install puts the package where its Python finds it.

`cmake --install` into a scratch prefix: the package (bprint/__init__.py
and the extension) lands in PREFIX/BPRINT_PYTHON_INSTALL_DIR, and imported
from there, outside the build tree, it reads a trace (the extension needs
no library of the build).  For the configured prefix, that directory is on
the Python's own sys.path: installed there, `import bprint` needs nothing.
"""
import os
import subprocess
import sys

import bptest

bptest.need_module()

c = bptest.Checks()
work = os.path.abspath(bptest.workdir())
build, prefix = os.environ["BPRINT_BUILD_DIR"], os.environ["BPRINT_INSTALL_PREFIX"]
rel = os.environ["BPRINT_PYTHON_INSTALL_DIR"]

subprocess.run(["cmake", "--install", build, "--prefix", os.path.join(work, "prefix")],
               stdout=subprocess.DEVNULL, env=bptest.child_env(), check=True)
pkg = os.path.join(work, "prefix", rel, "bprint")
c.check(os.path.exists(os.path.join(pkg, "__init__.py")), "installed: %s/__init__.py" % pkg)
c.check(any(f.startswith("_bprint.") and f.endswith(".so") for f in os.listdir(pkg)),
        "installed: the extension")

bptest.traced("t.bpt", "server", 100)
env = dict(os.environ, PYTHONPATH=os.path.dirname(pkg))
out = subprocess.run([sys.executable, "-c", "import bprint; t = bprint.open('t.bpt'); "
                      "print(bprint.__file__, len(t.to_numpy()['ts']), len(list(t)))"],
                     env=env, stdout=subprocess.PIPE, check=True).stdout.decode().split()
c.equal(out[0], os.path.join(pkg, "__init__.py"), "imported from the installed copy")
c.equal(out[1], out[2], "it reads the trace")
c.check(int(out[1]) > 100, "every record")

on_path = subprocess.run([sys.executable, "-c", "import sys; print(sys.argv[1] in sys.path)",
                          os.path.join(prefix, rel)], env=bptest.child_env(),
                         stdout=subprocess.PIPE, check=True).stdout
c.equal(on_path, b"True\n", "%s/%s is on %s's sys.path" % (prefix, rel, sys.executable))
c.finish()
