# `make run` and `make test` are all a fresh clone needs (Python 3.11+).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUNTIME := $(VENV)/.runtime-installed
DEV := $(VENV)/.dev-installed

# The JAX build this host needs: tools/jax_accelerator.py says cpu, cuda12, cuda13 or tpu (and on stderr, why),
# once per make run; `make run JAX_ACCELERATOR=cuda12` overrides it. lint, docs and clean need no JAX and skip it.
ifneq ($(filter-out lint docs clean,$(or $(MAKECMDGOALS),run)),)
ACCELERATOR := $(shell JAX_ACCELERATOR='$(JAX_ACCELERATOR)' $(PYTHON) tools/jax_accelerator.py)
ifeq ($(filter cpu cuda12 cuda13 tpu,$(ACCELERATOR)),)
$(error tools/jax_accelerator.py chose no JAX build: see its message above)
endif
endif
JAX_STAMP := $(VENV)/.jax-$(ACCELERATOR)
JAX_REQUIREMENTS := $(if $(filter cpu,$(ACCELERATOR)),requirements.txt,requirements-$(ACCELERATOR).txt)
# What each variant adds to CPU JAX (its CUDA libraries, nvidia-*, come and stay with the plugin; unused without it).
JAX_PLUGINS_cuda12 := jax-cuda12-plugin jax-cuda12-pjrt
JAX_PLUGINS_cuda13 := jax-cuda13-plugin jax-cuda13-pjrt
JAX_PLUGINS_tpu := libtpu
JAX_PLUGINS := $(JAX_PLUGINS_cuda12) $(JAX_PLUGINS_cuda13) $(JAX_PLUGINS_tpu)

# One pip at a time in the venv.
.NOTPARALLEL:
.PHONY: run test test-quick test-under-load lint docs screenshots bench data clean

run: $(RUNTIME) $(JAX_STAMP)
	$(BIN)/python app.py

# Every test in one run, in TEST_PROCESSES parallel processes (pytest-xdist; a module's tests and its servers stay
# in one process, per variant; the browser tests in two lanes): unit tests and doctests, the end-to-end suite in
# both sandbox modes (full, and the local process mode of macOS and Windows), the hostile suites as root and with
# the server dropped to an unprivileged uid without capabilities (as a Space runs it), and the browser tests.
# Four processes overlap the tests' waits on servers; six made the run slower here (more CPU lost to contention).
TEST_PROCESSES ?= 4
# Each run ends with its ten slowest tests (README's table of them comes from there).
PYTEST_PARALLEL := -n $(TEST_PROCESSES) --dist loadgroup --durations=10
test: $(DEV) $(JAX_STAMP)
	$(BIN)/python -m pytest $(PYTEST_PARALLEL)

# Unit tests and doctests alone (no server, worker pool, device owner or browser): the edit-test loop.
test-quick: $(DEV) $(JAX_STAMP)
	PLAYGROUND_TEST_QUICK=1 $(BIN)/python -m pytest -n 2 --dist loadgroup -m "not slow" -q

# make test three times in a row while a busy loop takes one core (tools/test_under_load.py).
test-under-load: $(DEV) $(JAX_STAMP)
	$(BIN)/python tools/test_under_load.py --runs 3 -- $(PYTEST_PARALLEL) -q

lint: $(DEV)
	$(BIN)/ruff check .

# The pictures in assets/ (README's and the docs'), taken by the browser tests from the real app (after a UI change).
screenshots: $(DEV) $(JAX_STAMP)
	PLAYGROUND_SCREENSHOTS=$(CURDIR)/assets $(BIN)/python -m pytest tests/browser $(PYTEST_PARALLEL) -q

# The documentation site in site/: MkDocs with the Material theme, in a venv of its own (its packages are not the
# app's); --strict: a broken link, a missing anchor or a page left out of the nav fails the build.
DOCS_VENV := .venv-docs
$(DOCS_VENV)/.installed: requirements-docs.txt
	test -x $(DOCS_VENV)/bin/python || $(PYTHON) -m venv $(DOCS_VENV)
	$(DOCS_VENV)/bin/python -m pip install -q -r requirements-docs.txt
	touch $@

docs: $(DOCS_VENV)/.installed
	NO_MKDOCS_2_WARNING=1 $(DOCS_VENV)/bin/mkdocs build --strict

bench: $(RUNTIME) $(JAX_STAMP)
	$(BIN)/python benchmarks/inspect_latency.py

# MNIST and Fashion-MNIST into the cache (~/.cache/jax-playground), checksummed, for offline use later.
data: $(RUNTIME) $(JAX_STAMP)
	$(BIN)/python -m playground.server.training.fetch_cli

# The venv is rebuilt only when a requirements file changes.
$(RUNTIME): requirements.txt
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11+ is needed")'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	@echo "Installing JAX, Gradio and the rest into $(VENV): the first time, hundreds of MB (a minute or more)."
	$(BIN)/python -m pip install --progress-bar on -r requirements.txt
	touch $@

$(DEV): $(RUNTIME) requirements-dev.txt
	$(BIN)/python -m pip install -q -r requirements-dev.txt
	touch $@

# A different accelerator replaces only JAX's plugins: the other variants' go, this one's come (cpu has none).
$(JAX_STAMP): $(RUNTIME) $(JAX_REQUIREMENTS)
	rm -f $(VENV)/.jax-*
	$(BIN)/python -m pip uninstall -qq -y $(filter-out $(JAX_PLUGINS_$(ACCELERATOR)),$(JAX_PLUGINS))
	$(if $(filter-out cpu,$(ACCELERATOR)),$(BIN)/python -m pip install -q -r $(JAX_REQUIREMENTS))
	touch $@

clean:
	rm -rf $(VENV) $(DOCS_VENV) site .pytest_cache .ruff_cache $(or $(PLAYGROUND_COMPILE_CACHE),.cache/xla)
