"""Tests that look inside the compiled core (setup.py, slotgraph/_native.py).

A test that monkeypatches a function or method of a compiled module cannot see its effect when the core is
compiled: compiled code calls its functions directly, not through the module or class attribute. Such a
test is marked :data:`pure_python_only`; `make test` runs the compiled modules' tests a second time on
their pure-Python sources (``SLOTGRAPH_PURE_PYTHON=1``), where it runs.
"""

from __future__ import annotations

import pytest

from slotgraph._native import status

__all__ = ["COMPILED", "pure_python_only"]

COMPILED = status().compiled

pure_python_only = pytest.mark.skipif(
    COMPILED,
    reason="patches a function of the compiled core, which compiled code calls directly; "
    "`make test` runs it again on the pure-Python sources (SLOTGRAPH_PURE_PYTHON=1)",
)
