"""The SSE endpoint streams a turn's events in order, then the turn summary and ``done``."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

from fastapi.testclient import TestClient

from slotgraph.runtime import ModelRequest, ModelResponse, ToolCall

from .support import app_for, bella, new_session, say


def _parse(body: str) -> list[tuple[str, Any]]:
    events = []
    for block in body.strip().split("\n\n"):
        lines = block.split("\n")
        assert lines[0].startswith("event: ") and lines[1].startswith("data: "), block
        events.append((lines[0][7:], json.loads(lines[1][6:])))
    return events


_TIMINGS = frozenset({"duration_ms", "engine_ms", "model_ms"})


def _untimed(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Events or steps without their timings (wall times differ from one run to the next)."""
    return [{k: v for k, v in row.items() if k not in _TIMINGS} for row in rows]


def test_the_stream_carries_the_same_events_as_the_json_endpoint() -> None:
    with TestClient(app_for()) as a, TestClient(app_for()) as b:
        plain, streamed = new_session(a), new_session(b)
        for text in ("Hi", "A table for 4 on July 17th"):
            expected = say(a, plain, text)
            with b.stream(
                "POST", f"/v1/sessions/{streamed}/messages:stream", json={"text": text}
            ) as response:
                assert response.status_code == 200
                assert response.headers["content-type"].startswith("text/event-stream")
                events = _parse("".join(response.iter_text()))
    assert [kind for kind, _ in events] == [e["kind"] for e in expected["events"]] + ["turn", "done"]
    assert _untimed([data for _, data in events[:-2]]) == _untimed(expected["events"])
    turn = events[-2][1]
    assert turn["text"] == expected["text"] and turn["view"] == expected["view"]
    assert _untimed(turn["steps"]) == _untimed(expected["steps"])
    assert [s["reason"] for s in turn["steps"]] == ["next_question", "readback"]
    assert "events" not in turn


def test_stream_errors_before_the_turn_are_problems() -> None:
    with TestClient(app_for()) as c:
        response = c.post("/v1/sessions/missing/messages:stream", json={"text": "hi"})
    assert response.status_code == 404 and response.json()["code"] == "session_not_found"


class _WaitsForTheClient:
    """A model whose second call waits until the client has *received* the first tool call over SSE.

    If the server only sent events after the turn, the wait would time out and the reply would say so.
    """

    def __init__(self, client_saw_tool_call: threading.Event) -> None:
        self.client_saw_tool_call = client_saw_tool_call
        self.calls = 0

    async def generate(self, request: ModelRequest) -> ModelResponse:
        self.calls += 1
        if self.calls == 1:
            return ModelResponse(
                tool_calls=(
                    ToolCall(
                        "c1", "set_reservation_basics", {"party_size": 4, "preferred_date": "2026-07-17"}
                    ),
                )
            )
        seen = await asyncio.to_thread(self.client_saw_tool_call.wait, 10)
        return ModelResponse(text="streamed live" if seen else "the client saw nothing during the turn")


def test_events_reach_the_client_while_the_turn_is_still_running() -> None:
    saw = threading.Event()
    with TestClient(app_for(bella(_WaitsForTheClient(saw)))) as c:
        session_id = new_session(c)
        kinds: list[str] = []
        with c.stream(
            "POST", f"/v1/sessions/{session_id}/messages:stream", json={"text": "4 on July 17"}
        ) as r:
            for line in r.iter_lines():
                if line.startswith("event: "):
                    kinds.append(line[7:])
                    if kinds[-1] == "tool_call":
                        saw.set()
                if line.startswith("data: ") and kinds[-1] == "turn":
                    assert json.loads(line[6:])["text"] == "streamed live"
    assert kinds[0] == "tool_call" and kinds[-2:] == ["turn", "done"]


def test_an_error_during_the_turn_ends_the_stream_with_a_problem_and_no_internals() -> None:
    class Broken:
        async def generate(self, request: ModelRequest) -> ModelResponse:
            raise RuntimeError("secret-token-123 leaked")

    with TestClient(app_for(bella(Broken())), raise_server_exceptions=False) as c:
        session_id = new_session(c)
        with c.stream("POST", f"/v1/sessions/{session_id}/messages:stream", json={"text": "hi"}) as r:
            body = "".join(r.iter_text())
    events = _parse(body)
    assert [kind for kind, _ in events] == ["error", "done"]
    assert events[0][1]["code"] == "internal_error" and "secret-token-123" not in body
