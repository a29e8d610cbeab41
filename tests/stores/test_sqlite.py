"""What only the SQLite store does: the file, its directory, WAL mode, format guard, and lock leases."""

from __future__ import annotations

import asyncio
import concurrent.futures
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from slotgraph.stores import (
    SQLiteStore,
    StoreConfigError,
    StoreConflictError,
    StoreError,
    StoreLockTimeoutError,
    open_store,
    sqlite_sync,
)

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
    """A turn longer than lock_ttl keeps its lock: the contender waits 2.5 TTLs and still times out.

    The TTL is a whole second so that a renewal (due every TTL/3) may be late by up to 2/3 s on a loaded
    machine before the lease lapses: the test measures renewal, not the scheduler's latency."""
    backend: Backend = make_backend(name, request, tmp_path, lock_ttl=1.0)

    async def scenario() -> None:
        holder = backend.open()
        contender = backend.open(lock_timeout=2.5)
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


def _count_group_syncs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The file descriptors the group commit syncs, from now on (one entry per sync)."""
    synced: list[int] = []
    sync = sqlite_sync.sync_file

    def counted(fd: int) -> None:
        synced.append(fd)
        sync(fd)

    monkeypatch.setattr(sqlite_sync, "sync_file", counted)
    return synced


def _traced_connections(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The SQL of every connection opened from now on, one list per connection, in order."""
    traces: list[list[str]] = []
    connect = sqlite3.connect

    def traced(*args: object, **kwargs: object) -> sqlite3.Connection:
        conn = connect(*args, **kwargs)  # type: ignore[arg-type]
        traces.append([])
        conn.set_trace_callback(traces[-1].append)
        return conn

    monkeypatch.setattr(sqlite3, "connect", traced)
    return traces


def test_a_turn_syncs_the_disk_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Lease, load, save, release: one sync of the disk per turn (not three) — the save's, made by the group
    commit; no commit of any of the store's connections syncs by itself."""
    traces = _traced_connections(monkeypatch)  # one per connection: ``synchronous`` is a setting of each

    def durable() -> int:
        return sum(_durable_commits(trace) for trace in traces)

    synced = _count_group_syncs(monkeypatch)

    async def scenario() -> None:
        store = SQLiteStore(tmp_path / "s.db")
        await store.save("s", record(), 0)
        for _ in range(3):
            before, syncs, marks = durable(), len(synced), [len(trace) for trace in traces]
            async with store.lock("s"):
                found = await store.load("s")
                assert found is not None
                await store.save("s", found[0], found[1])
            turn = [s for trace, mark in zip(traces, [*marks, 0, 0], strict=False) for s in trace[mark:]]
            assert durable() - before == 0, turn
            assert len(synced) - syncs == 1, "the save was synced once"
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


def test_an_uncontended_turn_runs_on_the_event_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Lease (with the load), save, release, a load outside the lease, a ledger lookup and the ledger's
    writes run on the event loop; only the disk's sync leaves it (on the group commit's thread)."""
    synced = _count_group_syncs(monkeypatch)

    async def scenario() -> None:
        store = SQLiteStore(tmp_path / "s.db")
        await store.save("s", record(), 0)  # the worker's connection creates the file and the tables
        trips = _count_worker_trips(store)
        async with store.lock("s"):
            found = await store.load("s")
            assert found is not None
            await store.save("s", found[0], found[1])
        assert await store.load("s") == (record(), 2)
        assert await store.lookup("s", "k") is None
        assert len(synced) == 1
        await store.reserve("s", "k", "f")
        assert len(synced) == 2, "the reservation is on disk before the side effect is dispatched"
        assert (await store.lookup("s", "k")) is not None
        await store.complete("s", "k", {"ok": True})
        assert await store.delete("s")
        assert len(synced) == 4
        assert trips == []
        await store.close()

    asyncio.run(scenario())


class _HeldSync:
    """Replaces the group commit's sync: each sync waits until the test lets it go."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.started = threading.Semaphore(0)
        self.go = threading.Semaphore(0)
        self.count = 0
        sync = sqlite_sync.sync_file

        def held(fd: int) -> None:
            self.count += 1
            self.started.release()
            self.go.acquire()
            sync(fd)

        monkeypatch.setattr(sqlite_sync, "sync_file", held)

    async def wait_started(self) -> None:
        """Until a sync has started (the sync thread is in it), without blocking the event loop."""
        await asyncio.get_running_loop().run_in_executor(None, self.started.acquire)


def _stored_version(path: Path, session_id: str) -> int | None:
    with sqlite3.connect(path) as conn:
        row = conn.execute("SELECT version FROM slotgraph_sessions WHERE id = ?", (session_id,)).fetchone()
    conn.close()
    return None if row is None else int(row[0])


def test_a_save_returns_only_once_the_disk_was_synced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The save is committed at once (other connections see it) but returns only after a sync of the WAL
    that started after its commit."""
    path = tmp_path / "s.db"

    async def scenario() -> None:
        store = SQLiteStore(path)
        await store.save("s", record(), 0)
        held = _HeldSync(monkeypatch)
        saving = asyncio.ensure_future(store.save("s", record("two"), 1))
        await held.wait_started()
        assert _stored_version(path, "s") == 2, "committed before the sync"
        assert not saving.done(), "but not returned: it is not on disk yet"
        held.go.release()
        assert await saving == 2
        assert held.count == 1
        await store.close()

    asyncio.run(scenario())


def test_commits_made_during_a_sync_share_the_next_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Group commit: a sync that started before a commit does not cover it; the commits made while it ran are
    covered, all of them, by the one sync after it."""

    async def scenario() -> None:
        store = SQLiteStore(tmp_path / "s.db")
        await store.save("first", record(), 0)
        held = _HeldSync(monkeypatch)
        first = asyncio.ensure_future(store.save("first", record("again"), 1))
        await held.wait_started()
        later = [asyncio.ensure_future(store.save(f"s{i}", record(), 0)) for i in range(5)]
        while not all(_stored_version(tmp_path / "s.db", f"s{i}") == 1 for i in range(5)):
            await asyncio.sleep(0)  # let each save commit (no time passes: the loop only runs them)
        held.go.release()
        assert await first == 2
        await held.wait_started()  # the second sync, for the five later commits
        assert not any(save.done() for save in later), "the first sync started before their commits"
        held.go.release()
        assert await asyncio.gather(*later) == [1] * 5
        assert held.count == 2
        await store.close()

    asyncio.run(scenario())


