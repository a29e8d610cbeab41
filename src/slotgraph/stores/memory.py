"""The in-memory store: the reference implementation of the store protocols, for one process.

:class:`InMemoryStore` keeps each record as the same JSON payload a durable store writes
(:mod:`slotgraph.stores.codec`), so a record that a durable store would refuse (a value JSON cannot carry)
is refused here too, and what a caller gets back is never shared with what the store keeps. Its lock is
process-local (:class:`LocalLocks`); its ledger is a :class:`~slotgraph.stores.ledger.MemoryLedger`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from slotgraph.stores.codec import decode_payload, encode_payload
from slotgraph.stores.errors import StoreConflictError, StoreLockTimeoutError, conflict_message
from slotgraph.stores.ledger import JSON, LedgerEntry, MemoryLedger, Reservation
from slotgraph.stores.protocol import DEFAULT_LOCK_TIMEOUT

__all__ = ["InMemoryStore", "LocalLocks"]

WHERE = "memory://"


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
                if users == 0:  # nobody holds or waits: taken at once, even with a zero timeout
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


class InMemoryStore:
    """Records in a dict owned by this object; the lock is process-local. It is also an
    :class:`~slotgraph.stores.ledger.ExecutionLedger`."""

    def __init__(self, *, lock_timeout: float = DEFAULT_LOCK_TIMEOUT) -> None:
        self._records: dict[str, tuple[str, int]] = {}
        self._locks = LocalLocks(lock_timeout)
        self._ledger = MemoryLedger()

    def __repr__(self) -> str:
        return "InMemoryStore()"

    async def load(self, session_id: str) -> tuple[dict[str, Any], int] | None:
        found = self._records.get(session_id)
        if found is None:
            return None
        return decode_payload(found[0], session_id=session_id, where=WHERE), found[1]

    async def save(self, session_id: str, record: dict[str, Any], expected_version: int) -> int:
        payload = encode_payload(session_id, record)
        current = self._records.get(session_id, ("", 0))[1]
        if current != expected_version:
            raise StoreConflictError(conflict_message(session_id, current, expected_version))
        self._records[session_id] = (payload, current + 1)
        return current + 1

    async def delete(self, session_id: str) -> bool:
        self._ledger.forget_scope(session_id)
        return self._records.pop(session_id, None) is not None

    async def list_sessions(self) -> list[str]:
        return sorted(self._records)

    def lock(self, session_id: str) -> AbstractAsyncContextManager[None]:
        return self._locks.hold(session_id)

    async def close(self) -> None:
        return None

    # --- the execution ledger -------------------------------------------------------------------------

    async def reserve(self, scope: str, key: str, fingerprint: str) -> Reservation:
        return await self._ledger.reserve(scope, key, fingerprint)

    async def complete(self, scope: str, key: str, result: JSON) -> None:
        await self._ledger.complete(scope, key, result)

    async def release(self, scope: str, key: str) -> None:
        await self._ledger.release(scope, key)

    async def lookup(self, scope: str, key: str) -> LedgerEntry | None:
        return await self._ledger.lookup(scope, key)
