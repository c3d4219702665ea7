# Thin wrapper over CMake; see README.md.
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all build test demo deps bench figures clean sanitize fuzz

all: build

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

deps:
	bash scripts/install-deps.sh

test: deps build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# only what the demo runs: the CLI and the library (the plots load it); not the tests and benchmarks
demo: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target cosserat_cli
	bash scripts/demo.sh $(BUILD)

bench: build
	$(BUILD)/bench_static
	$(BUILD)/bench_ph
	$(BUILD)/bench_lgvi
	bash bench/wilberforce.sh $(BUILD)
	bash bench/tendon_cli.sh $(BUILD)

# Regenerates every example's figure in docs/figures (runs the full 20 s Wilberforce, ~1 min,
# the port-Hamiltonian and LGVI examples, ~2 min, the damped cantilever and the supports).
figures: deps build
	/usr/bin/python3 scripts/figures.py --build $(BUILD) --out docs/figures
	/usr/bin/python3 scripts/figures_ph.py --build $(BUILD) --out docs/figures
	/usr/bin/python3 scripts/figures_lgvi.py --build $(BUILD) --out docs/figures
	/usr/bin/python3 scripts/figures_damping.py --build $(BUILD) --out docs/figures
	/usr/bin/python3 scripts/figures_supports.py --build $(BUILD) --out docs/figures
	/usr/bin/python3 scripts/figures_supports_dynamic.py --build $(BUILD) --out docs/figures
	/usr/bin/python3 scripts/figures_assemblies.py --build $(BUILD) --out docs/figures
	/usr/bin/python3 scripts/figures_contact.py --build $(BUILD) --out docs/figures

sanitize:
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCOSSERAT_SANITIZE=ON
	cmake --build build-asan -j $(JOBS)
	# python and a plain cc build cannot load an ASan library
	cd build-asan && ctest --output-on-failure -j $(JOBS) -E "python|install"

# A bounded libFuzzer session (FUZZ_SECONDS, default 60) on the scenario loader and
# `check`, seeded with tests/fuzz-corpus/ (new inputs go to build-fuzz/corpus, not the
# repository). Needs clang and libclang-rt-dev; skipped with a message without them.
FUZZ_SECONDS ?= 60
fuzz:
	@if ! command -v clang > /dev/null; then echo "fuzz: clang not installed, skipped"; exit 0; fi; \
	set -e; \
	CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCOSSERAT_FUZZ=ON -DCOSSERAT_WERROR=OFF > build-fuzz.log 2>&1 && \
	cmake --build build-fuzz -j $(JOBS) --target fuzz_scenario >> build-fuzz.log 2>&1 || \
	  { if grep -qE '^[^ ]*/(src|tests|include)/[^ ]*: error:' build-fuzz.log; then \
	      grep -E ': error:' build-fuzz.log | head -5; echo "fuzz: the project's sources do not build with clang"; exit 1; fi; \
	    echo "fuzz: the fuzzer could not be built (libclang-rt-dev missing?), skipped; see build-fuzz.log"; exit 0; }; \
	mkdir -p build-fuzz/corpus; \
	build-fuzz/fuzz_scenario -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
	  -print_final_stats=1 build-fuzz/corpus tests/fuzz-corpus tests/fuzz-regress

clean:
	rm -rf $(BUILD) build-asan build-fuzz build-fuzz.log
