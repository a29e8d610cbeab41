"""Direct access to what a durable store wrote, bypassing the store: to plant old, newer or damaged payloads
and to check what was (or was not) written. The store must have been used once (its tables exist)."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class RawAccess:
    put: Callable[[str, str, int], None]
    """Write ``payload`` text at ``version`` for a session id."""
    get: Callable[[str], str | None]
    """The payload text stored for a session id, or None."""

    @classmethod
    def sqlite(cls, path: Path) -> RawAccess:
        def put(session_id: str, payload: str, version: int) -> None:
            with contextlib.closing(sqlite3.connect(path)) as conn, conn:
                conn.execute(
                    "INSERT OR REPLACE INTO slotgraph_sessions (id, version, payload, updated_at) "
                    "VALUES (?, ?, ?, 0)",
                    (session_id, version, payload),
                )

        def get(session_id: str) -> str | None:
            with contextlib.closing(sqlite3.connect(path)) as conn:
                row = conn.execute(
                    "SELECT payload FROM slotgraph_sessions WHERE id = ?", (session_id,)
                ).fetchone()
            return None if row is None else str(row[0])

        return cls(put, get)

    @classmethod
    def redis(cls, url: str, prefix: str) -> RawAccess:
        import redis

        def put(session_id: str, payload: str, version: int) -> None:
            with redis.Redis.from_url(url) as client:
                client.hset(f"{prefix}session:{session_id}", mapping={"version": version, "payload": payload})
                client.sadd(f"{prefix}sessions", session_id)

        def get(session_id: str) -> str | None:
            with redis.Redis.from_url(url, decode_responses=True) as client:
                value = client.hget(f"{prefix}session:{session_id}", "payload")
            return None if value is None else str(value)

        return cls(put, get)

    @classmethod
    def postgres(cls, url: str) -> RawAccess:
        import psycopg

        def put(session_id: str, payload: str, version: int) -> None:
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute(
                    "INSERT INTO slotgraph_sessions (id, version, payload) VALUES (%s, %s, %s) "
                    "ON CONFLICT (id) DO UPDATE SET version = excluded.version, payload = excluded.payload",
                    (session_id, version, payload),
                )

        def get(session_id: str) -> str | None:
            with psycopg.connect(url) as conn:
                row = conn.execute(
                    "SELECT payload FROM slotgraph_sessions WHERE id = %s", (session_id,)
                ).fetchone()
            return None if row is None else str(row[0])

        return cls(put, get)
