"""The session-store seam: load a session with its version, save only if the version did not move, lock it.

A record is a plain dict — ``{"sm": ..., "history": [...], "ended": bool, "turns": int, ...}``, written and
read by :class:`~slotgraph.runtime.durable_record.DurableRecord` only — and versions start at 0 (absent).
:class:`SessionStore` is the whole protocol the runtime and the server use; durable implementations
(SQLite, Redis, PostgreSQL) live in :mod:`slotgraph.stores` and are chosen by URL with
:func:`slotgraph.stores.open_store`. :class:`InMemoryStore` is the reference implementation.

Two mechanisms, one per failure mode:

* ``lock(session_id)`` serialises the turns of one session: the runtime holds it around load → turn → save,
  so two messages for one session arriving together are played one after the other and neither is lost.
  Durable stores hold the lock *in the store* (so it holds across processes); the memory store holds a
  process-local :class:`asyncio.Lock` (:class:`LocalLocks`).
* ``save(..., expected_version)`` is a compare-and-set: a writer that did not take the lock (or whose lock
  expired) can never overwrite a newer record — it gets :class:`~slotgraph.runtime.errors.StoreConflictError`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, Protocol, TypeGuard, runtime_checkable

from slotgraph.runtime.errors import StoreConflictError, StoreLockTimeoutError
from slotgraph.runtime.ledger import JSON, LedgerEntry, MemoryLedger, Reservation
from slotgraph.runtime.state_copy import copy_state

__all__ = [
    "DEFAULT_LOCK_TIMEOUT",
    "InMemoryStore",
    "LocalLocks",
    "SessionStore",
    "UnlockingSave",
    "conflict_message",
    "saves_and_unlocks",
]

DEFAULT_LOCK_TIMEOUT = 60.0
"""Seconds a turn waits for another turn of the same session before :class:`StoreLockTimeoutError`."""


@runtime_checkable
class SessionStore(Protocol):
    """Where sessions live between turns."""

    async def load(self, session_id: str) -> tuple[dict[str, Any], int] | None:
        """The stored record and its version, or None for a new session."""
        ...

    async def save(self, session_id: str, record: dict[str, Any], expected_version: int) -> int:
        """Store ``record`` if the stored version is ``expected_version``; return the new version.

        Raises :class:`~slotgraph.runtime.errors.StoreConflictError` when another writer saved first.
        """
        ...

    async def delete(self, session_id: str) -> bool:
        """Forget a session; True if it existed."""
        ...

    async def list_sessions(self) -> list[str]:
        """The ids of the stored sessions, sorted."""
        ...

    async def count(self) -> int:
        """How many sessions are stored."""
        ...

    def lock(self, session_id: str) -> AbstractAsyncContextManager[None]:
        """Hold the session's lock for the ``async with`` block (waits for another holder, bounded).

        Raises :class:`~slotgraph.runtime.errors.StoreLockTimeoutError` when the wait exceeds the store's
        lock timeout.
        """
        ...

    async def close(self) -> None:
        """Release connections and threads; the store is not used afterwards."""
        ...


@runtime_checkable
class UnlockingSave(Protocol):
    """A store whose save can also free the session's lock it holds, in the same atomic write: a turn ends
    with one round trip instead of two (the Redis and PostgreSQL stores). The runtime uses it for a turn's
    save, the last write under the lock; a store without it gets ``save`` and then the lock's release."""

    async def save_and_unlock(self, session_id: str, record: dict[str, Any], expected_version: int) -> int:
        """:meth:`SessionStore.save` as the last write under ``lock(session_id)`` held by this store: when the
        save succeeds the lock is freed with it, and leaving the ``async with`` block releases nothing more.
        On a conflict nothing is written and the lock stays held until the block ends. Outside such a hold
        it is a plain save."""
        ...


_UNLOCKING_TYPES: dict[type, bool] = {}
"""Per class: whether it defines ``save_and_unlock`` (a protocol ``isinstance`` costs ~6 µs, and the server
builds a session and a bound store per request)."""


def saves_and_unlocks(store: object) -> TypeGuard[UnlockingSave]:
    """``isinstance(store, UnlockingSave)``, decided once per class (an instance may still carry the method
    as an attribute of its own)."""
    kind = type(store)
    known = _UNLOCKING_TYPES.get(kind)
    if known is None:
        known = _UNLOCKING_TYPES[kind] = callable(getattr(kind, "save_and_unlock", None))
    if known:
        return True
    own = getattr(store, "__dict__", None)
    return isinstance(own, dict) and callable(own.get("save_and_unlock"))


