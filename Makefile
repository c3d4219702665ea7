# Thin wrapper over CMake; see README.md.
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all build test demo deps bench figures clean sanitize

all: build

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

deps:
	bash scripts/install-deps.sh

test: deps build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

demo: deps build
	bash scripts/demo.sh $(BUILD)

bench: build
	$(BUILD)/bench_static
	$(BUILD)/bench_ph
	$(BUILD)/bench_lgvi
	bash bench/wilberforce.sh $(BUILD)

# Regenerates every example's figure in docs/figures (runs the full 20 s Wilberforce, ~1 min,
# and the port-Hamiltonian and LGVI examples, ~2 min).
figures: deps build
	/usr/bin/python3 scripts/figures.py --build $(BUILD) --out docs/figures
	/usr/bin/python3 scripts/figures_ph.py --build $(BUILD) --out docs/figures
	/usr/bin/python3 scripts/figures_lgvi.py --build $(BUILD) --out docs/figures

sanitize:
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCOSSERAT_SANITIZE=ON
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ctest --output-on-failure -j $(JOBS) -E "python|install"  # python and a plain cc build cannot load an ASan library

clean:
	rm -rf $(BUILD) build-asan
