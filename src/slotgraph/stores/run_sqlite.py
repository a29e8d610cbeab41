"""Runs in an SQLite file (table ``slotgraph_runs``), on one worker thread owned by the store.

A save is one ``BEGIN IMMEDIATE`` transaction (read the version, compare, write), so two processes sharing
the file cannot interleave between the check and the write.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from slotgraph.stores.errors import StoreConfigError, StoreConflictError, StoreError
from slotgraph.stores.runs import decode_run, encode_run, run_conflict_message

__all__ = ["SQLiteRunStore"]

_T = TypeVar("_T")
_DDL = (
    "CREATE TABLE IF NOT EXISTS slotgraph_runs ("
    " id TEXT PRIMARY KEY, version INTEGER NOT NULL, payload TEXT NOT NULL, updated_at REAL NOT NULL)"
)


class SQLiteRunStore:
    def __init__(self, path: str | Path, *, busy_timeout: float = 30.0) -> None:
        self.path = Path(path)
        self.busy_timeout = busy_timeout
        self._executor: ThreadPoolExecutor | None = None
        self._conn: sqlite3.Connection | None = None
        self._closed = False

    def __repr__(self) -> str:
        return f"SQLiteRunStore({str(self.path)!r})"

    async def _run(self, fn: Callable[..., _T], *args: Any) -> _T:
        if self._closed:
            raise StoreError(f"{self.path}: the run store was closed")
        if self._executor is None:
            self._executor = ThreadPoolExecutor(1, thread_name_prefix="slotgraph-runs")
        return await asyncio.get_running_loop().run_in_executor(self._executor, partial(fn, *args))

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(
                    self.path, timeout=self.busy_timeout, isolation_level=None, check_same_thread=False
                )
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute(_DDL)
            except (OSError, sqlite3.Error) as err:
                raise StoreConfigError(f"{self.path}: cannot open the run store ({err})") from None
            self._conn = conn
        return self._conn

    def _load(self, run_id: str) -> tuple[dict[str, Any], int] | None:
        try:
            row = (
                self._db()
                .execute("SELECT payload, version FROM slotgraph_runs WHERE id = ?", (run_id,))
                .fetchone()
            )
        except sqlite3.Error as err:
            raise StoreError(f"{self.path}: cannot read run {run_id!r} ({err})") from None
        return (decode_run(run_id, row[0]), int(row[1])) if row is not None else None

    def _save(self, run_id: str, text: str, expected: int) -> int:
        db = self._db()
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                row = db.execute("SELECT version FROM slotgraph_runs WHERE id = ?", (run_id,)).fetchone()
                current = int(row[0]) if row is not None else 0
                if current != expected:
                    raise StoreConflictError(run_conflict_message(run_id, current, expected))
                db.execute(
                    "INSERT INTO slotgraph_runs (id, version, payload, updated_at) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT(id) DO UPDATE SET version = excluded.version, payload = excluded.payload, "
                    "updated_at = excluded.updated_at",
                    (run_id, current + 1, text, time.time()),
                )
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
        except sqlite3.Error as err:
            raise StoreError(f"{self.path}: cannot save run {run_id!r} ({err})") from None
        return current + 1

    def _list(self, limit: int) -> list[str]:
        rows = (
            self._db()
            .execute("SELECT id FROM slotgraph_runs ORDER BY updated_at DESC, id LIMIT ?", (limit,))
            .fetchall()
        )
        return [str(r[0]) for r in rows]

    async def load_run(self, run_id: str) -> tuple[dict[str, Any], int] | None:
        return await self._run(self._load, run_id)

    async def save_run(self, run_id: str, record: dict[str, Any], expected_version: int) -> int:
        return await self._run(self._save, run_id, encode_run(record), expected_version)

    async def list_runs(self, limit: int = 100) -> list[str]:
        return await self._run(self._list, limit)

    async def close(self) -> None:
        if self._closed:
            return
        if self._conn is not None:
            conn = self._conn
            await self._run(conn.close)
            self._conn = None
        self._closed = True
        if self._executor is not None:
            self._executor.shutdown(wait=False)