def conflict_message(session_id: str, stored: int, expected: int) -> str:
    return (
        f"session {session_id!r}: stored version is {stored}, this turn started from {expected} — another "
        "turn of the same session was saved first (was it played without the session's lock?); nothing "
        "was overwritten: reload the session and send again"
    )


class LocalLocks:
    """Per-session :class:`asyncio.Lock` objects, created on demand and dropped when nobody holds or waits.

    Dropping idle locks keeps memory bounded by the number of *busy* sessions, and means a lock never
    outlives the event loop it was used on.
    """

    def __init__(self, timeout: float = DEFAULT_LOCK_TIMEOUT) -> None:
        self.timeout = timeout
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}

    def busy(self, session_id: str) -> int:
        """How many tasks hold or wait for the session's lock (0 when it is free)."""
        found = self._locks.get(session_id)
        return found[1] if found else 0

    @asynccontextmanager
    async def hold(self, session_id: str, timeout: float | None = None) -> AsyncIterator[None]:
        lock, users = self._locks.get(session_id, (None, 0))
        if lock is None:
            lock = asyncio.Lock()
        self._locks[session_id] = (lock, users + 1)
        try:
            wait = self.timeout if timeout is None else timeout
            try:
                if users == 0:  # nobody else holds or waits: acquire() returns at once (even for a 0 timeout)
                    await lock.acquire()
                else:
                    await asyncio.wait_for(lock.acquire(), wait)
            except TimeoutError:
                raise StoreLockTimeoutError(
                    f"session {session_id!r} is busy: another turn held its lock for more than {wait:g}s; "
                    "retry later, or raise the store's lock_timeout"
                ) from None
            try:
                yield
            finally:
                lock.release()
        finally:
            lock, users = self._locks[session_id]
            if users <= 1:
                del self._locks[session_id]
            else:
                self._locks[session_id] = (lock, users - 1)


def _copy_record(record: dict[str, Any]) -> dict[str, Any]:
    out = {k: copy_state(v) for k, v in record.items() if k != "history"}
    out["history"] = list(record.get("history") or [])
    return out


class InMemoryStore:
    """Records in a dict owned by this object; the lock is process-local. It is also an
    :class:`~slotgraph.runtime.ledger.ExecutionLedger` (a :class:`~slotgraph.runtime.ledger.MemoryLedger`).

    ``sm`` is deep-copied in and out, so callers never share state; ``history`` holds frozen messages and is
    copied shallowly (a new list), which keeps a turn's cost independent of the conversation's length.
    """

    def __init__(self, *, lock_timeout: float = DEFAULT_LOCK_TIMEOUT) -> None:
        self._records: dict[str, tuple[dict[str, Any], int]] = {}
        self._locks = LocalLocks(lock_timeout)
        self._ledger = MemoryLedger()

    async def load(self, session_id: str) -> tuple[dict[str, Any], int] | None:
        found = self._records.get(session_id)
        if found is None:
            return None
        return _copy_record(found[0]), found[1]

    async def save(self, session_id: str, record: dict[str, Any], expected_version: int) -> int:
        current = self._records.get(session_id, (None, 0))[1]
        if current != expected_version:
            raise StoreConflictError(conflict_message(session_id, current, expected_version))
        self._records[session_id] = (_copy_record(record), current + 1)
        return current + 1

    async def delete(self, session_id: str) -> bool:
        self._ledger.forget_scope(session_id)
        return self._records.pop(session_id, None) is not None

    async def list_sessions(self) -> list[str]:
        return sorted(self._records)

    async def count(self) -> int:
        return len(self._records)

    def lock(self, session_id: str) -> AbstractAsyncContextManager[None]:
        return self._locks.hold(session_id)

    async def close(self) -> None:
        return None

    # --- the execution ledger (slotgraph.runtime.ledger) ----------------------------------------------

    async def reserve(self, scope: str, key: str, fingerprint: str) -> Reservation:
        return await self._ledger.reserve(scope, key, fingerprint)

    async def complete(self, scope: str, key: str, result: JSON) -> None:
        await self._ledger.complete(scope, key, result)

    async def release(self, scope: str, key: str) -> None:
        await self._ledger.release(scope, key)

    async def lookup(self, scope: str, key: str) -> LedgerEntry | None:
        return await self._ledger.lookup(scope, key)
