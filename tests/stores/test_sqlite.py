"""What only the SQLite store does: the file, its directory, WAL mode, format guard, and lock leases."""

from __future__ import annotations

import asyncio
import concurrent.futures
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from slotgraph.stores import SQLiteStore, StoreConfigError, StoreLockTimeoutError, open_store

from .conftest import Backend, make_backend
from .test_conformance import record


def test_the_file_and_its_directories_are_created_in_wal_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)

    async def scenario() -> None:
        store = open_store("sqlite://")
        assert not (tmp_path / ".slotgraph").exists()  # lazily: nothing before first use
        await store.save("s", record(), 0)
        await store.close()

    asyncio.run(scenario())
    db = tmp_path / ".slotgraph" / "sessions.db"
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("SELECT version FROM slotgraph_sessions WHERE id = 's'").fetchone()[0] == 1
    conn.close()


@pytest.mark.parametrize("kind", ["directory", "not-sqlite", "unwritable-parent"])
def test_an_unusable_path_is_a_config_error_naming_it(tmp_path: Path, kind: str) -> None:
    if kind == "directory":
        path = tmp_path
    elif kind == "not-sqlite":
        path = tmp_path / "notes.txt"
        path.write_text("these are my notes, not a database\n" * 100)
    else:
        blocker = tmp_path / "file"
        blocker.write_text("x")
        path = blocker / "sub" / "s.db"

    async def scenario() -> None:
        store = SQLiteStore(path)
        try:
            with pytest.raises(
                StoreConfigError, match=str(path.parent if kind == "unwritable-parent" else path)
            ):
                await store.load("s")
        finally:
            await store.close()

    asyncio.run(scenario())
    if kind == "not-sqlite":
        assert path.read_text().startswith("these are my notes"), "the file was not touched"


def test_a_file_from_a_newer_slotgraph_is_refused_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = 99")
    conn.close()

    async def scenario() -> None:
        store = SQLiteStore(path)
        with pytest.raises(StoreConfigError, match=r"table format 99, written by a newer slotgraph"):
            await store.count()
        await store.close()

    asyncio.run(scenario())
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 99
    conn.close()


