"""What only the SQLite store does: the file, its directory, WAL mode, format guard, and lock leases."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path

import pytest

from slotgraph.stores import (
    SQLiteStore,
    StoreConfigError,
    StoreConflictError,
    StoreLockTimeoutError,
    open_store,
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
            await store.list_sessions()
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
    """Lease, load, save (which frees the lease): one commit that syncs the disk per turn — the save's; the
    lease's own writes commit without a sync and reach the disk with it."""
    traces = _traced_connections(monkeypatch)  # one per connection: ``synchronous`` is a setting of each

    def durable() -> int:
        return sum(_durable_commits(trace) for trace in traces)

    async def scenario() -> None:
        store = SQLiteStore(tmp_path / "s.db")
        await store.save("s", record(), 0)
        for _ in range(3):
            before, marks = durable(), [len(trace) for trace in traces]
            async with store.lock("s"):
                found = await store.load("s")
                assert found is not None
                await store.save("s", found[0], found[1])
            turn = [s for trace, mark in zip(traces, marks, strict=True) for s in trace[mark:]]
            assert durable() - before == 1, turn
            assert any("INTO slotgraph_locks" in s for s in turn), "the lease was taken"
        assert len(traces) == 1, "one connection, on the store's thread"
        await store.close()
        with sqlite3.connect(tmp_path / "s.db") as conn:  # the saves are there, the leases released
            assert conn.execute("SELECT version FROM slotgraph_sessions").fetchone()[0] == 4
            assert conn.execute("SELECT COUNT(*) FROM slotgraph_locks").fetchone()[0] == 0

    asyncio.run(scenario())


def _stored_version(path: Path, session_id: str) -> int | None:
    with sqlite3.connect(path) as conn:
        row = conn.execute("SELECT version FROM slotgraph_sessions WHERE id = ?", (session_id,)).fetchone()
    conn.close()
    return None if row is None else int(row[0])


def test_a_turn_is_the_lease_the_read_and_one_saving_transaction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lease (one upsert: take or take over), the read, and one transaction holding the save (one
    compare-and-set statement) and the lease's release."""
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
    kinds = [" ".join(statement.split()[:3]) for statement in turn if not statement.startswith("PRAGMA")]
    assert kinds == [
        "INSERT INTO slotgraph_locks",
        "SELECT payload, version",
        "BEGIN IMMEDIATE",
        "UPDATE slotgraph_sessions SET",
        "DELETE FROM slotgraph_locks",
        "COMMIT",
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
