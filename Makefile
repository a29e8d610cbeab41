# The two commands of the README:
#   make demo  — set up a virtualenv and run the main job on the embedded default (no key, no network)
#   make test  — set up a virtualenv and run everything CI runs: lint, format check, type check, tests
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
EXAMPLE ?= examples/bella_notte
LINT_PATHS := src tests benchmarks examples setup.py

# The tests of the compiled modules, run a second time on their pure-Python sources (SLOTGRAPH_PURE_PYTHON=1):
# an install without a C compiler runs that code, so it is held to the same tests.
PURE_TESTS := tests/expr tests/engine tests/config tests/adapters tests/runtime/test_state_copy.py \
	tests/runtime/test_untrusted_values.py tests/runtime/test_instructions.py

.PHONY: demo test lint typecheck pytest native bench clean

# Two stamps: .installed is everything CI runs (dev tools, browser driver, database servers, the compiled
# core); .installed-demo is only what the demo needs (the runtime and the offline model, no extras, the core
# left uncompiled: compiling takes minutes and a chat does not need it), and is satisfied by a full install
# that is already up to date.
$(BIN)/.installed: pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $@

$(BIN)/.installed-demo: pyproject.toml
	@if [ -f $(BIN)/.installed ] && [ $(BIN)/.installed -nt pyproject.toml ]; then touch $@; else \
		$(PYTHON) -m venv $(VENV) && \
		$(BIN)/python -m pip install --quiet --upgrade pip && \
		SLOTGRAPH_COMPILE=0 $(BIN)/python -m pip install --quiet -e . && \
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

# The compiled core (setup.py; docs/performance.md, "The compiled core"), rebuilt in place when one of its
# sources changed since the last build. Until then Python runs those modules from source (slotgraph/_native.py).
native: $(BIN)/.installed
	@$(BIN)/python -c "import slotgraph._native as n; raise SystemExit(n.main(['--check']))" || \
		$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .

# Every test, the slow ones included (a plain `pytest` skips them: see addopts in pyproject.toml); only the
# tests that need a live LLM endpoint are left out. Then the compiled modules' tests on their sources.
pytest: native
	$(BIN)/python -m pytest -m "not llm"
	SLOTGRAPH_PURE_PYTHON=1 $(BIN)/python -m pytest -m "not llm" $(PURE_TESTS)

test: lint typecheck pytest

# Every benchmark, then one table of every goal (measured / target / met); see docs/performance.md.
bench: native
	@$(BIN)/python benchmarks/summary.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build src/slotgraph/_native.json
	find src -name '*.so' -delete
