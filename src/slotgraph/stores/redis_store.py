"""The Redis store: sessions shared by several server processes, through ``redis.asyncio``.

Keys (``prefix`` defaults to ``slotgraph:``): ``{prefix}session:{id}`` is a hash ``{version, payload}``,
``{prefix}sessions`` a set of the ids (for listing), ``{prefix}lock:{id}`` the lock,
``{prefix}ledger:{scope}`` a hash of the execution ledger's entries of one scope (key -> entry JSON).

* A save is one Lua script — compare the version, write, index — so it is atomic on the server, with no
  WATCH/MULTI round trips to retry.
* Connections come from a blocking pool of ``pool_size`` (50): a burst of turns waits for a connection
  (up to ``pool_timeout``, 30 s) instead of failing with "too many connections".
* The lock is ``SET lock token NX PX ttl`` — in one script with reading the session, which the turn loads
  next (nobody else writes it while the lock is held), so taking the lock and loading is one round trip; it
  is renewed (``PEXPIRE`` if the token still matches) every
  ``ttl / 3`` while held and released by a script that deletes it only if the token matches; a crashed
  holder's lock expires after ``lock_ttl`` seconds (see :mod:`slotgraph.stores.leases`).
* A save under this store's lock of the session (a turn's last write) frees the lock in the same script:
  the lock is deleted, if it still carries the token, atomically with the write, so a turn is two round
  trips (lock and read, save and unlock), not three.

The client connects lazily on first use. Like every asyncio network client it belongs to the event loop it
first connected on: use one store per event loop (a server has one loop; ``Session.send`` runs every sync
call on one long-lived loop of its own). The driver is imported only when the store is
used: ``pip install 'slotgraph[redis]'``.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from slotgraph.redaction import redact_url
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
    entry_from_json,
    entry_to_json,
    ledger_result,
    never_reserved,
    reservation_for,
)
from slotgraph.stores.loops import on_loop
from slotgraph.stores.memory import LocalLocks
from slotgraph.stores.protocol import DEFAULT_LOCK_TIMEOUT

__all__ = ["RedisStore"]

_WRITE = """
local current = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if current ~= tonumber(ARGV[1]) then return {0, current} end
redis.call('HSET', KEYS[1], 'version', current + 1, 'payload', ARGV[2])
redis.call('SADD', KEYS[2], ARGV[3])
"""
_SAVE = _WRITE + "return {1, current + 1}\n"
_SAVE_UNLOCK = (  # the save, then the lock (KEYS[3]) deleted if it still carries the holder's token (ARGV[4])
    _WRITE + "if redis.call('GET', KEYS[3]) == ARGV[4] then redis.call('DEL', KEYS[3]) end\n"
    "return {1, current + 1}\n"
)
_DELETE = """
local gone = redis.call('DEL', KEYS[1])
redis.call('SREM', KEYS[2], ARGV[1])
redis.call('DEL', KEYS[3])
return gone
"""
_RESERVE = """
local created = redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
return {created, redis.call('HGET', KEYS[1], ARGV[1])}
"""
_COMPLETE = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
"""
_RELEASE_KEY = """
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0
"""
_LOCK = """
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return {1, redis.call('HMGET', KEYS[2], 'version', 'payload')}
end
return {0}
"""
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


REDIS_POOL_SIZE = 50
"""Connections a store keeps to Redis; more concurrent operations wait (up to ``pool_timeout``) for one."""


