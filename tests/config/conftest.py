"""Fixtures shared by the config tests."""

from __future__ import annotations

from typing import Any

import pytest


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
