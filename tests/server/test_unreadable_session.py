"""A stored session the server cannot read is reported with its own code, left untouched, no internals."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from slotgraph.stores import open_store

from .support import app_for, new_session, say


def test_a_corrupted_session_is_session_unreadable_and_left_alone(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    store = open_store(f"sqlite:///{db}")
    with TestClient(app_for(store=store), raise_server_exceptions=False) as c:
        session_id = new_session(c)
        say(c, session_id, "Hi")
        with sqlite3.connect(db) as conn:  # damage the stored payload behind the server's back
            (table,) = conn.execute("SELECT name FROM sqlite_master WHERE type='table' LIMIT 1").fetchone()
            columns = [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]
            payload_column = next(name for name in columns if name in {"payload", "data", "record"})
            conn.execute(f"UPDATE {table} SET {payload_column} = ?", ('{"schema": 99, "record": {}}',))
        read = c.get(f"/v1/sessions/{session_id}")
        sent = c.post(f"/v1/sessions/{session_id}/messages", json={"text": "4 people"})
    for response in (read, sent):
        assert response.status_code == 500
        body = response.json()
        assert body["code"] == "session_unreadable" and "left untouched" in body["detail"]
        assert "Traceback" not in response.text and "schema 99" not in response.text
    with sqlite3.connect(db) as conn:
        stored = [json.loads(row[0]) for row in conn.execute(f"SELECT {payload_column} FROM {table}")]
    assert stored == [{"schema": 99, "record": {}}]  # nothing overwritten
    asyncio.run(store.close())


CORRUPTIONS = {
    "an unknown status": lambda record: record["sm"].update(status="exploded"),
    "a negative executor attempt count": lambda record: record.update(executions={"book": -1}),
    "an agent-logic part that is not a mapping": lambda record: record.update(logic=[1]),
    "filled slots that are a list": lambda record: record["sm"].update(filled=["party_size"]),
    "pending values that are a list": lambda record: record["sm"].update(pending=[1]),
}


@pytest.mark.parametrize("corrupt", CORRUPTIONS.values(), ids=CORRUPTIONS.keys())
def test_a_session_stored_in_a_shape_no_turn_can_play_on_is_unreadable_on_every_route(
    tmp_path: Path, corrupt: Any
) -> None:
    """A record of a readable format whose parts no turn can play on: reading it answered 200 with the
    damaged values as they were (or a 500 internal_error) while a message answered 500 session_unreadable.
    Reading now checks the record as a turn does, and every route says the same."""
    db = tmp_path / "s.db"
    store = open_store(f"sqlite:///{db}")
    with TestClient(app_for(store=store), raise_server_exceptions=False) as c:
        session_id = new_session(c)
        say(c, session_id, "Hi")
        with sqlite3.connect(db) as conn:
            (table,) = conn.execute("SELECT name FROM sqlite_master WHERE type='table' LIMIT 1").fetchone()
            columns = [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]
            payload_column = next(name for name in columns if name in {"payload", "data", "record"})
            (text,) = conn.execute(f"SELECT {payload_column} FROM {table}").fetchone()
            payload = json.loads(text)
            corrupt(payload["record"])
            damaged = json.dumps(payload)
            conn.execute(f"UPDATE {table} SET {payload_column} = ?", (damaged,))
        responses = [
            c.get(f"/v1/sessions/{session_id}"),
            c.post(f"/v1/sessions/{session_id}/messages", json={"text": "4 people"}),
        ]
    for response in responses:
        assert response.status_code == 500, (response.request.url, response.text)
        assert response.json()["code"] == "session_unreadable"
    with sqlite3.connect(db) as conn:
        assert [row[0] for row in conn.execute(f"SELECT {payload_column} FROM {table}")] == [damaged]
    asyncio.run(store.close())
