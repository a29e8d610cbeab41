"""Fixtures shared by the config tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from slotgraph.config import VERDICT_DIR_ENV, clear_compile_cache
from slotgraph.config import verdicts as verdicts_module


@pytest.fixture
def no_verdicts(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No verdict directory (neither ``SLOTGRAPH_VERDICT_DIR`` nor ``configure_verdict_dir``) and cold
    compile caches, before and after the test."""
    monkeypatch.delenv(VERDICT_DIR_ENV, raising=False)
    monkeypatch.setattr(verdicts_module, "_configured", verdicts_module._UNSET)
    clear_compile_cache()
    yield
    clear_compile_cache()


def calls_of(monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> list[Any]:
    """Replace ``owner.name`` (for the test) by a function that calls it and records its first argument;
    the list of those arguments, one per call."""
    seen: list[Any] = []
    real = getattr(owner, name)

    def counted(first: Any, /, *args: Any, **kwargs: Any) -> Any:
        seen.append(first)
        return real(first, *args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return seen
