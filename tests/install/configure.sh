#!/bin/sh
# Configure's probes say what they chose, in one status line each, and
# nothing that reads as an error; a Python module that could not be built
# is built once its Python has what it needs:
#  - libdw hidden from pkg-config: no "Package 'libdw' ... not found", one
#    line "libdw not found, optional";
#  - a Python without numpy (a wrapper whose numpy fails to import): "not
#    built ... the build asks again"; numpy back, the recheck says so and
#    the next build configures again and has the module's target, and the
#    status line names the Python.
#   sh configure.sh SOURCE_DIR WORKDIR PYTHON
set -u
SRC=$1 WORK=$2 PY=$3
rm -rf "$WORK" && mkdir -p "$WORK/nonumpy" || exit 1
WORK=$(cd "$WORK" && pwd)
"$PY" -c 'import numpy, sysconfig, os; assert os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h"))' \
	2>/dev/null || { echo "SKIP: $PY lacks numpy or Python.h"; exit 77; }
echo 'raise ImportError("No module named numpy (hidden by the test)")' > "$WORK/nonumpy/numpy.py"
cat > "$WORK/python" <<EOF2
#!/bin/sh
[ -e "$WORK/numpy-back" ] || export PYTHONPATH="$WORK/nonumpy"
exec "$PY" "\$@"
EOF2
chmod +x "$WORK/python"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

PKG_CONFIG_LIBDIR="$WORK/none" cmake -S "$SRC" -B "$WORK/b" -DBPRINT_TESTS=OFF -DBPRINT_BENCH=OFF \
	-DBPRINT_PYTHON="$WORK/python" > out.txt 2>&1 || { cat out.txt; echo "FAIL: configure"; exit 1; }
grep -qi "Package 'libdw'" out.txt && fail "pkg-config's 'not found' shown: $(grep -i libdw out.txt)"
[ "$(grep -c 'libdw not found, optional' out.txt)" = 1 ] || fail "no one line for libdw: $(grep -i libdw out.txt)"
grep -q "Python module not built ($WORK/python: .*numpy.*the build asks again" out.txt ||
	fail "no line for the Python module: $(grep -i python out.txt)"
[ $fails -eq 0 ] && echo "ok: configure: one quiet line for libdw, one for the module without numpy"

sh "$WORK/b/python-recheck.sh" > re1.txt
[ -s re1.txt ] && fail "recheck without numpy: $(cat re1.txt)"
touch "$WORK/numpy-back"
sh "$WORK/b/python-recheck.sh" > re2.txt
grep -q "has what the Python module needs now" re2.txt || fail "recheck with numpy: '$(cat re2.txt)'"
# the next build configures again (its target then is gone: ignore that)
cmake --build "$WORK/b" --target bprint_python_recheck > build.txt 2>&1
grep -q "Python module for $WORK/python (Python [0-9.]*, numpy [0-9]" build.txt ||
	fail "the build did not configure again for the module: $(grep -i python build.txt | head -3)"
grep -q "bprint_python" "$WORK/b/CMakeFiles/Makefile2" 2>/dev/null &&
	[ ! -e "$WORK/b/python-recheck.sh" ] || fail "no module target after the build configured again"
[ $fails -eq 0 ] && echo "ok: numpy back: the build configured again, the module has its target"
[ $fails -eq 0 ]
