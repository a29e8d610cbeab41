"""Recorded or documented API payloads of the hosted backends (``tests/models/fixtures/PROVIDER``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["payloads"]

FIXTURES = Path(__file__).parent / "fixtures"


def payloads(provider: str) -> Callable[[str], Any]:
    """A loader of ``fixtures/PROVIDER/NAME.json`` by ``NAME``."""
    folder = FIXTURES / provider

    def load(name: str) -> Any:
        return json.loads((folder / f"{name}.json").read_text(encoding="utf-8"))

    return load
