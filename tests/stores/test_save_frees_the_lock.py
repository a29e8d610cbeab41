"""A save under the store's lock of the session (a turn's last write) frees the lock in the same write
(Redis: one script; PostgreSQL: one statement on the lock's connection; SQLite: one transaction), so a turn
makes one trip to the store fewer; what that must not change: a conflict writes nothing and keeps the lock,
a renewal never follows the freeing write, a waiting holder sees the write."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest

from slotgraph.runtime import ScriptedModel, ScriptedStep
from slotgraph.stores import (
    PostgresStore,
    RedisStore,
    SQLiteStore,
    StoreConflictError,
    StoreLockTimeoutError,
)
from slotgraph.stores.leases import hold_lease

from . import agent_kit
from .conftest import make_backend


def record(text: str = "hello", *, turns: int = 1) -> dict[str, Any]:
    return {"sm": {"filled": {"topic": text}}, "history": [], "ended": False, "turns": turns}


def _counting(store: Any) -> list[str]:
    """The store's round trips from now on: Redis by script name (``call:<op>`` for plain commands);
    PostgreSQL its pooled statements (``fetch``) and lock releases (``release``); SQLite its trips to the
    worker thread (``worker``)."""
    trips: list[str] = []
    if isinstance(store, SQLiteStore):
        run = store._run

        async def counted_run(fn: Any, *args: Any) -> Any:
            trips.append("worker")
            return await run(fn, *args)

        store._run = counted_run  # type: ignore[method-assign]
        return trips
    if isinstance(store, RedisStore):
        script, call = store._script, store._call

        async def counted_script(name: str, *args: Any, **kwargs: Any) -> Any:
            trips.append(name)
            return await script(name, *args, **kwargs)

        async def counted_call(op: str, *args: Any, **kwargs: Any) -> Any:
            trips.append(f"call:{op}")
            return await call(op, *args, **kwargs)

        store._script, store._call = counted_script, counted_call  # type: ignore[method-assign]
        return trips
    assert isinstance(store, PostgresStore)
    fetch, release = store._fetch, store._release

    async def counted_fetch(*args: Any) -> Any:
        trips.append("fetch")
        return await fetch(*args)

    async def counted_release(*args: Any) -> Any:
        trips.append("release")
        return await release(*args)

    store._fetch = counted_fetch  # type: ignore[method-assign,assignment]
    store._release = counted_release  # type: ignore[method-assign,assignment]
    return trips


async def _free(other: Any, session_id: str) -> bool:
    """Whether another store (another process's) can take the session's lock at once."""
    try:
        async with other.lock(session_id):
            return True
    except StoreLockTimeoutError:
        return False


UNLOCKING = ["redis", "postgresql"]
FREEING = ["sqlite", *UNLOCKING]
"""The stores whose round trips the tests count."""
TURN_TRIPS = {"sqlite": ["worker", "worker"], "redis": ["lock", "save_unlock"], "postgresql": []}
"""A turn's trips besides the lock's: SQLite the lease with the read, then the save with the release; Redis
the lock script (with the read), the save script; PostgreSQL everything on the lock's connection (the read
with the lock, the save with the unlock), nothing through the pool, no release."""


@pytest.mark.parametrize("kind", FREEING)
def test_a_turn_s_save_frees_the_lock_with_no_trip_of_its_own(
    kind: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    backend = make_backend(kind, request, tmp_path, lock_ttl=600)  # no renewal during the test

    async def scenario() -> None:
        store, other = backend.open(), backend.open(lock_timeout=0.05)
        await store.save("s1", record("one"), 0)
        trips = _counting(store)
        async with store.lock("s1"):
            assert await store.load("s1") == (record("one"), 1)
            assert await store.save("s1", record("two", turns=2), 1) == 2
            assert await _free(other, "s1")  # freed by the save, before the block ends
        assert trips == TURN_TRIPS[kind]
        assert await store.load("s1") == (record("two", turns=2), 2)
        async with store.lock("s1"):  # and taken again at once
            pass

    backend.run(scenario)


@pytest.mark.parametrize("kind", FREEING)
def test_a_conflicting_save_writes_nothing_and_keeps_the_lock(
    kind: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    backend = make_backend(kind, request, tmp_path, lock_ttl=600)

    async def scenario() -> None:
        store, other = backend.open(), backend.open(lock_timeout=0.05)
        await store.save("s1", record("one"), 0)
        async with store.lock("s1"):
            with pytest.raises(StoreConflictError, match="stored version is 1"):
                await store.save("s1", record("stale"), 5)
            with pytest.raises(StoreConflictError, match="stored version is 1"):  # a new session's form
                await store.save("s1", record("stale"), 0)
            assert not await _free(other, "s1")  # still held until the block ends
        assert await _free(other, "s1")
        assert await store.load("s1") == (record("one"), 1)

    backend.run(scenario)


@pytest.mark.parametrize("kind", FREEING)
def test_outside_a_hold_it_is_a_plain_save(kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    backend = make_backend(kind, request, tmp_path)

    async def scenario() -> None:
        store = backend.open()
        assert await store.save("s1", record("one"), 0) == 1
        with pytest.raises(StoreConflictError):
            await store.save("s1", record("two"), 0)
        assert await store.load("s1") == (record("one"), 1)

    backend.run(scenario)


def test_no_renewal_follows_the_write_that_frees_the_lock(
    request: pytest.FixtureRequest, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A turn longer than ``lock_ttl / 3`` has a renewing task; the save stops it (and waits for a renewal in
    flight) before freeing the lock, so nothing renews or reports the lock lapsed afterwards."""
    backend = make_backend("redis", request, tmp_path, lock_ttl=0.3)  # a renewal every 0.1 s

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
            await store.save("s1", record("two", turns=2), 1)
            after = len(trips)
        assert trips[after:] == []  # neither a renewal nor a release after the freeing write
        return trips

    with caplog.at_level(logging.WARNING, logger="slotgraph.stores"):
        trips = backend.run(scenario)
    assert trips[0] == "lock" and trips[-1] == "save_unlock" and "renew" in trips
    assert "lapsed" not in caplog.text


