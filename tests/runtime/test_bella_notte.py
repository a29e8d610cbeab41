"""Bella Notte end to end through the Python API with a ScriptedModel: booking, correction, retry."""

from __future__ import annotations

import dataclasses
import datetime
from pathlib import Path

import pytest

from slotgraph.runtime import Agent, ScriptedModel, ScriptedStep, Session, call

AGENT_DIR = Path(__file__).parents[2] / "examples" / "bella_notte"
NOW = datetime.datetime(2026, 7, 10, 12, 0)
TIMES = "17:30, 18:00, 18:30, 19:00, 19:30, 20:00, 21:00"


def _session(steps: list[ScriptedStep]) -> tuple[Session, ScriptedModel]:
    model = ScriptedModel(steps)
    return Agent.load(AGENT_DIR, model=model).session(clock=lambda: NOW, seed=0), model


def _opening(date: str = "2026-07-17") -> list[ScriptedStep]:
    return [
        ScriptedStep(
            text="Welcome to Bella Notte! How many guests will be joining us?",
            expect_in_instruction=[
                "Welcome to Bella Notte!",
                "Party size / number of guests → set_reservation_basics",
            ],
        ),
        ScriptedStep(tool_calls=(call("set_reservation_basics", party_size=4, preferred_date=date),)),
        ScriptedStep(
            text="Just to confirm: 4 guests on July 17th?",
            expect_in_instruction=["Just to confirm — 4 guests, on July 17th. Is that correct?"],
            expect_hidden={"confirm_pending", "reject_pending", "find_available_times"},
        ),
    ]


def _time_and_name() -> list[ScriptedStep]:
    return [
        ScriptedStep(
            # the confirmed party size and date stay changeable (Bella Notte's `changeable: true`)
            tool_calls=(call("set_selected_time", time="19:30"),),
            expect_hidden={"find_available_times"},
        ),
        ScriptedStep(text="7:30 PM — is that right?", expect_in_instruction=["at 7:30 PM"]),
        # Grouped (deferred) readback, spec §7a: the name is noted silently, then both are confirmed together.
        ScriptedStep(tool_calls=(call("set_guest_info", guest_name="Chen"),)),
        ScriptedStep(
            text="Any special requests or dietary needs?",
            expect_in_instruction=[
                "<deferred_collection>\nThe value(s) just collected (guest_name) are noted",
                "Instead, proceed to ask: Do you have any special requests or dietary needs",
            ],
            expect_hidden={"confirm_pending", "reject_pending"},
        ),
        ScriptedStep(tool_calls=(call("set_guest_info", special_requests="None"),)),
        ScriptedStep(
            text="Let me confirm: under the name Chen, no special requests. Is that correct?",
            expect_in_instruction=[
                "<readback_scope>",
                "  - name: under the name Chen\n  - special requests: no special requests",
                "Just to confirm — under the name Chen, no special requests. Is that correct?",
            ],
            expect_hidden={"confirm_pending", "reject_pending", "set_guest_info"},
        ),
    ]


def _collect_until_booking(session: Session) -> None:
    assert session.send("Hi").model_calls == 1
    assert session.state["pending"] == {}
    session.send("A table for 4 on July 17th")
    assert session.state["pending"] == {"party_size": 4, "preferred_date": "2026-07-17"}
    times = session.send("Yes")
    assert times.preempted and times.text == f"We have {TIMES}. Which time works best for you?"
    assert [(e.name, e.origin) for e in times.tool_calls] == [
        ("confirm_pending", "engine"),
        ("find_available_times", "engine"),
    ]
    session.send("Half past seven")
    assert session.state["pending"] == {"selected_time": "19:30"}
    assert session.send("yes").text == "Perfect! What name should I put the reservation under?"
    named = session.send("Chen")
    assert not named.preempted and named.text == "Any special requests or dietary needs?"
    assert session.state["pending"] == {} and session.state["deferred"] == {"guest_name": "Chen"}
    session.send("No, nothing")
    assert session.state["pending"] == {"guest_name": "Chen", "special_requests": "None"}
    assert session.state["deferred"] == {}


