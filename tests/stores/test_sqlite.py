"""What only the SQLite store does: the file, its directory, WAL mode, format guard, and lock leases."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

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
    """Lease, load, save, release: only the save is a durable commit (one fsync per turn, not three)."""
    statements: list[str] = []
    connect = sqlite3.connect

    def traced(*args: object, **kwargs: object) -> sqlite3.Connection:
        conn = connect(*args, **kwargs)  # type: ignore[arg-type]
        conn.set_trace_callback(statements.append)
        return conn

    monkeypatch.setattr(sqlite3, "connect", traced)

    async def scenario() -> None:
        store = SQLiteStore(tmp_path / "s.db")
        await store.save("s", record(), 0)
        for _ in range(3):
            start = len(statements)
            async with store.lock("s"):
                found = await store.load("s")
                assert found is not None
                await store.save("s", found[0], found[1])
            turn = statements[start:]
            assert _durable_commits(statements) - _durable_commits(statements[:start]) == 1, turn
            assert any("INTO slotgraph_locks" in s for s in turn), "the lease was taken"
        await store.close()
        with sqlite3.connect(tmp_path / "s.db") as conn:  # the saves are there, the leases released
            assert conn.execute("SELECT version FROM slotgraph_sessions").fetchone()[0] == 4
            assert conn.execute("SELECT COUNT(*) FROM slotgraph_locks").fetchone()[0] == 0

    asyncio.run(scenario())
