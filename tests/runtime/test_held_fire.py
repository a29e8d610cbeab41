"""An inline confirmation whose extra content needs no setter still fires the held task in the same turn."""

from __future__ import annotations

from slotgraph.runtime import ScriptedModel, ScriptedStep, call

from .toy_agent import Backend, clock, toy_agent


def _session_awaiting_confirmation(model: ScriptedModel, backend: Backend):  # type: ignore[no-untyped-def]
    session = toy_agent(model, backend, readback=True).session(clock=clock)
    session.send("")  # the opening turn: the engine asks the first question
    session.send("4 people on July 18th")
    assert set(session.state["pending"]) == {"num_guests", "date"}
    return session


def test_a_task_held_for_setters_fires_when_the_model_calls_none() -> None:
    backend = Backend()
    model = ScriptedModel(
        [
            ScriptedStep(text="Welcome! How many guests?"),
            ScriptedStep(tool_calls=(call("set_num_guests", count=4), call("set_date", date="2026-07-18"))),
            ScriptedStep(text="Just to confirm — 4 guests on July 18th?"),
            # "Yes, and where are you located?" starts with an affirmative but says more: the engine confirms
            # inline and holds CheckAvailability so the model could call setters; it answers with text only.
            ScriptedStep(text="We're at 1 Main Street.", expect_hidden=("check_availability",)),
        ]
    )
    session = _session_awaiting_confirmation(model, backend)
    result = session.send("Yes, and where are you located?")
    model.assert_complete()
    assert [name for name, _ in backend.calls] == ["check_availability"]
    engine_calls = [e for e in result.events if e.kind == "tool_call" and e.origin == "engine"]
    assert [e.name for e in engine_calls] == ["check_availability"]
    assert result.text.startswith("We're at 1 Main Street.")
    assert "6 PM, 7:30 PM, 9 PM" in result.text
    assert session.state["filled"]["open_slots"] == "6 PM, 7:30 PM, 9 PM"
