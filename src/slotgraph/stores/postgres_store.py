"""The PostgreSQL store: sessions shared by several server processes, through ``psycopg`` 3 (async).

One table, created on first use (under a transaction-level advisory lock, so processes starting together
do not race)::

    slotgraph_sessions(id text primary key, version bigint, payload text, updated_at timestamptz)

and, beside it, the execution ledger (:mod:`slotgraph.stores.ledger`)::

    slotgraph_ledger(scope text, key text, fingerprint text, status text, result text, created_at float8)

The payload is kept as ``text`` — the exact JSON the codec wrote, checked by the codec on load — rather than
``jsonb``, so a damaged row is reported, never silently normalised.

* A save is a single statement: ``INSERT ... ON CONFLICT DO NOTHING`` for a new session,
  ``UPDATE ... WHERE id = $1 AND version = $expected`` otherwise; no row back means a conflict.
* The per-session lock is ``pg_advisory_lock`` on a 64-bit hash of the session id, held on a dedicated
  connection for the duration of the turn (``lock_timeout`` bounds the wait). The server releases it when the
  connection ends — on release, or at once when a crashed holder's socket closes: no TTL to wait out.
* Taking the lock reads the session in the same round trip (a pipeline: the lock's timeout, the lock, the
  read, which the server runs in that order), handed to the turn's ``load``, as the SQLite and Redis stores
  do.
* A save under this store's lock of the session (a turn's last write) frees the lock in the same statement,
  run on the lock's own connection: it takes the same
  key at transaction level (``pg_advisory_xact_lock``: the holder's second request succeeds at once), writes,
  and drops the session-level hold only when the write matched. The transaction-level hold ends with the
  statement's commit, so another process waiting for the session gets it only once the save is visible; a
  conflict writes nothing and keeps the lock. A turn is two round trips (lock and read, save and unlock), all
  on the lock's connection.

Connections come from two ``psycopg_pool`` pools, so a burst of turns *waits* for a connection instead of
opening one each (and failing at the server's ``max_connections``): ``pool_size`` (10) connections for
statements, each held for one statement, and ``lock_pool_size`` (50) connections holding session locks,
each held for one turn. Separate pools mean turns holding locks can never starve the statements they need.
A turn waits for a lock connection within its ``lock_timeout``; a statement waits up to ``pool_timeout``
(30 s). The pools open lazily on first use and belong to that event loop (see
:mod:`slotgraph.stores.redis_store` for what that means for ``Session.send``). The driver is imported only
when the store is used: ``pip install 'slotgraph[postgres]'``.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager, nullcontext
from typing import Any

from slotgraph.redaction import redact_url
from slotgraph.stores.codec import decode_payload, encode_payload
from slotgraph.stores.errors import (
    StoreConfigError,
    StoreConflictError,
    StoreError,
    StoreLockTimeoutError,
    conflict_message,
)
from slotgraph.stores.leases import finish_in_background
from slotgraph.stores.ledger import (
    JSON,
    LedgerEntry,
    Reservation,
    entry_from_row,
    ledger_result,
    never_reserved,
    reservation_for,
)
from slotgraph.stores.loops import on_loop
from slotgraph.stores.memory import LocalLocks
from slotgraph.stores.protocol import DEFAULT_LOCK_TIMEOUT

__all__ = ["PostgresStore", "advisory_key"]

_DDL = """
CREATE TABLE IF NOT EXISTS slotgraph_sessions (
    id text PRIMARY KEY,
    version bigint NOT NULL,
    payload text NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
)
"""
_DDL_LEDGER = """
CREATE TABLE IF NOT EXISTS slotgraph_ledger (
    scope text NOT NULL,
    key text NOT NULL,
    fingerprint text NOT NULL,
    status text NOT NULL,
    result text,
    created_at double precision NOT NULL,
    PRIMARY KEY (scope, key)
)
"""
_READ = "SELECT version, payload FROM slotgraph_sessions WHERE id = %(id)s"
_INSERT = (
    "INSERT INTO slotgraph_sessions (id, version, payload) VALUES (%(id)s, 1, %(payload)s) "
    "ON CONFLICT (id) DO NOTHING RETURNING version"
)
"""A new session's save: no row back when the session exists (a conflict)."""
_UPDATE = (
    "UPDATE slotgraph_sessions SET version = version + 1, payload = %(payload)s, updated_at = now() "
    "WHERE id = %(id)s AND version = %(expected)s RETURNING version"
)
"""A later save, only from the expected version: no row back on a conflict."""
_AND_UNLOCK = (
    "WITH held AS (SELECT pg_advisory_xact_lock(%(key)s)), saved AS ({write}) "
    "SELECT saved.version, pg_advisory_unlock(%(key)s) FROM saved, held"
)
"""A save (``write``: :data:`_INSERT` or :data:`_UPDATE`) on the connection that holds the session's advisory
lock: the same key taken at transaction level first, so the lock stays held until the write commits; the
session-level hold is dropped only for a row written (no row back: a conflict, the lock still held)."""
_INSERT_AND_UNLOCK = _AND_UNLOCK.format(write=_INSERT)
_UPDATE_AND_UNLOCK = _AND_UNLOCK.format(write=_UPDATE)
_DDL_LOCK = 0x51_07_67_72  # any constant: serialises CREATE TABLE between processes starting together
DEFAULT_POOL_SIZE = 10
"""Connections for loads, saves and ledger writes (each held for one statement)."""
DEFAULT_LOCK_POOL_SIZE = 50
"""Connections holding session locks (each held for one turn): how many turns run at once per process."""
DEFAULT_POOL_TIMEOUT = 30.0
"""Seconds an operation waits for a pooled connection before it fails."""


