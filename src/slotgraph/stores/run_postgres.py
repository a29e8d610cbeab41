"""Runs in PostgreSQL: table ``slotgraph_runs(id, version, payload text, updated_at)``, created on first use.

A save is one statement: ``INSERT ... ON CONFLICT DO NOTHING`` for a new run, ``UPDATE ... WHERE version =
expected`` otherwise; no row back means another executor saved first. Needs ``pip install
'slotgraph[postgres]'``; the connection opens lazily and belongs to its event loop.
"""

from __future__ import annotations

from typing import Any

from slotgraph.redaction import redact_url
from slotgraph.stores.errors import StoreConfigError, StoreConflictError, StoreError
from slotgraph.stores.runs import decode_run, encode_run, run_conflict_message

__all__ = ["PostgresRunStore"]

_DDL = """
CREATE TABLE IF NOT EXISTS slotgraph_runs (
    id text PRIMARY KEY,
    version bigint NOT NULL,
    payload text NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
)
"""
_DDL_LOCK = 0x51_07_67_73


class PostgresRunStore:
    def __init__(self, url: str) -> None:
        self.url = url
        self.where = redact_url(url)
        self._conn: Any = None

    def __repr__(self) -> str:
        return f"PostgresRunStore({self.where!r})"

    async def _db(self) -> Any:
        if self._conn is not None and not self._conn.closed:
            return self._conn
        try:
            import psycopg
        except ImportError:
            raise StoreConfigError(
                "the PostgreSQL run store needs the psycopg driver: pip install 'slotgraph[postgres]'"
            ) from None
        try:
            conn = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
            async with conn.transaction():
                await conn.execute("SELECT pg_advisory_xact_lock(%s)", (_DDL_LOCK,))
                await conn.execute(_DDL)
        except psycopg.ProgrammingError as problem:
            raise StoreConfigError(f"{self.where}: not a usable PostgreSQL URL ({problem})") from None
        except psycopg.Error as problem:
            raise StoreError(f"{self.where}: PostgreSQL is unavailable ({problem})") from None
        self._conn = conn
        return conn

    async def _fetch(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        conn = await self._db()
        try:
            cursor = await conn.execute(sql, params)
            return list(await cursor.fetchall()) if cursor.description else []
        except Exception as problem:
            raise StoreError(
                f"{self.where}: PostgreSQL failed ({type(problem).__name__}: {problem})"
            ) from None

    async def load_run(self, run_id: str) -> tuple[dict[str, Any], int] | None:
        rows = await self._fetch("SELECT payload, version FROM slotgraph_runs WHERE id = %s", (run_id,))
        return (decode_run(run_id, rows[0][0]), int(rows[0][1])) if rows else None

    async def save_run(self, run_id: str, record: dict[str, Any], expected_version: int) -> int:
        text = encode_run(record)
        if expected_version == 0:
            rows = await self._fetch(
                "INSERT INTO slotgraph_runs (id, version, payload) VALUES (%s, 1, %s) "
                "ON CONFLICT (id) DO NOTHING RETURNING version",
                (run_id, text),
            )
        else:
            rows = await self._fetch(
                "UPDATE slotgraph_runs SET version = version + 1, payload = %s, "
                "updated_at = clock_timestamp() "
                "WHERE id = %s AND version = %s RETURNING version",
                (text, run_id, expected_version),
            )
        if not rows:
            found = await self._fetch("SELECT version FROM slotgraph_runs WHERE id = %s", (run_id,))
            stored = int(found[0][0]) if found else 0
            raise StoreConflictError(run_conflict_message(run_id, stored, expected_version))
        return int(rows[0][0])

    async def list_runs(self, limit: int = 100) -> list[str]:
        rows = await self._fetch(
            "SELECT id FROM slotgraph_runs ORDER BY updated_at DESC, id LIMIT %s", (limit,)
        )
        return [str(r[0]) for r in rows]

    async def close(self) -> None:
        if self._conn is not None:
            conn, self._conn = self._conn, None
            await conn.close()