class RedisStore:
    """Sessions in Redis. ``url`` is a redis-py URL (``redis://host:port/db``, ``rediss://``, ``unix://``)."""

    def __init__(
        self,
        url: str = "redis://localhost:6379/0",
        *,
        prefix: str = "slotgraph:",
        lock_ttl: float = DEFAULT_LOCK_TTL,
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
        pool_size: int = REDIS_POOL_SIZE,
        pool_timeout: float = 30.0,
    ) -> None:
        self.url = url
        self.pool_size = pool_size
        self.pool_timeout = pool_timeout
        self.prefix = prefix
        self.lock_ttl = lock_ttl
        self.lock_timeout = lock_timeout
        self.where = redact_url(url)
        self._locks = LocalLocks(lock_timeout)
        self._client: Any = None
        self._pool: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closed = False
        self._prefetched: dict[str, tuple[str, int] | None] = {}
        """Per session whose lock this store just took: the stored payload and version read by the same
        script (None: no record), handed to the next ``load`` of that session (no second round trip)."""
        self._held: dict[str, tuple[HeldLease, str, str]] = {}
        """Per session whose lock this store holds: the lease, the lock's key and token (a save frees it)."""

    def __repr__(self) -> str:
        return f"RedisStore({self.where!r}, prefix={self.prefix!r})"

    async def _redis(self) -> Any:
        if self._closed:
            raise StoreError(f"{self.where}: the store was closed; open a new one with open_store()")
        loop = asyncio.get_running_loop()
        if self._client is not None:
            if loop is not self._loop:
                raise StoreError(
                    f"{self.where}: this store connected on another event loop; use one store per event loop "
                    "(with Session objects, call `await session.asend(...)`, not `session.send(...)`)"
                )
            return self._client
        try:
            import redis.asyncio as aioredis
        except ImportError:
            raise StoreConfigError(
                "the Redis store needs the redis driver: pip install 'slotgraph[redis]'"
            ) from None
        try:  # a blocking pool: a burst of turns waits for a connection instead of failing
            pool = aioredis.BlockingConnectionPool.from_url(
                self.url, max_connections=self.pool_size, timeout=self.pool_timeout, decode_responses=True
            )
        except ValueError as problem:
            raise StoreConfigError(f"{self.where}: not a usable Redis URL ({problem})") from None
        client = aioredis.Redis(connection_pool=pool)
        self._client, self._loop, self._pool = client, loop, pool
        self._scripts = {
            name: client.register_script(body)
            for name, body in (
                ("save", _SAVE),
                ("save_unlock", _SAVE_UNLOCK),
                ("delete", _DELETE),
                ("lock", _LOCK),
                ("renew", _RENEW),
                ("release", _RELEASE),
                ("reserve", _RESERVE),
                ("complete", _COMPLETE),
                ("release_key", _RELEASE_KEY),
            )
        }
        return client

    async def _call(self, op: str, *args: Any, **kwargs: Any) -> Any:
        client = await self._redis()
        try:
            return await getattr(client, op)(*args, **kwargs)
        except Exception as problem:
            raise _unavailable(self.where, problem) from problem

    async def _script(self, name: str, keys: list[str], args: list[Any]) -> Any:
        await self._redis()
        try:
            return await self._scripts[name](keys=keys, args=args)
        except Exception as problem:
            raise _unavailable(self.where, problem) from problem

    def _key(self, session_id: str) -> str:
        return f"{self.prefix}session:{session_id}"

    @property
    def _index(self) -> str:
        return f"{self.prefix}sessions"

    async def load(self, session_id: str) -> tuple[dict[str, Any], int] | None:
        if session_id in self._prefetched:  # read when this store took the session's lock (see lock)
            found = self._prefetched.pop(session_id)
        else:
            found = _stored(await self._call("hmget", self._key(session_id), ["version", "payload"]))
        if found is None:
            return None
        return decode_payload(found[0], session_id=session_id, where=self.where), found[1]

    async def save(self, session_id: str, record: dict[str, Any], expected_version: int) -> int:
        """The compare-and-set as one script; under this store's lock of the session the same script frees
        the lock (the turn's last write under it)."""
        self._prefetched.pop(session_id, None)
        payload = encode_payload(session_id, record)
        held = self._held.get(session_id)
        if held is None:
            done, version = await self._script(
                "save", [self._key(session_id), self._index], [expected_version, payload, session_id]
            )
        else:
            lease, key, token = held
            await lease.before_final_write()
            done, version = await self._script(
                "save_unlock",
                [self._key(session_id), self._index, key],
                [expected_version, payload, session_id, token],
            )
            if done:
                lease.mark_released()
        if not done:  # nothing written (a lock held stays held: the block's exit releases it)
            raise StoreConflictError(conflict_message(session_id, int(version), expected_version))
        return int(version)

    async def delete(self, session_id: str) -> bool:
        self._prefetched.pop(session_id, None)
        keys = [self._key(session_id), self._index, self._ledger(session_id)]
        return bool(await self._script("delete", keys, [session_id]))

    async def list_sessions(self) -> list[str]:
        return sorted(await self._call("smembers", self._index))

    # --- the execution ledger (slotgraph.stores.ledger): a hash per scope, one field per key --------

    def _ledger(self, scope: str) -> str:
        return f"{self.prefix}ledger:{scope}"

    async def reserve(self, scope: str, key: str, fingerprint: str) -> Reservation:
        entry = LedgerEntry(key, fingerprint, "pending", None, time.time())
        created, stored = await self._script("reserve", [self._ledger(scope)], [key, entry_to_json(entry)])
        if created:
            return Reservation("new", entry)
        return reservation_for(entry_from_json(stored, where=self.where), fingerprint)

    async def complete(self, scope: str, key: str, result: JSON) -> None:
        text = ledger_result(scope, key, result)
        found = await self.lookup(scope, key)
        if found is None:
            raise never_reserved(scope, key)
        done = LedgerEntry(key, found.fingerprint, "done", json.loads(text), found.created_at)
        if not await self._script("complete", [self._ledger(scope)], [key, entry_to_json(done)]):
            raise never_reserved(scope, key)

    async def release(self, scope: str, key: str) -> None:
        found = await self._call("hget", self._ledger(scope), key)
        if found is None or entry_from_json(found, where=self.where).status != "pending":
            return
        await self._script("release_key", [self._ledger(scope)], [key, found])  # only if still that entry

    async def lookup(self, scope: str, key: str) -> LedgerEntry | None:
        found = await self._call("hget", self._ledger(scope), key)
        return None if found is None else entry_from_json(found, where=self.where)

    def lock(self, session_id: str) -> AbstractAsyncContextManager[None]:
        return self._hold(session_id)

    @asynccontextmanager
    async def _hold(self, session_id: str) -> AsyncIterator[None]:
        key, token, ttl_ms = f"{self.prefix}lock:{session_id}", new_token(), max(1, int(self.lock_ttl * 1000))

        async def try_acquire() -> bool:  # takes the lock and reads the session in one round trip
            reply = await self._script("lock", [key, self._key(session_id)], [token, ttl_ms])
            if not reply or not reply[0]:
                return False
            self._prefetched[session_id] = _stored(reply[1])
            return True

        async def renew() -> bool:
            return bool(await self._script("renew", [key], [token, ttl_ms]))

        async def release() -> None:
            await self._script("release", [key], [token])

        async with hold_session_lease(
            self._locks,
            session_id,
            what=f"session {session_id!r} in {self.where}",
            try_acquire=try_acquire,
            renew=renew,
            release=release,
            ttl=self.lock_ttl,
            timeout=self.lock_timeout,
            on_exit=lambda: self._prefetched.pop(session_id, None),
        ) as lease:
            self._held[session_id] = (lease, key, token)
            try:
                yield
            finally:
                self._held.pop(session_id, None)

    async def close(self) -> None:
        """Close the connections, from any event loop (see :mod:`slotgraph.stores.loops`)."""
        self._closed = True
        client, pool, loop = self._client, self._pool, self._loop
        self._client = self._pool = self._loop = None

        async def disconnect() -> None:
            if client is not None:
                await client.aclose()
            if pool is not None:
                await pool.disconnect()

        await on_loop(loop, disconnect())


def _stored(fields: Any) -> tuple[str, int] | None:
    """``(payload, version)`` from an ``HMGET version payload`` reply, or None when there is no record."""
    version, payload = fields
    if version is None or payload is None:
        return None
    return str(payload), int(version)


def _unavailable(where: str, problem: Exception) -> StoreError:
    return StoreError(
        f"{where}: the Redis server failed or cannot be reached ({type(problem).__name__}: {problem}); is it "
        "running, and is the host/port/db in the URL right?"
    )
