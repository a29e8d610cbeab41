"""Errors of the session stores, the execution ledger and the run stores.

Hierarchy (every class carries a stable ``code`` and inherits :class:`slotgraph.errors.SlotgraphError`)::

    StoreError                        a store failed; the message says what, where and how to fix it
    ├── StoreConflictError            a store's version moved under a save (another writer won)
    ├── StoreLockTimeoutError         a session's lock was not free within the store's lock timeout
    ├── StorePayloadError             a stored payload is corrupted, or from a newer schema
    ├── LedgerError                   the execution ledger was misused or holds a damaged entry
    └── StoreConfigError              a store URL / path / driver / server cannot be used

They live with the stores, below the runtime and the workflows, which both raise and catch them;
``slotgraph.runtime`` re-exports them.
"""

from __future__ import annotations

from slotgraph.errors import SlotgraphError

__all__ = [
    "LedgerError",
    "StoreConfigError",
    "StoreConflictError",
    "StoreError",
    "StoreLockTimeoutError",
    "StorePayloadError",
    "conflict_message",
]


class StoreError(SlotgraphError):
    """A session store could not do what was asked; the message says what, where and how to fix it."""

    code = "store_error"


class StoreConflictError(StoreError):
    """A session was saved concurrently: the stored version is not the one this turn started from."""

    code = "store_conflict"


class StoreLockTimeoutError(StoreError):
    """Another turn of the same session held its lock for longer than the store's lock timeout."""

    code = "store_lock_timeout"


class StorePayloadError(StoreError):
    """A stored payload cannot be read: corrupted JSON, a wrong shape, or a schema newer than this code.

    The payload is left in the store untouched.
    """

    code = "store_payload_error"


class LedgerError(StoreError):
    """The execution ledger was used wrongly (completing a key never reserved, a result JSON cannot carry),
    or one of its entries is damaged."""

    code = "ledger_error"


class StoreConfigError(StoreError, ValueError):
    """A store URL, file path, driver or server cannot be used (an unknown scheme, a missing driver, ...)."""

    code = "store_config_error"


def conflict_message(session_id: str, stored: int, expected: int) -> str:
    return (
        f"session {session_id!r}: stored version is {stored}, this turn started from {expected} — another "
        "turn of the same session was saved first (was it played without the session's lock?); nothing "
        "was overwritten: reload the session and send again"
    )
