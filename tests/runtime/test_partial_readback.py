"""Partial readback through the runtime's readback tools (docs/engine.md "Partial readback")."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

from slotgraph.runtime import Agent, ScriptedModel, ScriptedStep, Session, call

BELLA = Path(__file__).parents[2] / "examples" / "bella_notte"
NOW = datetime.datetime(2026, 7, 10, 12, 0)


def _at_readback(extra: list[ScriptedStep]) -> tuple[Session, ScriptedModel]:
    steps = [
        ScriptedStep(text="Welcome! How many guests?"),
        ScriptedStep(tool_calls=(call("set_reservation_basics", party_size=4, preferred_date="2026-07-17"),)),
        ScriptedStep(text="Just to confirm: 4 guests on July 17th?"),
        *extra,
    ]
    model = ScriptedModel(steps)
    session = Agent.load(BELLA, model=model).session(clock=lambda: NOW, seed=0)
    session.send("Hi")
    session.send("A table for 4 on July 17th")
    return session, model


def _result_of(events: Any, name: str) -> Any:
    return next(e.result for e in events if e.kind == "tool_result" and e.name == name)


def test_the_readback_tools_can_name_the_slots() -> None:
    session, model = _at_readback(
        [
            # "the date is right, but not 4 people": the party size is rejected, the date confirmed
            ScriptedStep(
                tool_calls=(
                    call("reject_pending", slots=["party_size"]),
                    call("confirm_pending", slots=["preferred_date"]),
                ),
                expect_tools=None,
            ),
            ScriptedStep(text="How many guests will be joining us?"),
        ]
    )
    result = session.send("the date is right but not 4 people")
    model.assert_complete()
    assert _result_of(result.events, "reject_pending") == {"rejected": ["party_size"], "stored": True}
    confirmed = _result_of(result.events, "confirm_pending")
    assert confirmed == {"committed": ["preferred_date"], "still_pending": ["party_size"], "stored": True}
    assert session.state["filled"]["preferred_date"] == "2026-07-17"
    assert "party_size" not in session.state["filled"] and "party_size" not in session.state["pending"]


def test_a_value_rejected_in_the_same_step_is_not_confirmed_with_the_rest() -> None:
    session, model = _at_readback(
        [
            ScriptedStep(tool_calls=(call("reject_pending", slots=["party_size"]), call("confirm_pending"))),
            ScriptedStep(text="How many guests will be joining us?"),
        ]
    )
    session.send("the date is right, the number of people is not")
    model.assert_complete()
    assert session.state["filled"]["preferred_date"] == "2026-07-17"
    assert "party_size" not in session.state["filled"]


def test_a_readback_tool_with_malformed_slots_is_refused() -> None:
    session, model = _at_readback(
        [
            ScriptedStep(tool_calls=(call("confirm_pending", slots="party_size"),)),
            ScriptedStep(text="Sorry — is that right?"),
        ]
    )
    result = session.send("the number is fine")
    model.assert_complete()
    refusals = [e for e in result.events if e.kind == "refusal"]
    assert refusals and refusals[0].refused == "bad_arguments"
    assert session.state["pending"] == {"party_size": 4, "preferred_date": "2026-07-17"}
