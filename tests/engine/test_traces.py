"""The spec's worked examples replayed turn by turn: §13 (happy path), §14 (both ``max_retries`` variants),
§15 (inline correction during readback). Each test names the config variant its trace needs."""

from __future__ import annotations

from typing import Any

from .host import Host
from .toy import NO_READBACK, toy_dag

SETTERS = {"set_chosen_time", "set_date", "set_name", "set_num_guests"}
AVAILABLE = {"open_slots": "6 PM, 7:30 PM, 9 PM", "success": True}


def test_section_13_happy_path() -> None:
    """§13 writes values straight to ``filled``: the toy config with no readback slot."""
    host = Host(
        toy_dag(readback=NO_READBACK),
        executor_results={
            "check_availability": [AVAILABLE],
            "make_reservation": [{"confirmation": "RES-4821", "success": True}],
        },
    )
    # Turn 1: the conversation opens.
    action = host.start_turn("")
    assert action["message"] == "How many guests?"
    assert action["preempt"] is False and action["function_call"] is None
    assert {"confirm_pending", "reject_pending"} <= set(action["hide_tools"])
    assert host.sm["_system_message"] == "How many guests?"

    # Turn 2: "4 people for next Friday" -> both setters, both land in filled, CheckAvailability fires.
    host.start_turn("4 people for next Friday")
    host.call("set_num_guests", {"count": 4})
    host.call("set_date", {"date": "2026-07-18"})
    action = host.invoke()
    assert host.sm["filled"] == {"num_guests": 4, "date": "2026-07-18"}
    assert action["function_call"] == {
        "name": "check_availability",
        "args": {"num_guests": 4, "date": "2026-07-18"},
    }
    assert action["preempt"] is True
    action = host.follow(action)
    assert host.sm["filled"]["open_slots"] == "6 PM, 7:30 PM, 9 PM"
    assert action["message"] == "We have 6 PM, 7:30 PM, 9 PM. Which time?"
    assert action["preempt"] is True and action["function_call"] is None
    assert host.visible(action) == {"set_chosen_time", "set_name"}

    # Turn 3: "7:30" -> next question is the name.
    host.start_turn("7:30")
    host.call("set_chosen_time", {"time": "19:30"})
    action = host.invoke()
    assert action["message"] == "What name for the reservation?"
    assert action["preempt"] is False
    hidden = set(action["hide_tools"])
    assert {"set_num_guests", "set_date", "set_chosen_time"} <= hidden
    assert "set_name" not in hidden

    # Turn 4: "Sarah Chen" -> MakeReservation fires, succeeds, the session completes.
    host.start_turn("Sarah Chen")
    host.call("set_name", {"name": "Sarah Chen"})
    action = host.invoke()
    assert action["function_call"] == {
        "name": "make_reservation",
        "args": {"num_guests": 4, "date": "2026-07-18", "chosen_time": "19:30", "name": "Sarah Chen"},
    }
    action = host.follow(action)
    assert host.sm["status"] == "complete"
    assert action["message"] == "Confirmed! Number: RES-4821."
    assert action["preempt"] is True

    # Turn 5+: terminal — the engine returns at once and leaves the state alone.
    before = dict(host.sm)
    action = host.start_turn("Is there anything else?")
    assert action["message"] == "" and action["preempt"] is False and action["function_call"] is None
    assert host.sm == before


def _turn_2_with_failure(max_retries: int) -> tuple[Host, dict[str, Any]]:
    host = Host(
        toy_dag(readback=NO_READBACK, check_max_retries=max_retries),
        executor_results={
            "check_availability": [
                {"success": False, "reason": "fully booked"},
                {"open_slots": "8 PM", "success": True},
            ]
        },
    )
    host.start_turn("")
    host.start_turn("4 people for next Friday")
    host.call("set_num_guests", {"count": 4})
    host.call("set_date", {"date": "2026-07-18"})
    return host, host.follow(host.invoke())