def test_a_full_booking() -> None:
    session, model = _session([*_opening(), *_time_and_name()])
    _collect_until_booking(session)
    booked = session.send("Yes")
    assert booked.preempted
    assert [e.name for e in booked.tool_calls] == ["confirm_pending", "book_reservation"]
    number = session.state["filled"]["confirmation_number"]
    assert booked.text == f"Your reservation is confirmed! Your confirmation number is {number}."
    assert session.status == "complete"
    assert session.state["filled"] | {"confirmation_number": "x"} == {
        "welcome": True,
        "party_size": 4,
        "preferred_date": "2026-07-17",
        "available_times": TIMES,
        "selected_time": "19:30",
        "guest_name": "Chen",
        "special_requests": "None",
        "confirmation_number": "x",
    }
    model.assert_complete()


def test_a_correction_during_readback() -> None:
    steps = [
        *_opening(),
        ScriptedStep(
            tool_calls=(call("set_reservation_basics", preferred_date="2026-07-18"),),
            check=lambda r: (
                {"confirm_pending", "reject_pending", "set_reservation_basics"} <= set(r.tool_names)
            ),
        ),
        ScriptedStep(text="Updated: 4 guests on July 18th. Correct?", expect_in_instruction=["July 18th"]),
    ]
    session, model = _session(steps)
    session.send("Hi")
    session.send("A table for 4 on July 17th")
    corrected = session.send("Actually, make it the 18th")
    assert session.state["pending"] == {"party_size": 4, "preferred_date": "2026-07-18"}
    assert corrected.text == "Updated: 4 guests on July 18th. Correct?"
    times = session.send("yes")
    assert [(e.name, dict(e.args)) for e in times.tool_calls if e.name == "find_available_times"] == [
        ("find_available_times", {"party_size": 4, "preferred_date": "2026-07-18"})
    ]
    assert session.state["filled"]["preferred_date"] == "2026-07-18"
    model.assert_complete()


def test_a_failed_booking_is_retried_in_the_same_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    # A same-input retry never waits for the user: "Let me try that once more" is followed by the retry.
    session, model = _session([*_opening(), *_time_and_name()])
    _collect_until_booking(session)
    tool = session.agent.tools.get("book_reservation")
    assert tool is not None and tool.fn is not None
    book = tool.fn

    def fails_once(**kwargs: object) -> object:
        try:
            return book(**kwargs)
        finally:
            monkeypatch.delenv("BELLA_NOTTE_FAIL", raising=False)  # the backend recovers after one failure

    session.agent.tools.add(dataclasses.replace(tool, fn=fails_once))
    monkeypatch.setenv("BELLA_NOTTE_FAIL", "book_reservation")
    turn = session.send("Yes")
    assert turn.preempted
    assert [e.name for e in turn.tool_calls] == ["confirm_pending", "book_reservation", "book_reservation"]
    assert turn.text.startswith(
        "I'm sorry, something went wrong while booking your table. Let me try that once more. "
        "Your reservation is confirmed!"
    )
    assert session.status == "complete" and "BookReservation" not in session.state["_retries"]
    model.assert_complete()


def test_booking_failures_exhaust_into_an_escalation(monkeypatch: pytest.MonkeyPatch) -> None:
    session, _ = _session([*_opening(), *_time_and_name()])
    _collect_until_booking(session)
    monkeypatch.setenv("BELLA_NOTTE_FAIL", "book_reservation")
    exhausted = session.send("Yes")  # max_retries: 2 = two attempts in total, both in this turn
    assert [e.name for e in exhausted.tool_calls if e.name == "book_reservation"] == ["book_reservation"] * 2
    assert "Let me try that once more." in exhausted.text
    assert "Please call us at 555-0100" in exhausted.text
    end = [e for e in exhausted.tool_calls if e.name == "end_session"]
    assert end and end[0].origin == "engine" and end[0].args["note"] == "Booking for Chen, party of 4"
    assert session.status == "escalated" and session.ended
