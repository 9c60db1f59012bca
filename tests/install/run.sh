#!/usr/bin/env bash
# Install the build into a scratch prefix, then build examples/installed
# against it twice, through CMake's find_package and through pkg-config,
# and run its programs: hello traces and prints its trace (the runtime),
# messages reads a trace file that hello left (the reading library).  Usage: run.sh BUILD_DIR SOURCE_DIR C_COMPILER
set -euo pipefail
build=$1 src=$2 cc=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --install "$build" --prefix "$work/prefix" >/dev/null
lib=$(ls -d "$work"/prefix/lib*/ | head -n 1)

# The internal header goes with the public ones (call sites compile it),
# and the shared library carries the soname of this ABI.
[ -f "$work/prefix/include/bprint/internal.h" ] || { echo "bprint/internal.h not installed"; exit 1; }
soname=$(readelf -d "$lib/libbprint.so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = "libbprint.so.1" ] || { echo "soname is '$soname', not libbprint.so.1"; exit 1; }
soname=$(readelf -d "$lib/libbprint-reader.so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = "libbprint-reader.so.2" ] ||
	{ echo "soname is '$soname', not libbprint-reader.so.2"; exit 1; }

# the bash completion, where bash-completion looks for it
[ -f "$work/prefix/share/bash-completion/completions/bprint" ] || { echo "bash completion not installed"; exit 1; }

# CMake package
cmake -S "$src/examples/installed" -B "$work/cm" -DCMAKE_C_COMPILER="$cc" \
  -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/cm" >/dev/null
out=$(LD_LIBRARY_PATH="$lib" "$work/cm/hello")
expected=$'hello 1 of 3 (argc 1)\nhello 2 of 3 (argc 1)\nhello 3 of 3 (argc 1)\ngoodbye'
[ "$out" = "$expected" ] || { echo "find_package build printed:"; echo "$out"; exit 1; }
BPRINT_FILE="$work/hello.dat" LD_LIBRARY_PATH="$lib" "$work/cm/hello" >/dev/null
out=$(LD_LIBRARY_PATH="$lib" "$work/cm/messages" "$work/hello.dat")
[ "$out" = "$expected" ] ||
	{ echo "find_package reader printed:"; echo "$out"; exit 1; }

# pkg-config
export PKG_CONFIG_PATH="$lib/pkgconfig"
"$cc" -o "$work/pc" "$src/examples/installed/hello.c" $(pkg-config --cflags --libs bprint)
out=$(LD_LIBRARY_PATH="$lib" "$work/pc")
[ "$out" = "$expected" ] || { echo "pkg-config build printed:"; echo "$out"; exit 1; }
"$cc" -o "$work/pcm" "$src/examples/installed/messages.c" $(pkg-config --cflags --libs bprint-reader)
out=$(LD_LIBRARY_PATH="$lib" "$work/pcm" "$work/hello.dat")
[ "$out" = "$expected" ] || { echo "pkg-config reader printed:"; echo "$out"; exit 1; }
# a Makefile project as README shows it: make's built-in rule puts LDLIBS
# after the objects, so the libraries link with --as-needed too (in
# LDFLAGS, before the objects, they would be dropped)
mkdir -p "$work/mk" && cp "$src/examples/installed/hello.c" "$work/mk/"
printf '%s\n' 'CFLAGS += $(shell pkg-config --cflags bprint)' \
	'LDLIBS += $(shell pkg-config --libs bprint)' 'LDFLAGS += -Wl,--as-needed' \
	'hello: hello.o' > "$work/mk/Makefile"
make -s -C "$work/mk" CC="$cc" >/dev/null || { echo "the Makefile project failed to build"; exit 1; }
out=$(LD_LIBRARY_PATH="$lib" "$work/mk/hello")
[ "$out" = "$expected" ] || { echo "Makefile build printed:"; echo "$out"; exit 1; }
# a prefix outside the linker's path: the rpath the .pc file gives finds it
# without LD_LIBRARY_PATH
"$cc" -o "$work/pcr" "$src/examples/installed/hello.c" $(pkg-config --cflags --libs bprint) \
	$(pkg-config --variable=rpath bprint)
out=$(env -u LD_LIBRARY_PATH "$work/pcr")
[ "$out" = "$expected" ] || { echo "pkg-config build with its rpath printed:"; echo "$out"; exit 1; }

# the static CMake targets: no shared library needed at run time
cat > "$work/static.cmake.txt" <<EOF2
cmake_minimum_required(VERSION 3.16)
project(st C)
find_package(bprint REQUIRED)
add_executable(hello_static $src/examples/installed/hello.c)
target_link_libraries(hello_static PRIVATE bprint::bprint_static)
EOF2
mkdir -p "$work/st" && cp "$work/static.cmake.txt" "$work/st/CMakeLists.txt"
cmake -S "$work/st" -B "$work/stb" -DCMAKE_C_COMPILER="$cc" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/stb" >/dev/null
if readelf -d "$work/stb/hello_static" | grep -q 'libbprint\.so'; then
	echo "bprint::bprint_static linked the shared library"; exit 1
fi
out=$(env -u LD_LIBRARY_PATH "$work/stb/hello_static")
[ "$out" = "$expected" ] || { echo "static build printed:"; echo "$out"; exit 1; }

# the static reading library with a program whose own globals share names
# with our internals: only bp_/bprint_ names leave the library, so it links
# and calls its own
cat > "$work/clash.c" <<'EOF2'
int ring_next(void) { return 7; }
int pb_uint(void) { return 8; }
int tables_free(void) { return 9; }
EOF2
cat > "$work/st/CMakeLists.txt" <<EOF2
cmake_minimum_required(VERSION 3.16)
project(st C)
find_package(bprint REQUIRED)
add_executable(messages_static $src/examples/installed/messages.c $work/clash.c)
target_link_libraries(messages_static PRIVATE bprint::reader_static)
EOF2
rm -rf "$work/stb"
cmake -S "$work/st" -B "$work/stb" -DCMAKE_C_COMPILER="$cc" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/stb" >/dev/null ||
	{ echo "a program with its own ring_next() did not link with bprint::reader_static"; exit 1; }
out=$(env -u LD_LIBRARY_PATH "$work/stb/messages_static" "$work/hello.dat")
[ "$out" = "$expected" ] || { echo "static reader printed:"; echo "$out"; exit 1; }

echo "installed package: find_package (shared and static, the static reader beside a program's own ring_next()), pkg-config and Makefile (LDLIBS, --as-needed) builds (with LD_LIBRARY_PATH or the rpath) of the runtime and the reading library work"
