"""``keeps_ledger`` answers ``isinstance(store, ExecutionLedger)`` once per class (the protocol check looks up
every method on every call); it must agree with ``isinstance`` for every kind of object."""

from __future__ import annotations

from typing import Any

import pytest

from slotgraph.runtime.ledger import ExecutionLedger, MemoryLedger, keeps_ledger
from slotgraph.runtime.store import InMemoryStore
from slotgraph.server.sessions import _BoundStore


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
        _BoundStore(InMemoryStore(), {}),
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
    assert keeps_ledger(store) is expected  # decided once per class: the second answer too
