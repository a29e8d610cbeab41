"""Agent logic over HTTP: variables and caller facts at session creation, variables in the session view,
rule events in turn replies and the SSE stream."""

from __future__ import annotations

import json

from slotgraph.models.offline import OfflineModel
from slotgraph.server import load_hosted_agents

from .support import ROOT, app_for, client, new_session, say

CLINIC = ROOT / "examples" / "clinic"


def _api():  # type: ignore[no-untyped-def]
    return client(app_for(load_hosted_agents([CLINIC], model=OfflineModel())))


def test_created_with_metadata_and_variables_and_shown_in_every_view() -> None:
    with _api() as c:
        session_id = new_session(
            c, "clinic", metadata={"caller_phone": "+15550100"}, variables={"messages": 3}
        )
        before = c.get(f"/v1/sessions/{session_id}").json()
        assert before["view"]["variables"]["messages"] == 3  # the given value beats the default before turn 1
        assert before["view"]["variables"]["caller_phone"] == "+15550100"
        reply = say(c, session_id, "Hello")
        assert reply["view"]["variables"]["known_name"] == "Ada Lovelace"
        assert {
            "kind": "rule",
            "rule": "count_messages",
            "trigger": "user_message",
            "actions": ["set_variable"],
            "ok": True,
            "error": None,
        } in reply["events"]
        after = c.get(f"/v1/sessions/{session_id}").json()
        assert after["view"]["variables"]["messages"] == 4
        assert after["view"]["variables"]["patient_id"] == "P-1"


def test_rule_events_stream_as_sse() -> None:
    with _api() as c:
        session_id = new_session(c, "clinic")
        with c.stream(
            "POST", f"/v1/sessions/{session_id}/messages:stream", json={"text": "a blood test"}
        ) as r:
            body = "".join(r.iter_text())
        rules = [
            json.loads(line[6:])
            for line in body.splitlines()
            if line.startswith("data: ") and '"kind": "rule"' in line
        ]
        assert [e["rule"] for e in rules] == ["count_messages", "flag_fasting", "fasting_reminder"]
        assert "event: rule" in body


def test_bad_variables_are_a_422() -> None:
    with _api() as c:
        body = '{"agent": "clinic", "variables": {"x": Infinity}}'
        response = c.post("/v1/sessions", content=body, headers={"content-type": "application/json"})
        assert response.status_code == 422 and "variables" in response.text
        response = c.post("/v1/sessions", json={"agent": "clinic", "metadata": "not a mapping"})
        assert response.status_code == 422
