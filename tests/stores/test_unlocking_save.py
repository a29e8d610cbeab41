"""A turn's save frees the session's lock in the same write where the store can (Redis: one script), so a turn
is two trips to the store (lock and read, save and unlock) instead of three; what that must not change: a
conflict writes nothing and keeps the lock, a renewal never follows the freeing write, the server's stored
metadata, and every other store keeps saving then releasing."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest

from slotgraph.runtime import ScriptedModel, ScriptedStep
from slotgraph.runtime.store import InMemoryStore, UnlockingSave, saves_and_unlocks
from slotgraph.server.sessions import META_KEY, _BoundStore
from slotgraph.stores import RedisStore, SQLiteStore, StoreConflictError, StoreLockTimeoutError
from slotgraph.stores.leases import hold_lease

from . import agent_kit
from .conftest import make_backend


def record(text: str = "hello", *, turns: int = 1) -> dict[str, Any]:
    return {"sm": {"filled": {"topic": text}}, "history": [], "ended": False, "turns": turns}


def _counting(store: Any) -> list[str]:
    """The store's round trips from now on, by script name (``call:<op>`` for plain commands)."""
    trips: list[str] = []
    script, call = store._script, store._call

    async def counted_script(name: str, *args: Any, **kwargs: Any) -> Any:
        trips.append(name)
        return await script(name, *args, **kwargs)

    async def counted_call(op: str, *args: Any, **kwargs: Any) -> Any:
        trips.append(f"call:{op}")
        return await call(op, *args, **kwargs)

    store._script, store._call = counted_script, counted_call
    return trips


async def _free(other: Any, session_id: str) -> bool:
    """Whether another store (another process's) can take the session's lock at once."""
    try:
        async with other.lock(session_id):
            return True
    except StoreLockTimeoutError:
        return False


def test_only_the_redis_store_saves_and_unlocks_in_one_write(tmp_path: Path) -> None:
    redis, memory = RedisStore("redis://localhost:1/0"), InMemoryStore()
    sqlite = SQLiteStore(tmp_path / "s.db")
    assert isinstance(redis, UnlockingSave) and saves_and_unlocks(redis)
    for store in (sqlite, memory):  # SQLite's lease is freed after the save's sync, not with its commit
        assert not isinstance(store, UnlockingSave) and not saves_and_unlocks(store)
    for _ in range(2):  # decided once per class, the same answer from then on
        assert saves_and_unlocks(redis) and not saves_and_unlocks(memory)
    overriding = InMemoryStore()
    overriding.save_and_unlock = memory.save  # type: ignore[attr-defined]  # an instance's own method counts
    assert saves_and_unlocks(overriding)


