"""Shared paths and types of the CLI tests (a plain module: test files import it, conftest re-uses it)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from typer.testing import Result

REPO_ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures"

Invoke = Callable[[Sequence[str]], Result]