def test_a_failed_sync_fails_the_write_with_a_store_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def scenario() -> None:
        store = SQLiteStore(tmp_path / "s.db")
        await store.save("s", record(), 0)

        def failing(fd: int) -> None:
            raise OSError(5, "Input/output error")

        monkeypatch.setattr(sqlite_sync, "sync_file", failing)
        with pytest.raises(StoreError, match=r"could not be synced .*may not survive a power cut"):
            await store.save("s", record("two"), 1)
        monkeypatch.undo()
        assert await store.save("s", record("three"), 2) == 3, "the next sync is tried afresh"
        await store.close()

    asyncio.run(scenario())


def test_the_wal_is_checkpointed_into_the_database_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The event loop's connection never checkpoints; the group commit's thread does, every few commits."""
    monkeypatch.setattr(sqlite_sync, "CHECKPOINT_EVERY", 4)
    monkeypatch.setattr(sqlite_sync, "RESTART_FRAMES", 1)
    path = tmp_path / "s.db"

    async def scenario() -> None:
        store = SQLiteStore(path)
        await store.save("s0", record(), 0)  # the worker creates the file; the loop's saves follow
        for i in range(1, 10):
            await store.save(f"s{i}", record(), 0)
        # ``immutable`` reads the database file alone, never the WAL: what a checkpoint copied there
        with sqlite3.connect(f"file:{path}?immutable=1", uri=True) as conn:
            stored = conn.execute("SELECT COUNT(*) FROM slotgraph_sessions").fetchone()[0]
        conn.close()
        assert stored >= 4
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


def test_a_turn_is_six_statements(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Lease with the load (one transaction: take or take over the lease in one upsert, read the record),
    the save (one compare-and-set statement) and the release: six statements on the loop's connection."""
    traces = _traced_connections(monkeypatch)

    async def scenario() -> list[str]:
        store = SQLiteStore(tmp_path / "s.db")
        await store.save("s", record(), 0)
        async with store.lock("s"):  # the loop's connection opens on the first operation that uses it
            pass
        marks = [len(trace) for trace in traces]
        async with store.lock("s"):
            found = await store.load("s")
            assert found is not None
            await store.save("s", found[0], found[1])
        turn = [s for trace, mark in zip(traces, marks, strict=True) for s in trace[mark:]]
        await store.close()
        return turn

    turn = asyncio.run(scenario())
    kinds = [" ".join(statement.split()[:3]) for statement in turn]
    assert kinds == [
        "BEGIN IMMEDIATE",
        "INSERT INTO slotgraph_locks",
        "SELECT payload, version",
        "COMMIT",
        "UPDATE slotgraph_sessions SET",
        "DELETE FROM slotgraph_locks",
    ], turn
    assert _stored_version(tmp_path / "s.db", "s") == 2


def test_a_lapsed_lease_is_taken_over_and_a_live_one_is_not(tmp_path: Path) -> None:
    """The lease's upsert takes a free or expired lease row and leaves a live one alone."""

    async def scenario() -> None:
        store = SQLiteStore(tmp_path / "s.db", lock_timeout=0.05)
        await store.save("s", record(), 0)
        with sqlite3.connect(tmp_path / "s.db") as conn:  # another holder's live lease
            conn.execute("INSERT INTO slotgraph_locks VALUES ('s', 'theirs', ?)", (time.time() + 60,))
        conn.close()
        with pytest.raises(StoreLockTimeoutError):
            async with store.lock("s"):
                pass
        with sqlite3.connect(tmp_path / "s.db") as conn:  # ... which lapses (its holder died)
            conn.execute("UPDATE slotgraph_locks SET expires_at = ? WHERE id = 's'", (time.time() - 1,))
        conn.close()
        async with store.lock("s"):
            with sqlite3.connect(tmp_path / "s.db") as conn:
                (token,) = conn.execute("SELECT token FROM slotgraph_locks WHERE id = 's'").fetchone()
            conn.close()
            assert token != "theirs"
        await store.close()

    asyncio.run(scenario())


def test_a_stale_save_of_a_new_or_a_deleted_session_conflicts(tmp_path: Path) -> None:
    """Saving version 0 over a stored session, or version N over a deleted one, conflicts and names the
    stored version (the single-statement compare-and-set reads it only then)."""

    async def scenario() -> None:
        store = SQLiteStore(tmp_path / "s.db")
        assert await store.save("s", record(), 0) == 1
        with pytest.raises(StoreConflictError, match="stored version is 1"):
            await store.save("s", record(), 0)
        assert await store.delete("s")
        with pytest.raises(StoreConflictError, match="stored version is 0"):
            await store.save("s", record(), 1)
        assert await store.save("s", record(), 0) == 1
        await store.close()

    asyncio.run(scenario())
