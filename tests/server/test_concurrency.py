"""Conflicts, busy sessions, ended sessions and readiness, with stores that misbehave on purpose."""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from slotgraph.runtime import InMemoryStore, ScriptedModel, ScriptedStep, StoreConflictError, call
from slotgraph.server import load_hosted_agents

from .support import app_for, new_session, say


class _ConflictingStore(InMemoryStore):
    """Saves the session's creation, then reports that another writer always won."""

    async def save(self, session_id: str, record: dict[str, Any], expected_version: int) -> int:
        if expected_version > 0:
            raise StoreConflictError(f"{session_id}: stored version moved")
        return await super().save(session_id, record, expected_version)


class _DeadStore(InMemoryStore):
    async def load(self, session_id: str) -> tuple[dict[str, Any], int] | None:
        raise ConnectionError("store down at 10.0.0.7")


def test_a_save_that_loses_the_race_is_409_conflict() -> None:
    with TestClient(app_for(store=_ConflictingStore())) as c:
        session_id = new_session(c)
        response = c.post(f"/v1/sessions/{session_id}/messages", json={"text": "Hi"})
    assert response.status_code == 409
    assert response.json()["code"] == "conflict"


@pytest.mark.skipif(
    "lock_timeout" not in inspect.signature(InMemoryStore).parameters, reason="store locks not available"
)
def test_a_session_whose_lock_stays_taken_is_409_busy() -> None:
    store = InMemoryStore(lock_timeout=0.01)  # type: ignore[call-arg,unused-ignore]
    app = app_for(store=store)
    with TestClient(app) as c:
        session_id = new_session(c)
        held = asyncio.Event()
        release = asyncio.Event()

        async def hold() -> None:
            async with store.lock(session_id):  # type: ignore[attr-defined,unused-ignore]
                held.set()
                await release.wait()

        async def attempt() -> Any:
            task = asyncio.ensure_future(hold())
            await held.wait()
            try:
                return await app.state.service.turn(session_id, "Hi")
            except Exception as err:
                return err
            finally:
                release.set()
                await task

        outcome = c.portal.call(attempt)  # type: ignore[union-attr]
    assert getattr(outcome, "code", None) == "session_busy"


def test_an_ended_session_refuses_more_messages(tmp_path: Path) -> None:
    model = ScriptedModel([ScriptedStep(tool_calls=(call("end_session", reason="done"),))])
    chat = tmp_path / "chat"  # an agent without a flow: its model may end the session
    chat.mkdir()
    (chat / "agent.yaml").write_text("name: chat\ninstruction: Chat.\ndag: {slots: [], tasks: []}\n")
    agents = load_hosted_agents([chat], model=model)
    with TestClient(app_for(agents)) as c:
        session_id = new_session(c, "chat")
        reply = say(c, session_id, "bye")
        assert reply["ended"] is True
        assert any(e["kind"] == "end_session" for e in reply["events"])
        again = c.post(f"/v1/sessions/{session_id}/messages", json={"text": "hello?"})
        read = c.get(f"/v1/sessions/{session_id}")
    assert again.status_code == 409 and again.json()["code"] == "session_ended"
    assert read.json()["ended"] is True


def test_readiness_fails_when_the_store_does_not_answer() -> None:
    with TestClient(app_for(store=_DeadStore())) as c:
        response = c.get("/readyz")
        alive = c.get("/healthz")
    assert response.status_code == 503 and response.json()["code"] == "not_ready"
    assert "10.0.0.7" not in response.text
    assert alive.status_code == 200
