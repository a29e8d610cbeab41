"""Response guards over HTTP: the SSE stream and the JSON reply carry only the guarded text, and the guard's
typed event; the stored history never holds the withheld draft."""

from __future__ import annotations

import json

from slotgraph.runtime import Agent, ScriptedModel, ScriptedStep
from slotgraph.server import HostedAgent

from .support import app_for, client, new_session, say

DAG = {"slots": [{"name": "guests", "source": "user", "setter": "set_guests", "ask": "How many guests?"}]}
GUARD = {"name": "no_discounts", "check": {"pattern": "(?i)discount"}, "message": "Prices are fixed."}


def set_guests(count: int) -> dict[str, int]:
    """Record the number of guests."""
    return {"value": count}


def _api(*texts: str):  # type: ignore[no-untyped-def]
    model = ScriptedModel([ScriptedStep(text=t) for t in texts])
    agent = Agent.from_config(DAG, tools=[set_guests], model=model, name="guarded", response_guards=[GUARD])
    return client(app_for([HostedAgent(agent, model)]))


def test_the_sse_stream_never_carries_the_withheld_sentence() -> None:
    with _api("How many guests? Ask me for a discount.") as c:
        session_id = new_session(c, "guarded")
        with c.stream("POST", f"/v1/sessions/{session_id}/messages:stream", json={"text": "Hi"}) as r:
            body = "".join(r.iter_text())
        assert "discount" not in body.lower().replace("no_discounts", "")
        events = [json.loads(line[6:]) for line in body.splitlines() if line.startswith("data: ")]
        kinds = [e.get("kind") for e in events]
        assert kinds.index("guard") < kinds.index("text")
        assert "event: guard" in body
        text = next(e for e in events if e.get("kind") == "text")
        assert text["text"] == "How many guests? Prices are fixed."
        stored = c.get(f"/v1/sessions/{session_id}").json()
        assert "Ask me for" not in json.dumps(stored)


def test_the_json_reply_has_the_guarded_text_and_the_guard_event() -> None:
    with _api("A discount for you.") as c:
        session_id = new_session(c, "guarded")
        reply = say(c, session_id, "Hi")
        texts = [e["text"] for e in reply["events"] if e["kind"] == "text"]
        assert texts == ["Prices are fixed."]
        assert {"kind": "guard", "guard": "no_discounts", "check": "pattern", "action": "replace",
                "sentence": 0, "detail": ""} in reply["events"]  # fmt: skip
