"""Session persistence: memory, SQLite (the embedded default), Redis, PostgreSQL — chosen by URL.

>>> store = open_store("sqlite:///var/lib/app/sessions.db")   # no I/O yet: connects on first use
>>> session = agent.session(session_id="c-42", store=store)   # doctest: +SKIP

Every store implements :class:`~slotgraph.runtime.store.SessionStore` (load/save with versions, delete,
list/count, a per-session lock, close) and saves a versioned payload (:mod:`~slotgraph.stores.codec`,
:mod:`~slotgraph.stores.migrations`). See ``docs/stores.md``.
"""

from __future__ import annotations

from slotgraph.runtime.errors import (
    StoreConfigError,
    StoreConflictError,
    StoreError,
    StoreLockTimeoutError,
    StorePayloadError,
)
from slotgraph.runtime.store import InMemoryStore, SessionStore, UnlockingSave
from slotgraph.stores.codec import decode_payload, encode_payload, message_from_json, message_to_json
from slotgraph.stores.migrations import CURRENT_SCHEMA, MIGRATIONS, upgrade
from slotgraph.stores.postgres_store import PostgresStore
from slotgraph.stores.redis_store import RedisStore
from slotgraph.stores.sqlite_store import DEFAULT_SQLITE_PATH, SQLiteStore
from slotgraph.stores.urls import DEFAULT_STORE_URL, SCHEMES, open_store

__all__ = [
    "CURRENT_SCHEMA",
    "DEFAULT_SQLITE_PATH",
    "DEFAULT_STORE_URL",
    "MIGRATIONS",
    "SCHEMES",
    "InMemoryStore",
    "PostgresStore",
    "RedisStore",
    "SQLiteStore",
    "SessionStore",
    "StoreConfigError",
    "StoreConflictError",
    "StoreError",
    "StoreLockTimeoutError",
    "StorePayloadError",
    "UnlockingSave",
    "decode_payload",
    "encode_payload",
    "message_from_json",
    "message_to_json",
    "open_store",
    "upgrade",
]
