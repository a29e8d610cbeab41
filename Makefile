# The two commands of the README:
#   make demo  — set up a virtualenv and run the main job on the embedded default (no key, no network)
#   make test  — set up a virtualenv and run everything CI runs: lint, format check, type check, tests
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
EXAMPLE ?= examples/bella_notte
LINT_PATHS := src tests benchmarks examples

.PHONY: demo test lint typecheck pytest bench clean

# Two stamps: .installed is everything CI runs (dev tools, browser driver, database servers);
# .installed-demo is only what the demo needs (the runtime and the offline model, no extras), and is
# satisfied by a full install that is already up to date (a third, .installed-bench, adds the benchmark's
# peers to the full install: see `bench`). pip lists what it collects and installs, so a first run shows its
# progress.
$(BIN)/.installed: pyproject.toml
	@echo "==> creating $(VENV) with the development tools (a first run downloads for a few minutes)"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --progress-bar off -e '.[dev]'
	@touch $@

$(BIN)/.installed-demo: pyproject.toml
	@if [ -f $(BIN)/.installed ] && [ $(BIN)/.installed -nt pyproject.toml ]; then touch $@; else \
		echo "==> creating $(VENV) with the runtime and the offline model" && \
		$(PYTHON) -m venv $(VENV) && \
		$(BIN)/python -m pip install --quiet --upgrade pip && \
		$(BIN)/python -m pip install --progress-bar off -e . && \
		touch $@; fi

# Chat with the example agent through the offline model (type your turns; Ctrl-D ends). With piped
# stdin it reads one user turn per line, e.g. `printf 'Hi\nA table for 4 tomorrow\n' | make demo`.
demo: $(BIN)/.installed-demo
	@$(BIN)/slotgraph validate $(EXAMPLE)
	@$(BIN)/slotgraph chat $(EXAMPLE) --model offline

lint: $(BIN)/.installed
	$(BIN)/ruff check $(LINT_PATHS)
	$(BIN)/ruff format --check $(LINT_PATHS)

typecheck: $(BIN)/.installed
	$(BIN)/mypy

# Every test, the slow ones included (a plain `pytest` skips them: see addopts in pyproject.toml); only the
# tests that need a live LLM endpoint are left out. `-rs` lists each skipped test with its reason.
pytest: $(BIN)/.installed
	$(BIN)/python -m pytest -m "not llm" -rs

test: lint typecheck pytest

# The peer frameworks benchmarks/peers.py measures Slotgraph against (the optional `bench` extra): only
# `make bench` needs them, so `make test` does not install them.
$(BIN)/.installed-bench: $(BIN)/.installed
	$(BIN)/python -m pip install --progress-bar off -e '.[bench]'
	@touch $@

# Every benchmark, then one table of every goal (measured / target / met); see docs/performance.md.
bench: $(BIN)/.installed-bench
	@$(BIN)/python benchmarks/summary.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build
