# Convenience front end to the CMake build.  The README's two commands:
#   make demo    build, then run the example that traces and prints a trace
#   make check   build, then run every test
# Other targets: all, install (PREFIX=/usr/local DESTDIR=), bench,
# bench-hotpath (BENCH_ARGS="calls-per-run runs"), bench-peers, asan, tsan,
# fuzz, clean.
BUILD     ?= build
PREFIX    ?= /usr/local
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS ?=

.PHONY: all demo check install bench bench-hotpath bench-peers asan tsan fuzz clean

# python-recheck.sh is there when the Python module could not be built:
# asked again first, so that a numpy installed since configures and builds
# the module in this same run (the build configures again).
all: $(BUILD)/CMakeCache.txt
	@if [ -f $(BUILD)/python-recheck.sh ]; then sh $(BUILD)/python-recheck.sh; fi
	cmake --build $(BUILD) -j $(JOBS)

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_ARGS)

# the demo needs its own program only: no test or benchmark is built first
demo: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target demo
	$(BUILD)/examples/demo

check: all
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

install: all
	cmake --install $(BUILD) --prefix $(PREFIX)

bench: all
	@for b in $(BUILD)/bench/bench-*; do echo "== $$b"; $$b || exit 1; done

bench-hotpath: all
	$(BUILD)/bench/bench-hotpath $(BENCH_ARGS)

bench-peers: all
	bash bench/peers/run.sh $(BUILD)

# Sanitizer builds live in their own build trees.
# Sanitizer builds use clang and their own build trees; BPRINT_TEST_QUICK
# tells the long tests to cut their iteration counts.
asan:
	BPRINT_TEST_QUICK=1 $(MAKE) check BUILD=build-asan \
	  CMAKE_ARGS="-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DBPRINT_SANITIZE=address,undefined -DCMAKE_BUILD_TYPE=Debug"

tsan:
	BPRINT_TEST_QUICK=1 $(MAKE) check BUILD=build-tsan \
	  CMAKE_ARGS="-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DBPRINT_SANITIZE=thread -DCMAKE_BUILD_TYPE=RelWithDebInfo"

fuzz:
	$(MAKE) all BUILD=build-fuzz CMAKE_ARGS="-DCMAKE_C_COMPILER=clang -DBPRINT_FUZZ=ON -DBPRINT_TESTS=OFF -DBPRINT_BENCH=OFF"

clean:
	rm -rf build build-asan build-tsan build-fuzz