def test_a_redis_turn_is_two_trips_and_leaves_the_lock_free(
    request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    backend = make_backend("redis", request, tmp_path, lock_ttl=600)  # no renewal during the test

    async def scenario() -> None:
        store, other = backend.open(), backend.open(lock_timeout=0.05)
        await store.save("s1", record("one"), 0)
        trips = _counting(store)
        async with store.lock("s1"):
            assert await store.load("s1") == (record("one"), 1)
            assert await store.save_and_unlock("s1", record("two", turns=2), 1) == 2  # type: ignore[attr-defined]
            assert await _free(other, "s1")  # freed by the save, before the block ends
        assert trips == ["lock", "save_unlock"]  # no release of its own
        assert await store.load("s1") == (record("two", turns=2), 2)
        async with store.lock("s1"):  # and taken again at once
            pass

    backend.run(scenario)


def test_a_conflicting_save_writes_nothing_and_keeps_the_lock(
    request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    backend = make_backend("redis", request, tmp_path, lock_ttl=600)

    async def scenario() -> None:
        store, other = backend.open(), backend.open(lock_timeout=0.05)
        await store.save("s1", record("one"), 0)
        async with store.lock("s1"):
            with pytest.raises(StoreConflictError, match="stored version is 1"):
                await store.save_and_unlock("s1", record("stale"), 5)  # type: ignore[attr-defined]
            assert not await _free(other, "s1")  # still held until the block ends
        assert await _free(other, "s1")
        assert await store.load("s1") == (record("one"), 1)

    backend.run(scenario)


def test_outside_a_hold_it_is_a_plain_save(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    backend = make_backend("redis", request, tmp_path)

    async def scenario() -> None:
        store = backend.open()
        assert await store.save_and_unlock("s1", record("one"), 0) == 1  # type: ignore[attr-defined]
        with pytest.raises(StoreConflictError):
            await store.save_and_unlock("s1", record("two"), 0)  # type: ignore[attr-defined]
        assert await store.load("s1") == (record("one"), 1)

    backend.run(scenario)


def test_no_renewal_follows_the_write_that_frees_the_lock(
    request: pytest.FixtureRequest, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A turn longer than ``lock_ttl / 3`` has a renewing task; the save stops it (and waits for a renewal in
    flight) before freeing the lock, so nothing renews or reports the lock lapsed afterwards."""
    backend = make_backend("redis", request, tmp_path, lock_ttl=0.06)

    async def scenario() -> list[str]:
        store = backend.open()
        await store.save("s1", record("one"), 0)
        trips = _counting(store)
        renewed = asyncio.Event()
        script = store._script  # type: ignore[attr-defined]

        async def signalling(name: str, *args: Any, **kwargs: Any) -> Any:
            result = await script(name, *args, **kwargs)
            if name == "renew":
                renewed.set()
            return result

        store._script = signalling  # type: ignore[attr-defined]
        async with store.lock("s1"):
            await asyncio.wait_for(renewed.wait(), 10)
            await store.save_and_unlock("s1", record("two", turns=2), 1)  # type: ignore[attr-defined]
            after = len(trips)
        assert trips[after:] == []  # neither a renewal nor a release after the freeing write
        return trips

    with caplog.at_level(logging.WARNING, logger="slotgraph.stores"):
        trips = backend.run(scenario)
    assert trips[0] == "lock" and trips[-1] == "save_unlock" and "renew" in trips
    assert "lapsed" not in caplog.text


def test_a_session_turn_on_redis_saves_and_unlocks_once(
    request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    backend = make_backend("redis", request, tmp_path, lock_ttl=600)

    async def scenario() -> list[str]:
        store = backend.open()
        model = ScriptedModel([ScriptedStep(text="noted"), ScriptedStep(text="again")])
        session = agent_kit.agent().session(session_id="s", store=store, clock=agent_kit.clock, model=model)
        await session.asend("first")  # a new session: its first save creates the record
        trips = _counting(store)
        reply = await session.asend("second")
        assert reply.text == "again"
        stored, version = await store.load("s") or ({}, 0)
        assert version == 2 and agent_kit.user_texts(stored) == ["first", "second"]
        return trips

    assert backend.run(scenario)[:2] == ["lock", "save_unlock"]


class _Unlocking(InMemoryStore):
    """A memory store that records which save the caller chose."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[str] = []

    async def save_and_unlock(self, session_id: str, record: dict[str, Any], expected_version: int) -> int:
        self.calls.append("save_and_unlock")
        return await self.save(session_id, record, expected_version)


def test_the_server_s_bound_store_keeps_its_metadata_either_way() -> None:
    async def scenario() -> None:
        unlocking, plain = _Unlocking(), InMemoryStore()
        for inner in (unlocking, plain):
            bound = _BoundStore(inner, {"agent": "notes"})
            assert await bound.save_and_unlock("s", record(), 0) == 1
            stored, _ = await inner.load("s") or ({}, 0)
            assert stored[META_KEY] == {"agent": "notes"}
        assert unlocking.calls == ["save_and_unlock"]

    asyncio.run(scenario())


def test_a_lease_freed_by_the_store_is_not_released_again_and_errors_still_propagate() -> None:
    async def scenario() -> list[str]:
        released: list[str] = []

        async def acquire() -> bool:
            return True

        async def renew() -> bool:
            return True

        async def release() -> None:
            released.append("released")

        def hold() -> Any:
            return hold_lease(
                what="session 's'", try_acquire=acquire, renew=renew, release=release, ttl=600, timeout=1
            )

        async with hold() as held:
            await held.before_final_write()
            held.mark_released()
        assert released == []
        with pytest.raises(RuntimeError, match="after the save"):
            async with hold() as held:
                held.mark_released()
                raise RuntimeError("after the save")
        async with hold():
            pass
        return released

    assert asyncio.run(scenario()) == ["released"]