class _HeldLock:
    """A session lock this store holds: the pooled connection holding it, its key, whether the turn's save
    freed it already."""

    __slots__ = ("conn", "key", "released")

    def __init__(self, conn: Any, key: int) -> None:
        self.conn, self.key, self.released = conn, key, False


def advisory_key(session_id: str) -> int:
    """The signed 64-bit advisory-lock key of a session (collisions only serialise two sessions)."""
    digest = hashlib.blake2b(f"slotgraph:{session_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


class PostgresStore:
    """Sessions in PostgreSQL. ``url`` is a libpq URL: ``postgresql://user:password@host:port/db``."""

    def __init__(
        self,
        url: str,
        *,
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
        pool_size: int = DEFAULT_POOL_SIZE,
        lock_pool_size: int = DEFAULT_LOCK_POOL_SIZE,
        pool_timeout: float = DEFAULT_POOL_TIMEOUT,
    ) -> None:
        self.url = url
        self.lock_timeout = lock_timeout
        self.pool_size = pool_size
        self.lock_pool_size = lock_pool_size
        self.pool_timeout = pool_timeout
        self.where = redact_url(url)
        self._locks = LocalLocks(lock_timeout)
        self._pools: tuple[Any, Any] | None = None
        """(queries, locks): two pools, so turns holding locks can never starve the queries they need."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._opening: asyncio.Lock | None = None
        self._closed = False
        self._held: dict[str, _HeldLock] = {}
        """Per session whose lock this store holds: its connection and key (a save frees the lock)."""
        self._prefetched: dict[str, tuple[str, int] | None] = {}
        """Per session whose lock this store just took: the stored payload and version read in the same
        round trip (None: no record), handed to the next ``load`` of that session."""

    def __repr__(self) -> str:
        return f"PostgresStore({self.where!r})"

    async def _open_pools(self) -> tuple[Any, Any]:
        try:
            import psycopg
            from psycopg_pool import AsyncConnectionPool
        except ImportError:
            raise StoreConfigError(
                "the PostgreSQL store needs psycopg and psycopg_pool: pip install 'slotgraph[postgres]'"
            ) from None
        try:  # one direct connection first: a bad URL or an unreachable server is reported as such
            conn = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
        except psycopg.ProgrammingError as problem:
            raise StoreConfigError(f"{self.where}: not a usable PostgreSQL URL ({problem})") from None
        except psycopg.Error as problem:
            raise _unavailable(self.where, problem) from None
        try:
            async with conn.transaction():
                await conn.execute("SELECT pg_advisory_xact_lock(%s)", (_DDL_LOCK,))
                await conn.execute(_DDL)
                await conn.execute(_DDL_LEDGER)
        except Exception as problem:
            raise _unavailable(self.where, problem) from None
        finally:
            await conn.close()
        pools = []
        for size, name in ((self.pool_size, "queries"), (self.lock_pool_size, "locks")):
            pool = AsyncConnectionPool(
                self.url,
                kwargs={"autocommit": True},
                min_size=0 if name == "locks" else 1,
                max_size=size,
                timeout=self.pool_timeout,
                open=False,
                name=f"slotgraph-{name}",
            )
            await pool.open()
            pools.append(pool)
        return pools[0], pools[1]

    async def _pool_pair(self) -> tuple[Any, Any]:
        if self._closed:
            raise StoreError(f"{self.where}: the store was closed; open a new one with open_store()")
        loop = asyncio.get_running_loop()
        if self._loop is not None and loop is not self._loop:
            raise StoreError(
                f"{self.where}: this store connected on another event loop; use one store per event loop "
                "(with Session objects, call `await session.asend(...)`, not `session.send(...)`)"
            )
        if self._pools is not None:
            return self._pools
        if self._opening is None:
            self._opening = asyncio.Lock()
        async with self._opening:  # concurrent first uses open the pools once
            if self._pools is None:
                self._pools = await self._open_pools()
                self._loop = loop
        return self._pools

    async def _fetch(self, sql: str, params: tuple[Any, ...] | Mapping[str, Any]) -> list[tuple[Any, ...]]:
        queries, _ = await self._pool_pair()
        try:
            async with queries.connection() as conn:  # waits (up to pool_timeout) when all are busy
                cursor = await conn.execute(sql, params)
                return list(await cursor.fetchall()) if cursor.description else []
        except Exception as problem:
            raise _unavailable(self.where, problem) from problem

    async def load(self, session_id: str) -> tuple[dict[str, Any], int] | None:
        if session_id in self._prefetched:  # read when this store took the session's lock (see lock)
            found = self._prefetched.pop(session_id)
            if found is None:
                return None
            payload, version = found
        else:
            rows = await self._fetch(_READ, {"id": session_id})
            if not rows:
                return None
            version, payload = rows[0]
        return decode_payload(payload, session_id=session_id, where=self.where), int(version)

    async def save(self, session_id: str, record: dict[str, Any], expected_version: int) -> int:
        """The compare-and-set as one statement; under this store's lock of the session it runs on the
        lock's connection and frees the lock with the write (the turn's last write under it)."""
        self._prefetched.pop(session_id, None)
        payload = encode_payload(session_id, record)
        params = {"id": session_id, "payload": payload, "expected": expected_version}
        held = self._held.get(session_id)
        if held is None:
            rows = await self._fetch(_INSERT if expected_version == 0 else _UPDATE, params)
        else:
            statement = _INSERT_AND_UNLOCK if expected_version == 0 else _UPDATE_AND_UNLOCK
            try:
                cursor = await held.conn.execute(statement, {**params, "key": held.key})
                rows = await cursor.fetchall()
            except Exception as problem:
                raise _unavailable(self.where, problem) from problem
            held.released = bool(rows)
        if not rows:  # nothing written (a lock held stays held: the block's exit releases it)
            raise await self._conflict(session_id, expected_version)
        return int(rows[0][0])

    async def _conflict(self, session_id: str, expected_version: int) -> StoreConflictError:
        current = await self._fetch("SELECT version FROM slotgraph_sessions WHERE id = %s", (session_id,))
        return StoreConflictError(
            conflict_message(session_id, int(current[0][0]) if current else 0, expected_version)
        )

    async def delete(self, session_id: str) -> bool:
        self._prefetched.pop(session_id, None)
        await self._fetch("DELETE FROM slotgraph_ledger WHERE scope = %s", (session_id,))
        return bool(
            await self._fetch("DELETE FROM slotgraph_sessions WHERE id = %s RETURNING id", (session_id,))
        )

    # --- the execution ledger (slotgraph.stores.ledger): one row per key ---------------------------

    async def reserve(self, scope: str, key: str, fingerprint: str) -> Reservation:
        now = time.time()
        rows = await self._fetch(
            "INSERT INTO slotgraph_ledger (scope, key, fingerprint, status, result, created_at) "
            "VALUES (%s, %s, %s, 'pending', NULL, %s) ON CONFLICT (scope, key) DO NOTHING RETURNING key",
            (scope, key, fingerprint, now),
        )
        if rows:
            return Reservation("new", LedgerEntry(key, fingerprint, "pending", None, now))
        found = await self.lookup(scope, key)
        if found is None:  # released between the insert and the read: try once more
            return await self.reserve(scope, key, fingerprint)
        return reservation_for(found, fingerprint)

    async def complete(self, scope: str, key: str, result: JSON) -> None:
        text = ledger_result(scope, key, result)
        rows = await self._fetch(
            "UPDATE slotgraph_ledger SET status = 'done', result = %s WHERE scope = %s AND key = %s "
            "RETURNING key",
            (text, scope, key),
        )
        if not rows:
            raise never_reserved(scope, key)

    async def release(self, scope: str, key: str) -> None:
        await self._fetch(
            "DELETE FROM slotgraph_ledger WHERE scope = %s AND key = %s AND status = 'pending'", (scope, key)
        )

    async def lookup(self, scope: str, key: str) -> LedgerEntry | None:
        rows = await self._fetch(
            "SELECT fingerprint, status, result, created_at FROM slotgraph_ledger "
            "WHERE scope = %s AND key = %s",
            (scope, key),
        )
        return entry_from_row(self.where, scope, key, rows[0]) if rows else None

    async def list_sessions(self) -> list[str]:
        return [row[0] for row in await self._fetch("SELECT id FROM slotgraph_sessions ORDER BY id", ())]

    def lock(self, session_id: str) -> AbstractAsyncContextManager[None]:
        return self._hold(session_id)

    @asynccontextmanager
    async def _hold(self, session_id: str) -> AsyncIterator[None]:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.lock_timeout
        async with self._locks.hold(session_id):
            _, locks = await self._pool_pair()
            key = advisory_key(session_id)
            try:  # a dedicated pooled connection holds the advisory lock for the turn
                conn = await locks.getconn(timeout=self.pool_timeout)
            except Exception as problem:
                if type(problem).__name__ == "PoolTimeout":
                    raise StoreError(
                        f"{self.where}: all {self.lock_pool_size} lock connections stayed busy for "
                        f"{self.pool_timeout:g}s (that many turns were running); raise lock_pool_size or "
                        "pool_timeout in the store URL, or add server processes"
                    ) from None
                raise _unavailable(self.where, problem) from problem
            wait_ms = max(
                1, int((deadline - loop.time()) * 1000)
            )  # 0 would mean "wait forever" to PostgreSQL
            try:
                read, found = await self._lock_and_read(conn, session_id, key, wait_ms)
            except BaseException as problem:
                await finish_in_background(self._discard(locks, conn))
                if _is_lock_timeout(problem):
                    raise self._busy(session_id) from None
                if isinstance(problem, Exception):
                    raise _unavailable(self.where, problem) from problem
                raise
            held = self._held[session_id] = _HeldLock(conn, key)
            if read:
                self._prefetched[session_id] = found
            try:
                yield
            finally:
                del self._held[session_id]
                self._prefetched.pop(session_id, None)
                if held.released:  # freed by the turn's save: the connection goes back as it is
                    await finish_in_background(locks.putconn(conn))
                else:
                    await finish_in_background(self._release(locks, conn, key))

    async def _lock_and_read(
        self, conn: Any, session_id: str, key: int, wait_ms: int
    ) -> tuple[bool, tuple[str, int] | None]:
        """Take the session's advisory lock on ``conn`` (waiting at most ``wait_ms``) and read the session in
        the same round trip — one pipeline: the lock's timeout, the lock, then the read, run in that order by
        the server, so the read sees what the previous holder saved. ``(True, (payload, version))``, ``(True,
        None)`` for no record, ``(False, None)`` where libpq has no pipeline mode (then two round trips, and
        the turn's load reads through the statement pool)."""
        import psycopg

        pipelined = psycopg.Pipeline.is_supported()
        async with conn.pipeline() if pipelined else nullcontext():
            await conn.execute("SELECT set_config('lock_timeout', %s, false)", (f"{wait_ms}ms",))
            await conn.execute("SELECT pg_advisory_lock(%s)", (key,))
            read = await conn.execute(_READ, {"id": session_id}) if pipelined else None
        if read is None:
            return False, None
        rows = await read.fetchall()
        if not rows:
            return True, None
        version, payload = rows[0]
        return True, (str(payload), int(version))

    def _busy(self, session_id: str) -> StoreLockTimeoutError:
        return StoreLockTimeoutError(
            f"session {session_id!r} in {self.where} is busy: another turn (maybe in another process) held "
            f"its lock for more than {self.lock_timeout:g}s; retry later, or raise lock_timeout in the URL"
        )

    async def _release(self, pool: Any, conn: Any, key: int) -> None:
        try:
            await conn.execute("SELECT pg_advisory_unlock(%s)", (key,))
        except BaseException:
            await self._discard(pool, conn)  # ending the connection releases its advisory locks
            raise
        await pool.putconn(conn)

    async def _discard(self, pool: Any, conn: Any) -> None:
        await conn.close()
        await pool.putconn(conn)  # the pool drops a closed connection and opens another when needed

    async def close(self) -> None:
        """Close the pools, from any event loop (see :mod:`slotgraph.stores.loops`)."""
        self._closed = True
        pools, loop = self._pools, self._loop
        self._pools, self._loop, self._opening = None, None, None

        async def close_pools() -> None:
            for pool in pools or ():
                await pool.close()

        await on_loop(loop, close_pools())


def _is_lock_timeout(problem: BaseException) -> bool:
    return getattr(problem, "sqlstate", None) == "55P03"  # lock_not_available


def _unavailable(where: str, problem: Exception) -> StoreError:
    return StoreError(
        f"{where}: the PostgreSQL server failed or cannot be reached ({type(problem).__name__}: {problem}); "
        "is it running, and are the host, port, user and database in the URL right?"
    )
