"""A client that drops the stream mid-turn never cancels the turn: it finishes, is saved, frees its lock.

A real uvicorn server on loopback (the SQLite store), a booking agent whose executor waits until the test
lets it go. The client opens the stream, reads until the booking has started, and closes the connection;
then the booking is released. The turn must be saved with its confirmation, the session's lock must be
free at once (the next message is answered without waiting for ``lock_ttl``), and the executor must have
run exactly once.
"""

from __future__ import annotations

import datetime
import threading
from pathlib import Path
from typing import Any

import httpx

from slotgraph.runtime import Agent, ModelRequest, ModelResponse, ToolCall, UserMessage
from slotgraph.server import HostedAgent, create_app
from slotgraph.stores import SQLiteStore

from .live import live_server

DAG = {
    "slots": [
        {"name": "topic", "source": "user", "setter": "set_topic", "ask": "What is it about?"},
        {"name": "ref", "source": "task:Book"},
    ],
    "tasks": [{"name": "Book", "tool": "book", "inputs": ["topic"], "outputs": {"ref": "ref"},
               "success_check": "success", "then_say": "Booked: {ref}."}],
}  # fmt: skip
WAIT = 30.0


class Backend:
    def __init__(self) -> None:
        self.calls: list[str] = []
        self.started = threading.Event()
        self.go = threading.Event()

    def set_topic(self, topic: str) -> dict[str, Any]:
        """Record the topic."""
        return {"stored": True, "value": topic}

    def book(self, topic: str, idempotency_key: str) -> dict[str, Any]:
        """Book it."""
        self.calls.append(idempotency_key)
        self.started.set()
        assert self.go.wait(WAIT), "the test never released the booking"
        return {"success": True, "ref": f"R{len(self.calls)}"}


class TopicModel:
    async def generate(self, request: ModelRequest) -> ModelResponse:
        last = request.messages[-1]
        if isinstance(last, UserMessage) and last.text:
            return ModelResponse(
                tool_calls=(ToolCall(f"c{len(request.messages)}", "set_topic", {"topic": last.text}),)
            )
        return ModelResponse(text="ok")


def clock() -> datetime.datetime:
    return datetime.datetime(2026, 7, 11, 12, 0, tzinfo=datetime.UTC)


def test_a_dropped_stream_does_not_cancel_the_turn_and_frees_the_lock(tmp_path: Path) -> None:
    backend = Backend()
    agent = Agent.from_config(
        DAG, tools=[backend.set_topic, backend.book], instruction="Book things.", name="booker"
    )
    store = SQLiteStore(tmp_path / "sessions.db", lock_ttl=30.0)
    app = create_app([HostedAgent(agent, TopicModel())], store=store, clock=clock, seed=0)
    with live_server(app) as base, httpx.Client(base_url=base, timeout=WAIT) as http:
        session_id = http.post("/v1/sessions", json={"agent": "booker"}).json()["session_id"]
        with http.stream(
            "POST", f"/v1/sessions/{session_id}/messages:stream", json={"text": "cats"}
        ) as response:
            assert response.status_code == 200
            for line in response.iter_lines():  # read until the booking is under way, then hang up
                if line.startswith("event: tool_call") and backend.started.wait(WAIT):
                    break
        backend.go.set()  # the booking finishes after the client has gone
        # the next message waits for the turn still running (not for lock_ttl) and sees it saved
        after = http.post(f"/v1/sessions/{session_id}/messages", json={"text": "thanks"}, timeout=10.0)
        assert after.status_code == 200, after.text
        detail = http.get(f"/v1/sessions/{session_id}").json()
    assert backend.calls == [f"{session_id}:book:1"]  # booked once
    assert detail["state"]["filled"]["ref"] == "R1"  # the confirmation was saved
    assert detail["turns"] == 2
