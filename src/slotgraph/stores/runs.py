"""Run storage for workflows, beside session storage: load a run with its version, save by compare-and-set.

A run record is plain JSON (see :mod:`slotgraph.workflow.record`); the store does not interpret it beyond
requiring a mapping. ``save(run_id, record, expected_version)`` writes only when the stored version is
``expected_version`` (0 for a new run) and returns the new version, else raises
:class:`~slotgraph.runtime.errors.StoreConflictError` — so two executors that both picked up one run (a
worker presumed dead that was only slow) can never overwrite each other's progress.

=================================  ===================================================================
``memory://``                      :class:`InMemoryRunStore` (this process only)
``sqlite://path.db``               :class:`~slotgraph.stores.run_sqlite.SQLiteRunStore`
``redis://host:port/db``           :class:`~slotgraph.stores.run_redis.RedisRunStore`
``postgresql://user@host/db``      :class:`~slotgraph.stores.run_postgres.PostgresRunStore`
=================================  ===================================================================

The same URL can name the session store and the run store: they use separate tables and keys.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Protocol, runtime_checkable
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

from slotgraph.stores.errors import StoreConfigError, StoreConflictError, StorePayloadError

__all__ = [
    "DEFAULT_RUN_STORE_URL",
    "InMemoryRunStore",
    "RunStore",
    "decode_run",
    "encode_run",
    "open_run_store",
    "run_conflict_message",
]

DEFAULT_RUN_STORE_URL = "sqlite://"
"""The embedded default: the SQLite file of the session store (``.slotgraph/sessions.db``)."""


@runtime_checkable
class RunStore(Protocol):
    """Where workflow runs live between stages."""

    async def load_run(self, run_id: str) -> tuple[dict[str, Any], int] | None:
        """The stored record and its version, or None when there is no such run."""
        ...

    async def save_run(self, run_id: str, record: dict[str, Any], expected_version: int) -> int:
        """Store ``record`` if the stored version is ``expected_version``; return the new version."""
        ...

    async def list_runs(self, limit: int = 100) -> list[str]:
        """The ids of the most recently saved runs, newest first."""
        ...

    async def close(self) -> None:
        """Release connections; the store is not used afterwards."""
        ...


def run_conflict_message(run_id: str, stored: int, expected: int) -> str:
    return (
        f"run {run_id!r}: stored version is {stored}, this executor started from {expected} — another "
        "executor saved the run first; nothing was overwritten (reload the run to see its progress)"
    )


def encode_run(record: dict[str, Any]) -> str:
    try:
        return json.dumps(record, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as err:
        raise StorePayloadError(f"a run record must be plain JSON ({err})") from None


def decode_run(run_id: str, text: str | bytes) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except (TypeError, ValueError) as err:
        raise StorePayloadError(f"run {run_id!r}: stored record is not JSON ({err})") from None
    if not isinstance(data, dict):
        raise StorePayloadError(f"run {run_id!r}: stored record is {type(data).__name__}, not an object")
    return data


class InMemoryRunStore:
    """Runs in a dict owned by this object (deep-copied in and out)."""

    def __init__(self) -> None:
        self._runs: dict[str, tuple[dict[str, Any], int]] = {}
        self._order: list[str] = []

    async def load_run(self, run_id: str) -> tuple[dict[str, Any], int] | None:
        found = self._runs.get(run_id)
        return (copy.deepcopy(found[0]), found[1]) if found is not None else None

    async def save_run(self, run_id: str, record: dict[str, Any], expected_version: int) -> int:
        current = self._runs.get(run_id, (None, 0))[1]
        if current != expected_version:
            raise StoreConflictError(run_conflict_message(run_id, current, expected_version))
        encode_run(record)  # the same JSON check as the durable stores
        self._runs[run_id] = (copy.deepcopy(record), current + 1)
        if run_id in self._order:
            self._order.remove(run_id)
        self._order.append(run_id)
        return current + 1

    async def list_runs(self, limit: int = 100) -> list[str]:
        return list(reversed(self._order))[:limit]

    async def close(self) -> None:
        return None


def open_run_store(url: str) -> RunStore:
    """The run store ``url`` names (same URL forms as :func:`~slotgraph.stores.open_store`); no I/O yet."""
    if not isinstance(url, str) or "://" not in url:
        raise StoreConfigError(
            f"{url!r} is not a store URL; use memory://, sqlite://path.db, redis://host:6379/0 or "
            "postgresql://user@host/db"
        )
    parts = urlsplit(url.strip())
    scheme = {"postgres": "postgresql", "rediss": "redis"}.get(parts.scheme.lower(), parts.scheme.lower())
    query = dict(parse_qsl(parts.query, keep_blank_values=True))
    if scheme == "memory":
        return InMemoryRunStore()
    if scheme == "sqlite":
        from slotgraph.stores.run_sqlite import SQLiteRunStore
        from slotgraph.stores.sqlite_store import DEFAULT_SQLITE_PATH

        raw = unquote(parts.netloc + parts.path)
        return SQLiteRunStore(Path(raw) if raw else DEFAULT_SQLITE_PATH)
    if scheme == "redis":
        from slotgraph.stores.run_redis import RedisRunStore

        prefix = query.pop("prefix", "slotgraph:")
        query.pop("lock_timeout", None)
        query.pop("lock_ttl", None)
        driver = urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), parts.fragment))
        return RedisRunStore(driver, prefix=prefix)
    if scheme == "postgresql":
        from slotgraph.stores.run_postgres import PostgresRunStore

        query.pop("lock_timeout", None)
        driver = urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), parts.fragment))
        return PostgresRunStore(driver)
    raise StoreConfigError(
        f"unknown store scheme {parts.scheme!r} for runs; use memory, sqlite, redis or postgresql"
    )
