"""Session persistence: memory, SQLite (the embedded default), Redis, PostgreSQL — chosen by URL.

>>> store = open_store("sqlite:///var/lib/app/sessions.db")   # no I/O yet: connects on first use
>>> session = agent.session(session_id="c-42", store=store)   # doctest: +SKIP

This package sits below the runtime: it stores plain JSON records and knows nothing of what is in them.
Three protocols, each its own module: :class:`~slotgraph.stores.protocol.SessionStore` (load/save with
versions, delete, list, a per-session lock, close), :class:`~slotgraph.stores.ledger.ExecutionLedger`
(idempotency keys of side effects; every store here keeps one beside its sessions) and
:class:`~slotgraph.stores.runs.RunStore` (workflow runs). :class:`~slotgraph.stores.memory.InMemoryStore` is
the reference implementation; every store saves a versioned payload (:mod:`~slotgraph.stores.codec`,
:mod:`~slotgraph.stores.migrations`). See ``docs/stores.md``.

The names below are imported on first use, so the runtime's import of one module (the protocol, the
in-memory store) does not load every backend.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS: dict[str, str] = {
    "CURRENT_SCHEMA": "slotgraph.stores.migrations",
    "MIGRATIONS": "slotgraph.stores.migrations",
    "upgrade": "slotgraph.stores.migrations",
    "DEFAULT_SQLITE_PATH": "slotgraph.stores.sqlite_store",
    "SQLiteStore": "slotgraph.stores.sqlite_store",
    "DEFAULT_STORE_URL": "slotgraph.stores.urls",
    "SCHEMES": "slotgraph.stores.urls",
    "open_store": "slotgraph.stores.urls",
    "InMemoryStore": "slotgraph.stores.memory",
    "PostgresStore": "slotgraph.stores.postgres_store",
    "RedisStore": "slotgraph.stores.redis_store",
    "SessionStore": "slotgraph.stores.protocol",
    "ExecutionLedger": "slotgraph.stores.ledger",
    "RunStore": "slotgraph.stores.runs",
    "decode_payload": "slotgraph.stores.codec",
    "encode_payload": "slotgraph.stores.codec",
    **dict.fromkeys(
        (
            "LedgerError",
            "StoreConfigError",
            "StoreConflictError",
            "StoreError",
            "StoreLockTimeoutError",
            "StorePayloadError",
        ),
        "slotgraph.stores.errors",
    ),
}

__all__ = [
    "CURRENT_SCHEMA",
    "DEFAULT_SQLITE_PATH",
    "DEFAULT_STORE_URL",
    "MIGRATIONS",
    "SCHEMES",
    "ExecutionLedger",
    "InMemoryStore",
    "LedgerError",
    "PostgresStore",
    "RedisStore",
    "RunStore",
    "SQLiteStore",
    "SessionStore",
    "StoreConfigError",
    "StoreConflictError",
    "StoreError",
    "StoreLockTimeoutError",
    "StorePayloadError",
    "decode_payload",
    "encode_payload",
    "open_store",
    "upgrade",
]

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from slotgraph.stores.codec import decode_payload, encode_payload
    from slotgraph.stores.errors import (
        LedgerError,
        StoreConfigError,
        StoreConflictError,
        StoreError,
        StoreLockTimeoutError,
        StorePayloadError,
    )
    from slotgraph.stores.ledger import ExecutionLedger
    from slotgraph.stores.memory import InMemoryStore
    from slotgraph.stores.migrations import CURRENT_SCHEMA, MIGRATIONS, upgrade
    from slotgraph.stores.postgres_store import PostgresStore
    from slotgraph.stores.protocol import SessionStore
    from slotgraph.stores.redis_store import RedisStore
    from slotgraph.stores.runs import RunStore
    from slotgraph.stores.sqlite_store import DEFAULT_SQLITE_PATH, SQLiteStore
    from slotgraph.stores.urls import DEFAULT_STORE_URL, SCHEMES, open_store


def __dir__() -> list[str]:
    return sorted({*__all__, *(n for n in globals() if n.startswith("__") and n.endswith("__"))})


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'slotgraph.stores' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
