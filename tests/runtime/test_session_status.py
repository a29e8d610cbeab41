"""A session's status says how it ended: ``end_session`` used to leave it ``in_progress`` forever."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from fastapi.testclient import TestClient

from slotgraph.runtime import Agent, InMemoryStore, ScriptedModel, ScriptedStep, call
from slotgraph.runtime.durable_record import DurableRecord, session_status
from slotgraph.server import HostedAgent, create_app

from .test_limits import NOTES, clock, set_topic

NO_FLOW: dict[str, Any] = {"slots": [], "tasks": []}


@pytest.mark.parametrize(
    ("ending", "status"),
    [
        (call("end_session", reason="user_request"), "ended"),
        (call("end_session", reason="angry", session_escalated=True), "escalated"),
        (call("escalate", reason="wants a person"), "escalated"),
    ],
    ids=["end_session", "escalated end_session", "escalate"],
)
def test_a_conversation_ended_before_its_flow_says_how(ending: Any, status: str) -> None:
    model = ScriptedModel([ScriptedStep(tool_calls=(ending,))])  # the session ends there: no reply after
    store = InMemoryStore()
    # mid-flow the model cannot end a session (end_session is hidden, as on the platform): an agent without
    # a flow ends it; escalate is offered mid-flow too
    dag = NOTES if ending.name == "escalate" else NO_FLOW
    agent = Agent.from_config(dag, tools=[set_topic], model=model)
    session = agent.session(session_id="s", store=store, clock=clock)
    result = session.send("bye")
    assert session.ended and result.status == status and session.status == status
    found = asyncio.run(store.load("s"))  # what the store keeps says the same
    assert found is not None
    stored, _ = found
    assert session_status(stored) == status == DurableRecord.from_stored("s", stored).status
    assert stored["sm"]["status"] == "in_progress"  # the engine's own status is left as the flow left it


def test_the_service_reports_the_same_status() -> None:
    model = ScriptedModel([ScriptedStep(tool_calls=(call("end_session", reason="done"),))])
    agent = Agent.from_config(NO_FLOW, tools=[set_topic], model=model, name="notes")
    app = create_app([HostedAgent(agent, model)], store=InMemoryStore())
    with TestClient(app) as client:
        session_id = client.post("/v1/sessions", json={"agent": "notes"}).json()["session_id"]
        reply = client.post(f"/v1/sessions/{session_id}/messages", json={"text": "bye"}).json()
        detail = client.get(f"/v1/sessions/{session_id}").json()
    assert reply["ended"] and reply["status"] == "ended"
    assert detail["ended"] and detail["status"] == "ended"