@pytest.mark.parametrize("kind", UNLOCKING)
def test_a_session_turn_saves_and_unlocks_once(
    kind: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    backend = make_backend(kind, request, tmp_path, lock_ttl=600)

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

    trips = backend.run(scenario)
    if kind == "redis":  # the turn's two scripts, then the test's own load
        assert trips == ["lock", "save_unlock", "call:hmget"]
    else:  # the turn on the lock's connection (read with the lock, save with the unlock); the test's load
        assert trips == ["fetch"]


@pytest.mark.parametrize("kind", FREEING)
def test_a_holder_waiting_for_the_lock_reads_the_freeing_write(
    kind: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """The lock is free only once the save is visible: PostgreSQL holds the key at transaction level until
    the statement commits, Redis runs the write and the unlock in one script."""
    backend = make_backend(kind, request, tmp_path, lock_ttl=600)

    async def scenario() -> None:
        store, other = backend.open(), backend.open()
        await store.save("s1", record("one"), 0)
        waiting = asyncio.Event()

        async def second_holder() -> tuple[dict[str, Any], int] | None:
            waiting.set()
            async with other.lock("s1"):
                return await other.load("s1")

        async with store.lock("s1"):
            second = asyncio.create_task(second_holder())
            await waiting.wait()
            await store.save("s1", record("two", turns=2), 1)
            assert await second == (record("two", turns=2), 2)

    backend.run(scenario)


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


def test_postgres_reads_the_session_with_its_lock(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Taking the lock reads the session in the same pipeline; the turn's first load is served from it, a
    later one reads again. Without libpq's pipeline mode the lock is taken alone and the load reads."""
    import psycopg

    backend = make_backend("postgresql", request, tmp_path)

    async def scenario() -> list[str]:
        store = backend.open()
        await store.save("s1", record("one"), 0)
        trips = _counting(store)

        def reads() -> int:
            return trips.count("fetch")

        async with store.lock("s1"):
            assert await store.load("s1") == (record("one"), 1)
            assert reads() == 0  # read with the lock
            assert await store.load("s1") == (record("one"), 1)
            assert reads() == 1
        async with store.lock("new"):
            assert await store.load("new") is None
            assert reads() == 1  # "no record" was read with the lock too
        monkeypatch.setattr(psycopg.Pipeline, "is_supported", classmethod(lambda cls: False))
        async with store.lock("s1"):
            assert await store.load("s1") == (record("one"), 1)
            assert reads() == 2  # the lock alone, then the load
        return trips

    assert backend.run(scenario) == ["fetch", "release", "release", "fetch", "release"]


def test_sqlite_reads_the_session_with_its_lease(tmp_path: Path) -> None:
    """Taking the lease reads the session on the same trip to the worker thread; the turn's first load is
    served from it, a later one reads again, and a read kept from a lease whose block ended is never
    served (another process may have written since)."""

    async def scenario() -> None:
        store, other = SQLiteStore(tmp_path / "s.db"), SQLiteStore(tmp_path / "s.db")
        await store.save("s1", record("one"), 0)
        trips = _counting(store)
        async with store.lock("s1"):
            assert await store.load("s1") == (record("one"), 1)
            assert trips == ["worker"]  # read with the lease
            assert await store.load("s1") == (record("one"), 1)
            assert trips == ["worker", "worker"]
        async with store.lock("new"):
            assert await store.load("new") is None
            assert len(trips) == 4  # "no record" was read with the lease too (and the lease released)
        async with store.lock("s1"):
            pass  # read with the lease, never loaded
        await other.save("s1", record("two", turns=2), 1)
        assert await store.load("s1") == (record("two", turns=2), 2)
        await store.close()
        await other.close()

    asyncio.run(scenario())
