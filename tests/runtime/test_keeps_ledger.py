"""``keeps_ledger`` is ``isinstance(store, ExecutionLedger)``, for every kind of object."""

from __future__ import annotations

from typing import Any

import pytest

from slotgraph.stores.ledger import ExecutionLedger, MemoryLedger, keeps_ledger
from slotgraph.stores.memory import InMemoryStore


class Full:
    async def reserve(self, *_: Any) -> None: ...
    async def complete(self, *_: Any) -> None: ...
    async def release(self, *_: Any) -> None: ...
    async def lookup(self, *_: Any) -> None: ...


class Missing:
    async def reserve(self, *_: Any) -> None: ...
    async def complete(self, *_: Any) -> None: ...


class Disabled(Full):
    lookup = None  # type: ignore[assignment]


def _overridden() -> Full:
    store = Full()
    store.lookup = None  # type: ignore[method-assign]
    return store


@pytest.mark.parametrize(
    "store",
    [
        InMemoryStore(),
        MemoryLedger(),
        Full(),
        Missing(),
        Disabled(),
        _overridden(),
        object(),
        "a string",
    ],
    ids=repr,
)
def test_it_agrees_with_isinstance(store: object) -> None:
    expected = isinstance(store, ExecutionLedger)
    assert keeps_ledger(store) is expected
