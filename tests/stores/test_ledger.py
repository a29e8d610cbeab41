"""The execution ledger (slotgraph.runtime.ledger) on every store: memory, SQLite, Redis, PostgreSQL."""

from __future__ import annotations

import asyncio
import math

import pytest

from slotgraph.stores.errors import LedgerError
from slotgraph.stores.ledger import ExecutionLedger, MemoryLedger, fingerprint

from .conftest import Backend


def ledger_of(backend: Backend, **params: float | str) -> ExecutionLedger:
    store = backend.open(**params)
    assert isinstance(store, ExecutionLedger)
    return store


def test_every_store_is_a_ledger(backend: Backend) -> None:
    assert isinstance(backend.open(), ExecutionLedger)
    assert isinstance(MemoryLedger(), ExecutionLedger)


def test_reserve_complete_and_reuse(backend: Backend) -> None:
    async def scenario() -> None:
        ledger = ledger_of(backend)
        first = await ledger.reserve("s1", "book/1", "fp-a")
        assert first.status == "new"
        assert first.entry is not None
        assert first.entry.status == "pending" and first.entry.fingerprint == "fp-a"
        again = await ledger.reserve("s1", "book/1", "fp-a")
        assert again.status == "pending"  # reserved, not completed: the attempt was interrupted
        result = {"success": True, "booking": {"id": "B-7", "seats": [1, 2]}, "note": "ünïcode"}
        await ledger.complete("s1", "book/1", result)
        done = await ledger.reserve("s1", "book/1", "fp-a")
        assert done.status == "done"
        assert done.entry is not None and done.entry.result == result
        assert done.entry.created_at == pytest.approx(first.entry.created_at)
        found = await ledger.lookup("s1", "book/1")
        assert found is not None and found.status == "done" and found.result == result
        if backend.durable:  # another process sees the same entry
            other = backend.again(ledger)  # type: ignore[arg-type]
            assert isinstance(other, ExecutionLedger)
            seen = await other.reserve("s1", "book/1", "fp-a")
            assert seen.status == "done" and seen.entry is not None and seen.entry.result == result

    backend.run(scenario)


def test_conflict_scopes_and_release(backend: Backend) -> None:
    async def scenario() -> None:
        ledger = ledger_of(backend)
        await ledger.reserve("s1", "k", "fp-a")
        conflict = await ledger.reserve("s1", "k", "fp-b")
        assert conflict.status == "conflict" and conflict.entry is not None
        assert conflict.entry.fingerprint == "fp-a"
        assert (await ledger.reserve("s2", "k", "fp-b")).status == "new"  # scopes are independent
        await ledger.release("s1", "k")
        assert await ledger.lookup("s1", "k") is None
        assert (await ledger.reserve("s1", "k", "fp-b")).status == "new"  # a released key is free again
        await ledger.complete("s1", "k", None)
        await ledger.release("s1", "k")  # a done key is never released
        entry = await ledger.lookup("s1", "k")
        assert entry is not None and entry.status == "done" and entry.result is None
        assert await ledger.lookup("s1", "missing") is None

    backend.run(scenario)


def test_misuse_is_a_clear_error(backend: Backend) -> None:
    async def scenario() -> None:
        ledger = ledger_of(backend)
        with pytest.raises(LedgerError, match="never reserved"):
            await ledger.complete("s1", "nope", {"ok": True})
        await ledger.reserve("s1", "k", "fp")
        with pytest.raises(LedgerError, match="must be JSON"):
            await ledger.complete("s1", "k", {"when": object()})
        with pytest.raises(LedgerError, match="must be JSON"):
            await ledger.complete("s1", "k", math.nan)
        entry = await ledger.lookup("s1", "k")
        assert entry is not None and entry.status == "pending"  # a refused result leaves the key pending

    backend.run(scenario)


def test_only_one_of_many_concurrent_reservations_is_new(backend: Backend) -> None:
    async def scenario() -> None:
        ledgers = [ledger_of(backend) for _ in range(3)] if backend.durable else [ledger_of(backend)] * 3
        answers = await asyncio.gather(*(ledgers[i % 3].reserve("s1", "book/1", "fp") for i in range(24)))
        assert sorted(a.status for a in answers).count("new") == 1
        assert {a.status for a in answers} == {"new", "pending"}

    backend.run(scenario)


def test_deleting_a_session_forgets_its_ledger_scope(backend: Backend) -> None:
    async def scenario() -> None:
        store = backend.open()
        assert isinstance(store, ExecutionLedger)
        await store.save("s1", {"sm": {}, "history": [], "ended": False, "turns": 1}, 0)
        await store.reserve("s1", "book/1", "fp")
        await store.reserve("agent:bella", "pay/1", "fp")
        assert await store.delete("s1")
        assert await store.lookup("s1", "book/1") is None  # a new session with the same id starts afresh
        assert await store.lookup("agent:bella", "pay/1") is not None

    backend.run(scenario)


def test_fingerprints_are_stable_and_order_free() -> None:
    assert fingerprint({"a": 1, "b": [1, "x"]}) == fingerprint({"b": [1, "x"], "a": 1})
    assert fingerprint({"a": 1}) != fingerprint({"a": 2})
    assert len(fingerprint(None)) == 64