def test_section_14_failure_exhausts_with_max_retries_1() -> None:
    """§14, first variant: the toy config as written (``max_retries: 1``): the first failure exhausts."""
    host, action = _turn_2_with_failure(1)
    assert host.sm["_retries"]["CheckAvailability"] == 1
    assert host.sm["status"] == "escalated"
    assert action["message"] == "Please call us at 555-0100."
    assert action["function_call"] == {"name": "escalate", "args": {}}
    assert action["preempt"] is True
    assert host.sm["_system_message"] == "Please call us at 555-0100."
    # The terminal guard catches the next invocation.
    assert host.start_turn("hello?")["reason"] == "terminal"


def test_section_14_failure_recollects_with_max_retries_2() -> None:
    """§14, second variant: ``max_retries: 2`` — the date is cleared, re-collected, then the task succeeds."""
    host, action = _turn_2_with_failure(2)
    assert host.sm["_retries"]["CheckAvailability"] == 1
    assert host.sm["filled"] == {"num_guests": 4}
    assert action["message"] == "No availability for that date. Try another?"
    assert action["preempt"] is True and action["function_call"] is None
    assert host.sm["status"] == "in_progress"
    assert "set_date" not in action["hide_tools"]

    # Turn 3: "How about Saturday?"
    host.start_turn("How about Saturday?")
    host.call("set_date", {"date": "2026-07-19"})
    action = host.invoke()
    assert action["function_call"] == {
        "name": "check_availability",
        "args": {"num_guests": 4, "date": "2026-07-19"},
    }
    action = host.follow(action)
    assert "CheckAvailability" not in host.sm["_retries"]
    assert host.sm["filled"]["open_slots"] == "8 PM"
    assert action["message"] == "We have 8 PM. Which time?"


def test_section_15_inline_correction_during_readback() -> None:
    """§15 reads ``num_guests`` back: the toy config with ``requires_readback`` on ``num_guests`` only and the
    prefixes of §7.4 (``choose`` picks the first, "Wonderful!", as the trace shows).

    Visibility follows §4.1/§4.3 where the trace's summary differs (see docs/engine.md): on the invocation
    right after the setter the pending is *fresh*, so confirm/reject and ``set_num_guests`` are hidden; from
    the next turn they are visible. Unfilled, dependency-met setters (``set_date``, ``set_name``) stay visible
    throughout (§4.1: volunteered information is captured during readback)."""
    host = Host(
        toy_dag(readback={"num_guests"}, prefixes=["Wonderful!", "Perfect!", "Great!"]),
        choose=lambda options: options[0],
    )
    host.start_turn("")

    # Turn 2: "4 people"
    host.start_turn("4 people")
    host.call("set_num_guests", {"count": 4})
    action = host.invoke()
    assert host.sm["pending"] == {"num_guests": 4}
    assert action["message"] == "Just to confirm — 4 guests. Is that correct?"
    assert action["preempt"] is False
    assert host.visible(action) == {"set_date", "set_name"}  # fresh pending

    # Turn 3: "Actually, make it 6" — not an affirmative; the setter is visible for the correction.
    action = host.start_turn("Actually, make it 6")
    assert action["function_call"] is None
    assert host.visible(action) == {
        "confirm_pending",
        "reject_pending",
        "set_num_guests",
        "set_date",
        "set_name",
    }
    host.call("set_num_guests", {"count": 6})
    action = host.invoke()
    assert host.sm["pending"] == {"num_guests": 6}
    assert action["message"] == "Just to confirm — 6 guests. Is that correct?"
    assert "confirm_pending" not in action["hide_tools"]  # the readback was already under way: not fresh

    # Turn 4: "Yes" — auto-confirm (§7.3) calls confirm_pending; the transition preempts the next question.
    action = host.start_turn("Yes")
    assert action["function_call"] == {"name": "confirm_pending", "args": {}}
    assert action["preempt"] is True and action["force_preempt"] is True
    host.call("confirm_pending")
    assert host.sm["_readback_transition"] is True
    action = host.invoke()
    assert host.sm["filled"] == {"num_guests": 6}
    assert "_readback_transition" not in host.sm
    assert action["message"] == "Wonderful! What date works for you?"
    assert action["preempt"] is True