@pytest.mark.parametrize("name", ["sqlite", "redis"])
def test_a_held_lease_is_renewed_past_its_ttl(
    name: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """A turn longer than lock_ttl keeps its lock: the contender waits 4 TTLs and still times out."""
    backend: Backend = make_backend(name, request, tmp_path, lock_ttl=0.5)

    async def scenario() -> None:
        holder = backend.open()
        contender = backend.open(lock_timeout=2.0)
        async with holder.lock("s"):
            with pytest.raises(StoreLockTimeoutError):
                async with contender.lock("s"):
                    raise AssertionError("the lease lapsed while its holder was alive")

    backend.run(scenario)


def _durable_commits(statements: list[str]) -> int:
    """Commits made while ``synchronous`` is FULL (each syncs the disk): explicit COMMITs and autocommitted
    writes, replayed from the connection's statement trace."""
    durable, in_transaction, count = True, False, 0  # SQLite's default in WAL mode is FULL
    for statement in (s.strip().upper() for s in statements):
        if statement.startswith("PRAGMA SYNCHRONOUS"):
            durable = statement.endswith("FULL")
        elif statement.startswith("BEGIN"):
            in_transaction = True
        elif statement.startswith(("COMMIT", "ROLLBACK")):
            count += durable and statement.startswith("COMMIT")
            in_transaction = False
        elif statement.startswith(("INSERT", "UPDATE", "DELETE")) and not in_transaction:
            count += durable
    return count


def test_a_turn_syncs_the_disk_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Lease, load, save, release: only the save is a durable commit (one fsync per turn, not three), on
    whichever of the store's connections each runs."""
    traces: list[list[str]] = []  # one per connection: ``synchronous`` is a setting of each
    connect = sqlite3.connect

    def traced(*args: object, **kwargs: object) -> sqlite3.Connection:
        conn = connect(*args, **kwargs)  # type: ignore[arg-type]
        traces.append([])
        conn.set_trace_callback(traces[-1].append)
        return conn

    def durable() -> int:
        return sum(_durable_commits(trace) for trace in traces)

    monkeypatch.setattr(sqlite3, "connect", traced)

    async def scenario() -> None:
        store = SQLiteStore(tmp_path / "s.db")
        await store.save("s", record(), 0)
        for _ in range(3):
            before, marks = durable(), [len(trace) for trace in traces]
            async with store.lock("s"):
                found = await store.load("s")
                assert found is not None
                await store.save("s", found[0], found[1])
            turn = [s for trace, mark in zip(traces, [*marks, 0, 0], strict=False) for s in trace[mark:]]
            assert durable() - before == 1, turn
            assert any("INTO slotgraph_locks" in s for s in turn), "the lease was taken"
        assert len(traces) == 2, "the worker's connection and the event loop's"
        await store.close()
        with sqlite3.connect(tmp_path / "s.db") as conn:  # the saves are there, the leases released
            assert conn.execute("SELECT version FROM slotgraph_sessions").fetchone()[0] == 4
            assert conn.execute("SELECT COUNT(*) FROM slotgraph_locks").fetchone()[0] == 0

    asyncio.run(scenario())


def _count_worker_trips(store: SQLiteStore) -> list[str]:
    """The names of the operations the store hands to its worker thread, from now on."""
    trips: list[str] = []
    run = store._run

    async def counted(fn: Any, *args: Any) -> Any:
        trips.append(getattr(fn, "__name__", "?"))
        return await run(fn, *args)

    store._run = counted  # type: ignore[method-assign]
    return trips


def test_only_the_save_leaves_the_event_loop(tmp_path: Path) -> None:
    """Lease (with the load), release, a load outside the lease and a ledger lookup never wait for the disk:
    they run on the event loop; the durable save and ledger writes go to the worker thread."""

    async def scenario() -> None:
        store = SQLiteStore(tmp_path / "s.db")
        await store.save("s", record(), 0)  # the worker's connection creates the file and the tables
        trips = _count_worker_trips(store)
        async with store.lock("s"):
            found = await store.load("s")
            assert found is not None
            await store.save("s", found[0], found[1])
        assert trips == ["_save"]
        assert await store.load("s") == (record(), 2)
        assert await store.lookup("s", "k") is None
        assert trips == ["_save"]
        await store.reserve("s", "k", "f")
        assert (await store.lookup("s", "k")) is not None
        assert trips == ["_save", "_reserve"]
        await store.close()

    asyncio.run(scenario())


def test_a_busy_file_sends_the_operation_to_the_worker_thread(tmp_path: Path) -> None:
    """While another connection (another process) holds the write lock, taking the lease does not wait on
    the event loop: it is run on the worker thread, which waits for the file while the loop goes on."""
    path = tmp_path / "s.db"

    async def scenario() -> None:
        store = SQLiteStore(path)
        await store.save("s", record(), 0)
        trips = _count_worker_trips(store)
        sent = asyncio.Event()
        run = store._run

        async def signalled(fn: Any, *args: Any) -> Any:
            sent.set()
            return await run(fn, *args)

        store._run = signalled  # type: ignore[method-assign]
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # the other writer holds the file
        try:
            locking = asyncio.ensure_future(store.lock("s").__aenter__())
            await sent.wait()  # the loop was not blocked: this coroutine runs while the worker waits
            assert not locking.done()
        finally:
            other.execute("COMMIT")
            other.close()
        await locking
        assert trips == ["<lambda>"], "the lease was taken on the worker thread"
        assert await store.load("s") == (record(), 1)
        await store.close()

    asyncio.run(scenario())


def test_an_event_loop_in_another_thread_uses_the_worker(tmp_path: Path) -> None:
    """The loop's connection is used by the thread that opened it only; another thread's loop sends every
    operation to the worker thread, and both see the same sessions."""
    store = SQLiteStore(tmp_path / "s.db")

    async def first() -> None:
        await store.save("s", record(), 0)
        async with store.lock("s"):  # opens the loop's connection in this thread
            assert await store.load("s") == (record(), 1)

    async def elsewhere() -> list[str]:
        trips = _count_worker_trips(store)
        async with store.lock("s"):
            found = await store.load("s")
            assert found == (record(), 1)
            await store.save("s", found[0], found[1])
        return trips

    asyncio.run(first())
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        trips = pool.submit(asyncio.run, elsewhere()).result()
    assert len(trips) == 3, trips  # lease (with the load), save, release: each on the worker
    asyncio.run(store.close())
