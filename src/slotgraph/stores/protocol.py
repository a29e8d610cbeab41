"""The session-store protocol: what a store must do for the runtime and the server.

A store keeps one JSON record per session — a plain dict of JSON values, written and read by the runtime
(:class:`~slotgraph.runtime.durable_record.DurableRecord`); the store never looks inside it — with a version
that starts at 0 (absent) and grows by one with every save. Writing a store is implementing these six
methods; :class:`~slotgraph.stores.memory.InMemoryStore` is the reference implementation, and every store
of this package also keeps an :class:`~slotgraph.stores.ledger.ExecutionLedger` in the same database.

Two mechanisms, one per failure mode:

* ``lock(session_id)`` serialises the turns of one session: the runtime holds it around load → turn → save,
  so two messages for one session arriving together are played one after the other and neither is lost.
  Durable stores hold the lock *in the store* (so it holds across processes).
* ``save(..., expected_version)`` is a compare-and-set: a writer that did not take the lock (or whose lock
  expired) can never overwrite a newer record — it gets :class:`~slotgraph.stores.errors.StoreConflictError`.
  A save made while this store holds the session's lock is the turn's last write under it: a store may
  free the lock in the same atomic write (Redis, PostgreSQL and SQLite do), and leaving the ``async with``
  block then releases nothing more.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol, runtime_checkable

__all__ = ["DEFAULT_LOCK_TIMEOUT", "SessionStore"]

DEFAULT_LOCK_TIMEOUT = 60.0
"""Seconds a turn waits for another turn of the same session before a lock timeout."""


@runtime_checkable
class SessionStore(Protocol):
    """Where sessions live between turns."""

    async def load(self, session_id: str) -> tuple[dict[str, Any], int] | None:
        """The stored record and its version, or None for a new session."""
        ...

    async def save(self, session_id: str, record: dict[str, Any], expected_version: int) -> int:
        """Store ``record`` if the stored version is ``expected_version``; return the new version.

        Raises :class:`~slotgraph.stores.errors.StoreConflictError` when another writer saved first (nothing
        is written), :class:`~slotgraph.stores.errors.StorePayloadError` when the record is not JSON. Made
        while this store holds the session's lock, it may free the lock with the same write."""
        ...

    async def delete(self, session_id: str) -> bool:
        """Forget a session (and its ledger entries); True if it existed."""
        ...

    async def list_sessions(self) -> list[str]:
        """The ids of the stored sessions, sorted."""
        ...

    def lock(self, session_id: str) -> AbstractAsyncContextManager[None]:
        """Hold the session's lock for the ``async with`` block (waits for another holder, bounded).

        Raises :class:`~slotgraph.stores.errors.StoreLockTimeoutError` when the wait exceeds the store's
        lock timeout.
        """
        ...

    async def close(self) -> None:
        """Release connections and threads; the store is not used afterwards."""
        ...
