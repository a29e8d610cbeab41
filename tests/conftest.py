"""Checks for the whole test session (fixtures live next to the tests that use them)."""

from __future__ import annotations

from pathlib import Path

import pytest


def pytest_configure(config: pytest.Config) -> None:
    """Refuse to run the suite against another checkout's code.

    The tests import ``slotgraph`` from the virtualenv's editable install. A virtualenv borrowed from another
    checkout (a copied or symlinked ``.venv``, a second git worktree) imports *that* checkout's ``src/``, and
    every test would pass or fail for code that is not the one under test.
    """
    import slotgraph

    expected = (config.rootpath / "src" / "slotgraph").resolve()
    actual = Path(slotgraph.__file__).resolve().parent
    if actual != expected:
        pytest.exit(
            f"the tests would run against {actual}, not this checkout's {expected}: the virtualenv is "
            "another checkout's (symlinked or copied?). Fix: rm -rf .venv && make .venv/bin/.installed",
            returncode=4,
        )
