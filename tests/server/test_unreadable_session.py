"""A stored session the server cannot read is reported with its own code, left untouched, no internals."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

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
