"""The SSE endpoint streams a turn's events in order, then the turn summary and ``done``."""

from __future__ import annotations

import json
from typing import Any

from fastapi.testclient import TestClient

from .support import app_for, new_session, say


def _parse(body: str) -> list[tuple[str, Any]]:
    events = []
    for block in body.strip().split("\n\n"):
        lines = block.split("\n")
        assert lines[0].startswith("event: ") and lines[1].startswith("data: "), block
        events.append((lines[0][7:], json.loads(lines[1][6:])))
    return events


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
    assert [data for _, data in events[:-2]] == expected["events"]
    turn = events[-2][1]
    assert turn["text"] == expected["text"] and turn["view"] == expected["view"]
    assert "events" not in turn


def test_stream_errors_before_the_turn_are_problems() -> None:
    with TestClient(app_for()) as c:
        response = c.post("/v1/sessions/missing/messages:stream", json={"text": "hi"})
    assert response.status_code == 404 and response.json()["code"] == "session_not_found"
