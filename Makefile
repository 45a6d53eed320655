# `make run` and `make test` are all a fresh clone needs (Python 3.11+).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUNTIME := $(VENV)/.runtime-installed
DEV := $(VENV)/.dev-installed

.PHONY: run test lint screenshots bench data clean

run: $(RUNTIME)
	$(BIN)/python app.py

test: $(DEV)
	$(BIN)/python -m pytest

lint: $(DEV)
	$(BIN)/ruff check .

# The README's pictures in assets/, taken by the browser tests from the real app (run it when the UI changes).
screenshots: $(DEV)
	PLAYGROUND_SCREENSHOTS=$(CURDIR)/assets $(BIN)/python -m pytest tests/browser -q

bench: $(RUNTIME)
	$(BIN)/python benchmarks/inspect_latency.py

# MNIST and Fashion-MNIST into the cache (~/.cache/jax-playground), checksummed, for offline use later.
data: $(RUNTIME)
	$(BIN)/python -m playground.mnist.fetch_cli

# The venv is rebuilt only when a requirements file changes.
$(RUNTIME): requirements.txt
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11+ is needed")'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -r requirements.txt
	touch $@

$(DEV): $(RUNTIME) requirements-dev.txt
	$(BIN)/python -m pip install -q -r requirements-dev.txt
	touch $@

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
