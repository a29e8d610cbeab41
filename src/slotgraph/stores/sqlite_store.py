"""The SQLite store: the embedded default, one file, safe for several processes sharing it.

Built on the standard library's :mod:`sqlite3` (no extra dependency; ``aiosqlite`` would only add a thread
wrapper of the same module). The file is opened lazily, on first use, in WAL mode (readers never block the
writer); missing parent directories are created.

**One connection, on a thread of its own.** Every operation runs on the store's worker thread, so the event
loop never waits for the file or the disk. A write that must be durable when it returns — a save, a delete,
the ledger's writes — commits with ``synchronous=FULL``; taking, renewing and releasing the per-session
lease commit with ``synchronous=NORMAL``: they are atomic and visible to every process at once and reach
the disk with the next durable commit. A lease lost to a power cut is harmless (its holder is gone too); a
release lost to one leaves the lease until its ``lock_ttl`` runs out. So a turn (lease, load, save) syncs
the disk once, for its save. The connection waits up to ``busy_timeout`` for another writer (another
process sharing the file).

A save is one statement, atomic by itself: an ``UPDATE`` of the row only while it still has the expected
version (an ``INSERT ... ON CONFLICT DO NOTHING`` for a new session), so two processes cannot interleave
between the check and the write; only a conflict reads the stored version, for its message. Under this
store's lease of the session, the save deletes the lease in the same transaction (the turn's last write
under it). Taking the lease is one ``INSERT ... ON CONFLICT DO UPDATE ... WHERE expires_at <= now`` (a free
or lapsed lease becomes the caller's, a live one is left alone), and the record is read on the same trip
to the worker thread (the next ``load`` of that session gets it, as Redis and PostgreSQL read it with their
lock). The per-session lock is that lease row in
``slotgraph_locks`` (see :mod:`slotgraph.stores.leases`), taken after a process-local :class:`asyncio.Lock`,
so tasks of one process queue in memory and only the head of the queue polls the file.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from slotgraph.stores.codec import decode_payload, encode_payload
from slotgraph.stores.errors import (
    StoreConfigError,
    StoreConflictError,
    StoreError,
    conflict_message,
)
from slotgraph.stores.leases import DEFAULT_LOCK_TTL, HeldLease, hold_session_lease, new_token
from slotgraph.stores.ledger import (
    JSON,
    LedgerEntry,
    Reservation,
    entry_from_row,
    ledger_result,
    never_reserved,
    reservation_for,
)
from slotgraph.stores.memory import LocalLocks
from slotgraph.stores.protocol import DEFAULT_LOCK_TIMEOUT

__all__ = ["DEFAULT_SQLITE_PATH", "SQLiteStore"]

DEFAULT_SQLITE_PATH = Path(".slotgraph") / "sessions.db"
"""Where ``sqlite://`` (no path) keeps sessions, relative to the working directory."""

_T = TypeVar("_T")
_BUSY = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})
"""Primary result codes of a file held by another writer (extended codes are these in their low byte)."""
_FILE_FORMAT = 2
"""``PRAGMA user_version`` of the tables below; a file with a higher one was written by a newer slotgraph.
Format 2 added ``slotgraph_ledger`` (created in a format-1 file when it is opened)."""
_DDL = (
    "CREATE TABLE IF NOT EXISTS slotgraph_sessions ("
    " id TEXT PRIMARY KEY, version INTEGER NOT NULL, payload TEXT NOT NULL, updated_at REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS slotgraph_locks ("
    " id TEXT PRIMARY KEY, token TEXT NOT NULL, expires_at REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS slotgraph_ledger ("
    " scope TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL, status TEXT NOT NULL,"
    " result TEXT, created_at REAL NOT NULL, PRIMARY KEY (scope, key))",
)


