"""The durable floor of ``benchmarks/service.py``: the least a durable chat endpoint does per turn.

A FastAPI app that keeps one JSON record per session, about what a Slotgraph session record weighs after a
booking (:data:`RECORD_BYTES`), and per turn reads it, changes it and writes it back with the durability of
the store it stands beside — and nothing else: no model, no engine, no check of the record. Whatever a
durable turn of any framework does, it does at least this, so ``slotgraph serve``'s turns/s and server CPU
per turn are measured against it (run by the same uvicorn, with the same workers and the same client).

* ``POST /sessions`` → ``{"session_id": ...}``: a new record.
* ``POST /sessions/{id}/messages`` with ``{"text": ...}`` → ``{"session_id", "text", "turn"}``: the record
  read, the user's text and a reply appended to its messages (the oldest two dropped, so its size stays),
  its turn counted, the record written back.

The store comes from ``SLOTGRAPH_FLOOR_STORE`` (read by :func:`app_from_env`, uvicorn's ``--factory``):

* ``sqlite:///path`` — the file in WAL mode with ``synchronous=FULL``: every commit syncs the WAL before it
  returns, as a save of Slotgraph's SQLite store does (its lease writes are not synced; the floor has none).
  One connection per worker process; each turn is one ``BEGIN IMMEDIATE`` transaction (read, write,
  ``COMMIT``), run on a thread of its own so the event loop goes on while the disk syncs, one at a time (the
  transactions of one connection cannot overlap; more connections per process would only wait for each
  other's write lock).
* ``redis://host:port/db`` — the record as a string, with the per-session lock a Slotgraph turn takes: the
  lock (``SET NX PX``) and the ``GET`` in one round trip, the ``SET`` and the lock's ``DEL`` in a second —
  the two round trips of a turn on Slotgraph's Redis store (its lock and read in one script, its save and
  unlock in another).
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException
from pydantic import BaseModel

RECORD_BYTES = 3500
"""The size of a record, as JSON: about a Slotgraph session record at the end of a Bella Notte booking."""
LOCK_MS = 30_000
ENV = "SLOTGRAPH_FLOOR_STORE"


class Message(BaseModel):
    text: str


def new_record() -> dict[str, Any]:
    """A record of :data:`RECORD_BYTES`: a state of a few values, and messages of the conversation."""
    record: dict[str, Any] = {
        "state": {"party_size": 4, "preferred_date": "2026-07-17", "status": "in_progress"},
        "turn": 0,
        "messages": [],
    }
    while len(json.dumps(record)) < RECORD_BYTES:
        n = len(record["messages"])
        role = "user" if n % 2 == 0 else "assistant"
        record["messages"].append({"role": role, "text": f"message {n} of the conversation, " + "x" * 60})
    return record


def take_turn(payload: str, text: str) -> tuple[str, dict[str, Any]]:
    """The turn's change of a record (JSON in, JSON out) and the reply."""
    record = json.loads(payload)
    record["turn"] += 1
    reply = f"Turn {record['turn']}: noted."
    record["messages"] = [
        *record["messages"][2:],
        {"role": "user", "text": text},
        {"role": "assistant", "text": reply},
    ]
    return json.dumps(record), {"text": reply, "turn": record["turn"]}


Create = Callable[[str, str], Awaitable[None]]
Turn = Callable[[str, str], Awaitable[dict[str, Any] | None]]


def _app(create: Create, turn: Turn, lifespan: Callable[[FastAPI], Any]) -> FastAPI:
    app = FastAPI(lifespan=lifespan)

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.post("/sessions")
    async def create_session() -> dict[str, str]:
        session_id = uuid.uuid4().hex
        await create(session_id, json.dumps(new_record()))
        return {"session_id": session_id}

    @app.post("/sessions/{session_id}/messages")
    async def message(session_id: str, body: Message) -> dict[str, Any]:
        reply = await turn(session_id, body.text)
        if reply is None:
            raise HTTPException(404, f"no session {session_id}")
        return {"session_id": session_id, **reply}

    return app


def sqlite_app(path: str) -> FastAPI:
    """The floor on a SQLite file (see the module docstring)."""
    db = Path(path)
    thread = ThreadPoolExecutor(1, thread_name_prefix="floor-sqlite")
    conn: sqlite3.Connection | None = None

    def connect() -> sqlite3.Connection:
        db.parent.mkdir(parents=True, exist_ok=True)
        opened = sqlite3.connect(db, isolation_level=None, check_same_thread=False, timeout=30)
        opened.execute("PRAGMA journal_mode=WAL")
        opened.execute("PRAGMA synchronous=FULL")
        opened.execute("CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, payload TEXT NOT NULL)")
        return opened

    def insert(session_id: str, payload: str) -> None:
        assert conn is not None
        conn.execute("INSERT INTO sessions (id, payload) VALUES (?, ?)", (session_id, payload))

    def read_change_write(session_id: str, text: str) -> dict[str, Any] | None:
        assert conn is not None
        conn.execute("BEGIN IMMEDIATE")
        try:
            row = conn.execute("SELECT payload FROM sessions WHERE id = ?", (session_id,)).fetchone()
            if row is None:
                conn.execute("ROLLBACK")
                return None
            payload, reply = take_turn(row[0], text)
            conn.execute("UPDATE sessions SET payload = ? WHERE id = ?", (payload, session_id))
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return reply

    async def on_thread(fn: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(thread, fn, *args)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        nonlocal conn
        conn = await on_thread(connect)
        try:
            yield
        finally:
            await on_thread(conn.close)
            thread.shutdown()

    return _app(
        lambda session_id, payload: on_thread(insert, session_id, payload),
        lambda session_id, text: on_thread(read_change_write, session_id, text),
        lifespan,
    )


def redis_app(url: str) -> FastAPI:
    """The floor on Redis (see the module docstring)."""
    import redis.asyncio as redis

    client = redis.Redis.from_url(url)

    async def create(session_id: str, payload: str) -> None:
        await client.set(f"floor:session:{session_id}", payload)

    async def turn(session_id: str, text: str) -> dict[str, Any] | None:
        key, lock = f"floor:session:{session_id}", f"floor:lock:{session_id}"
        async with client.pipeline(transaction=False) as pipe:  # one round trip
            pipe.set(lock, "1", nx=True, px=LOCK_MS)
            pipe.get(key)
            locked, payload = await pipe.execute()
        if not locked:
            raise HTTPException(409, f"session {session_id} is busy")
        if payload is None:
            await client.delete(lock)
            return None
        written, reply = take_turn(payload.decode(), text)
        async with client.pipeline(transaction=False) as pipe:  # one round trip
            pipe.set(key, written)
            pipe.delete(lock)
            await pipe.execute()
        return reply

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await client.aclose()

    return _app(create, turn, lifespan)


def app_from_env() -> FastAPI:
    """The floor on the store named by ``SLOTGRAPH_FLOOR_STORE`` (``uvicorn floor_apps:app_from_env
    --factory``)."""
    url = os.environ.get(ENV, "")
    if url.startswith("sqlite:///"):
        return sqlite_app(url.removeprefix("sqlite:///"))
    if url.startswith("redis://"):
        return redis_app(url)
    raise SystemExit(f"{ENV}={url!r}: give sqlite:///path or redis://host:port/db")
