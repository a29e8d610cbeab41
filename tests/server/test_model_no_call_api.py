"""The API (and so the playground's event list) carries the ``model_no_call`` diagnostic."""

from __future__ import annotations

from fastapi.testclient import TestClient

from .support import new_session, say


def test_a_turn_whose_answer_was_not_used_says_why_in_its_events(api: TestClient) -> None:
    session_id = new_session(api)
    say(api, session_id, "Hi")
    body = say(api, session_id, "what do you mean?")
    (event,) = [e for e in body["events"] if e["kind"] == "model_no_call"]
    assert event["text"] == "what do you mean?"
    assert "question" in event["reason"]
    used = say(api, session_id, "A table for 4 on July 17th")
    assert not [e for e in used["events"] if e["kind"] == "model_no_call"]