class SQLiteStore:
    """Sessions in an SQLite file. ``lock_ttl``: seconds a crashed holder's lock outlives it."""

    def __init__(
        self,
        path: str | Path = DEFAULT_SQLITE_PATH,
        *,
        lock_ttl: float = DEFAULT_LOCK_TTL,
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
        busy_timeout: float = 30.0,
    ) -> None:
        self.path = Path(path)
        self.lock_ttl = lock_ttl
        self.lock_timeout = lock_timeout
        self.busy_timeout = busy_timeout
        self.where = f"sqlite:///{self.path}" if self.path.is_absolute() else f"sqlite://{self.path}"
        self._locks = LocalLocks(lock_timeout)
        self._executor: ThreadPoolExecutor | None = None
        self._conn: sqlite3.Connection | None = None
        self._closed = False
        self._durable: bool | None = None
        """The connection's current ``synchronous`` setting: FULL (True) or NORMAL (False); None: not set."""
        self._held: dict[str, tuple[HeldLease, str]] = {}
        """Per session whose lease this store holds: the lease and its token (a save frees it)."""
        self._prefetched: dict[str, tuple[str, int] | None] = {}
        """Per session whose lease this store just took: the stored payload and version, read on the same
        trip to the worker thread (None: no record), handed to the next ``load`` of that session."""

    def __repr__(self) -> str:
        return f"SQLiteStore({str(self.path)!r})"

    # --- the worker thread ---------------------------------------------------------------------------

    def _closed_error(self) -> StoreError:
        return StoreError(f"{self.where}: the store was closed; open a new one with open_store()")

    async def _run(self, fn: Callable[..., _T], *args: Any) -> _T:
        if self._closed:
            raise self._closed_error()
        if self._executor is None:
            self._executor = ThreadPoolExecutor(1, thread_name_prefix="slotgraph-sqlite")
        return await asyncio.get_running_loop().run_in_executor(self._executor, partial(fn, *args))

    async def _durably(self, fn: Callable[..., _T], *args: Any) -> _T:
        """Run the write ``fn(conn, *args)`` (one transaction or statement) so that it is on disk when this
        returns."""
        return await self._run(lambda: fn(self._sync(durable=True), *args))

    async def _quickly(self, fn: Callable[..., _T], *args: Any) -> _T:
        """Run ``fn(conn, *args)`` with a commit that does not sync the disk by itself (see the module
        docstring): reads and the lease's own writes."""
        return await self._run(lambda: fn(self._sync(durable=False), *args))

    @staticmethod
    def _row(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...]) -> Any:
        """The first row of a query (or None), its statement finished at once: an unfinished one would hold a
        read snapshot of the WAL open on the connection."""
        cursor = conn.execute(sql, params)
        try:
            return cursor.fetchone()
        finally:
            cursor.close()

    @staticmethod
    def _in_transaction(conn: sqlite3.Connection, body: Callable[[sqlite3.Connection], _T]) -> _T:
        """``body`` in one ``BEGIN IMMEDIATE`` transaction on ``conn`` (rolled back if it raises)."""
        conn.execute("BEGIN IMMEDIATE")
        try:
            out = body(conn)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return out

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            self._conn = self._connect()
        return self._conn

    def _connect(self) -> sqlite3.Connection:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as problem:
            raise StoreConfigError(
                f"{self.where}: cannot create the directory {str(self.path.parent)!r} ({problem}); "
                "choose a writable path, e.g. sqlite:///tmp/sessions.db"
            ) from None
        conn: sqlite3.Connection | None = None
        try:
            conn = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=self.busy_timeout
            )
            self._wal_mode(conn)
            conn.execute("BEGIN IMMEDIATE")
            try:
                found = int(conn.execute("PRAGMA user_version").fetchone()[0])
                if found > _FILE_FORMAT:
                    raise StoreConfigError(
                        f"{self.where}: the file has table format {found}, written by a newer slotgraph "
                        f"(this one knows up to {_FILE_FORMAT}); upgrade slotgraph — the file was not changed"
                    )
                for statement in _DDL:
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {_FILE_FORMAT}")
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        except sqlite3.Error as problem:
            if conn is not None:
                conn.close()
            raise StoreConfigError(
                f"{self.where}: cannot open the session database ({problem}); is the path a writable "
                "SQLite file (not a directory, not another kind of file)? Point the URL at another file to "
                "start fresh"
            ) from None
        except BaseException:
            if conn is not None:
                conn.close()
            raise
        return conn

    def _wal_mode(self, conn: sqlite3.Connection) -> None:
        """Put the file in WAL mode (it stays so). Changing the journal mode does not wait for a busy file,
        so a file in WAL mode already (another store or process uses it) is left alone, and a switch that
        meets a busy file is tried again until ``busy_timeout``."""
        deadline = time.monotonic() + self.busy_timeout
        while True:
            try:
                if str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower() != "wal":
                    conn.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as problem:
                busy = getattr(problem, "sqlite_errorcode", 0) & 0xFF in _BUSY
                if not busy or time.monotonic() >= deadline:
                    raise
                time.sleep(0.005)  # on the worker thread: the event loop goes on

    def _sync(self, durable: bool) -> sqlite3.Connection:
        """The connection, set to sync the disk on commit (``durable``) or not (see the module docstring)."""
        conn = self._db()
        if self._durable is not durable:
            conn.execute("PRAGMA synchronous=FULL" if durable else "PRAGMA synchronous=NORMAL")
            self._durable = durable
        return conn

    # --- records -------------------------------------------------------------------------------------

    def _load(self, conn: sqlite3.Connection, session_id: str) -> tuple[str, int] | None:
        row = self._row(conn, "SELECT payload, version FROM slotgraph_sessions WHERE id = ?", (session_id,))
        return (str(row[0]), int(row[1])) if row is not None else None

    def _save(self, conn: sqlite3.Connection, session_id: str, payload: str, expected: int) -> int:
        """The compare-and-set as one statement (atomic by itself): an ``UPDATE`` of the row still at
        ``expected``, or for a new session (``expected`` 0) an ``INSERT`` that does nothing when the row
        exists. Only a conflict reads the stored version, for its message."""
        if expected == 0:
            cursor = conn.execute(
                "INSERT INTO slotgraph_sessions (id, version, payload, updated_at) VALUES (?, 1, ?, ?) "
                "ON CONFLICT (id) DO NOTHING",
                (session_id, payload, time.time()),
            )
        else:
            cursor = conn.execute(
                "UPDATE slotgraph_sessions SET version = ?, payload = ?, updated_at = ? "
                "WHERE id = ? AND version = ?",
                (expected + 1, payload, time.time(), session_id, expected),
            )
        if cursor.rowcount == 1:
            return expected + 1
        row = self._row(conn, "SELECT version FROM slotgraph_sessions WHERE id = ?", (session_id,))
        raise StoreConflictError(conflict_message(session_id, int(row[0]) if row else 0, expected))

    def _delete(self, conn: sqlite3.Connection, session_id: str) -> bool:
        def body(conn: sqlite3.Connection) -> bool:
            conn.execute("DELETE FROM slotgraph_ledger WHERE scope = ?", (session_id,))
            return conn.execute("DELETE FROM slotgraph_sessions WHERE id = ?", (session_id,)).rowcount > 0

        return self._in_transaction(conn, body)

    def _list(self) -> list[str]:
        return [r[0] for r in self._db().execute("SELECT id FROM slotgraph_sessions ORDER BY id")]

    async def load(self, session_id: str) -> tuple[dict[str, Any], int] | None:
        if session_id in self._prefetched:  # read when this store took the session's lease (see lock)
            found = self._prefetched.pop(session_id)
        else:
            found = await self._quickly(self._load, session_id)
        if found is None:
            return None
        return decode_payload(found[0], session_id=session_id, where=self.where), found[1]

    async def save(self, session_id: str, record: dict[str, Any], expected_version: int) -> int:
        """The compare-and-set; under this store's lease of the session the same transaction frees it."""
        if self._closed:
            raise self._closed_error()
        self._prefetched.pop(session_id, None)
        payload = encode_payload(session_id, record)
        held = self._held.get(session_id)
        if held is None:
            return await self._durably(self._save, session_id, payload, expected_version)
        lease, token = held
        await lease.before_final_write()

        def save_and_unlock(conn: sqlite3.Connection) -> int:
            version = self._save(conn, session_id, payload, expected_version)
            self._unlock(conn, session_id, token)
            return version

        version: int = await self._durably(self._in_transaction, save_and_unlock)
        lease.mark_released()
        return version

    async def delete(self, session_id: str) -> bool:
        self._prefetched.pop(session_id, None)
        return await self._durably(self._delete, session_id)

    async def list_sessions(self) -> list[str]:
        return await self._run(self._list)

    # --- the execution ledger (slotgraph.stores.ledger): one durable row per key -------------------

    def _entry(self, conn: sqlite3.Connection, scope: str, key: str) -> LedgerEntry | None:
        row = self._row(
            conn,
            "SELECT fingerprint, status, result, created_at FROM slotgraph_ledger "
            "WHERE scope = ? AND key = ?",
            (scope, key),
        )
        return None if row is None else entry_from_row(self.where, scope, key, tuple(row))

    def _reserve(self, conn: sqlite3.Connection, scope: str, key: str, fingerprint: str) -> Reservation:
        def body(conn: sqlite3.Connection) -> Reservation:
            found = self._entry(conn, scope, key)
            if found is not None:
                return reservation_for(found, fingerprint)
            now = time.time()
            conn.execute(
                "INSERT INTO slotgraph_ledger (scope, key, fingerprint, status, result, created_at) "
                "VALUES (?, ?, ?, 'pending', NULL, ?)",
                (scope, key, fingerprint, now),
            )
            return Reservation("new", LedgerEntry(key, fingerprint, "pending", None, now))

        return self._in_transaction(conn, body)

    def _complete(self, conn: sqlite3.Connection, scope: str, key: str, text: str) -> None:
        def body(conn: sqlite3.Connection) -> None:
            cursor = conn.execute(
                "UPDATE slotgraph_ledger SET status = 'done', result = ? WHERE scope = ? AND key = ?",
                (text, scope, key),
            )
            if cursor.rowcount != 1:
                raise never_reserved(scope, key)

        self._in_transaction(conn, body)

    @staticmethod
    def _release(conn: sqlite3.Connection, scope: str, key: str) -> None:
        conn.execute(
            "DELETE FROM slotgraph_ledger WHERE scope = ? AND key = ? AND status = 'pending'", (scope, key)
        )

    async def reserve(self, scope: str, key: str, fingerprint: str) -> Reservation:
        return await self._durably(self._reserve, scope, key, fingerprint)  # on disk before the dispatch

    async def complete(self, scope: str, key: str, result: JSON) -> None:
        await self._durably(self._complete, scope, key, ledger_result(scope, key, result))

    async def release(self, scope: str, key: str) -> None:
        await self._durably(self._release, scope, key)

    async def lookup(self, scope: str, key: str) -> LedgerEntry | None:
        return await self._quickly(self._entry, scope, key)

    # --- the per-session lock ------------------------------------------------------------------------

    def _try_lock(self, conn: sqlite3.Connection, session_id: str, token: str) -> bool:
        """Take the lease if it is free or lapsed (a live one is left alone)."""
        now = time.time()
        cursor = conn.execute(
            "INSERT INTO slotgraph_locks (id, token, expires_at) VALUES (?, ?, ?) "
            "ON CONFLICT (id) DO UPDATE SET token = excluded.token, expires_at = excluded.expires_at "
            "WHERE slotgraph_locks.expires_at <= ?",
            (session_id, token, now + self.lock_ttl, now),
        )
        return cursor.rowcount == 1

    def _lock_and_read(
        self, conn: sqlite3.Connection, session_id: str, token: str
    ) -> tuple[bool, tuple[str, int] | None]:
        """Take the lease as :meth:`_try_lock` does and, when it is taken, read the session's record."""
        if not self._try_lock(conn, session_id, token):
            return False, None
        return True, self._load(conn, session_id)

    def _renew_lock(self, conn: sqlite3.Connection, session_id: str, token: str) -> bool:
        cursor = conn.execute(
            "UPDATE slotgraph_locks SET expires_at = ? WHERE id = ? AND token = ?",
            (time.time() + self.lock_ttl, session_id, token),
        )
        return cursor.rowcount == 1

    def _unlock(self, conn: sqlite3.Connection, session_id: str, token: str) -> None:
        conn.execute("DELETE FROM slotgraph_locks WHERE id = ? AND token = ?", (session_id, token))

    def lock(self, session_id: str) -> AbstractAsyncContextManager[None]:
        return self._hold(session_id)

    @asynccontextmanager
    async def _hold(self, session_id: str) -> AsyncIterator[None]:
        token = new_token()

        async def try_acquire() -> bool:
            taken, found = await self._quickly(self._lock_and_read, session_id, token)
            if taken:
                self._prefetched[session_id] = found
            return taken

        async def renew() -> bool:
            return await self._quickly(self._renew_lock, session_id, token)

        async def release() -> None:
            await self._quickly(self._unlock, session_id, token)

        async with hold_session_lease(
            self._locks,
            session_id,
            what=f"session {session_id!r} in {self.where}",
            try_acquire=try_acquire,
            renew=renew,
            release=release,
            ttl=self.lock_ttl,
            timeout=self.lock_timeout,
            on_exit=lambda: self._forget(session_id),
        ) as lease:
            self._held[session_id] = (lease, token)
            yield

    def _forget(self, session_id: str) -> None:
        """The lease's block ended: nothing held or read under it is kept."""
        self._held.pop(session_id, None)
        self._prefetched.pop(session_id, None)

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        executor, self._executor = self._executor, None
        if executor is None:
            return
        conn, self._conn, self._durable = self._conn, None, None
        if conn is not None:
            await asyncio.get_running_loop().run_in_executor(executor, conn.close)
        executor.shutdown(wait=True)
