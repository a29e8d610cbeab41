"""Rich responses (spec §8a): parts at every location of "Response Fields by Location", channel overrides,
recursive ``{slot}`` substitution, and the preempt-vs-stash routing (``payload_route``)."""

from __future__ import annotations

from typing import Any

import pytest
from tests.engine.spec_view import run_engine

from slotgraph.config import compile_config
from slotgraph.engine import after_tool


def card(text: str) -> dict[str, Any]:
    return {"type": "payload", "data": {"scenarios": [{"responses": [{"text": text, "type": "text"}]}]}}


EXHAUST_PARTS = [card("Call {party_size}-team"), {"type": "transfer", "reason": "escalate"}]
RAW: dict[str, Any] = {
    "slots": [
        {"name": "welcome", "source": "announce", "message": "Welcome!", "response": [card("Welcome card")],
         "channel_responses": {"MOBILE": [card("Welcome mobile")]}},
        {"name": "party_size", "setter": "set_party_size", "ask": "How many guests?",
         "response": [{"type": "text", "text": "How many?"}, card("chips")],
         "validation": {"max_retries": 2, "errors": {"too_big": "Too many."},
                        "error_responses": {"too_big": [card("max 8")]},
                        "channel_error_responses": {"MOBILE": {"too_big": [card("max 8 (mobile)")]}},
                        "on_exhaust": {"say": "Please call.", "response": EXHAUST_PARTS}}},
        {"name": "date", "setter": "set_date", "ask": "Which date?"},
        {"name": "times", "source": "task:Find"},
        {"name": "number", "source": "task:Book"},
    ],
    "tasks": [
        {"name": "Find", "tool": "find", "inputs": ["party_size", "date"], "outputs": {"times": "times"},
         "success_check": "ok", "then_say": "We have {times}.",
         "then_response": [card("Times for {party_size} on {date}: {times}")],
         "on_failure": {"retry_say": "Full that day.", "max_retries": 2, "clear_slots": ["date"],
                        "retry_response": [card("Try {party_size} another day")],
                        "channel_retry_response": {"MOBILE": [card("retry mobile")]},
                        "on_exhaust": {"say": "Sorry.", "response": [card("sorry {date}")],
                                       "channel_responses": {"MOBILE": [card("sorry mobile")]}}}},
        {"name": "Book", "tool": "book", "inputs": ["party_size", "date", "times"],
         "outputs": {"number": "number"}, "terminal": True, "then_say": "Booked: {number}.",
         "then_response": [card("Booking {number}"), {"type": "end_session", "reason": "completed"}],
         "channel_then_response": {"MOBILE": [{"type": "audio", "uri": "gs://done/{number}.mp3"}]}},
    ],
    "steer_back": {"soft_after": 1, "hard_after": 2, "escalate_after": 3,
                   "on_exhaust": {"say": "Goodbye.",
                                  "response": [{"type": "end_session", "reason": "stalled"}]}},
}  # fmt: skip
DAG = compile_config(RAW)
BASE = {"filled": {"welcome": True}, "_last_state": {"filled": {"welcome": True}}}


def _set(sm: dict[str, Any], tool: str, value: Any) -> dict[str, Any]:
    return after_tool(sm, DAG, tool, {"v": value}, {"stored": True, "value": value})


def test_announce_response_is_dispatched_with_the_first_question_when_preempting() -> None:
    out = run_engine(DAG, {}, debug=True)
    assert out.action["preempt"] is True  # the welcome announce preempts (default)
    assert out.action["response"] == [
        card("Welcome card"),
        {"type": "text", "text": "How many?"},
        card("chips"),
    ]
    assert out.action["message"] == "Welcome! How many guests?"  # the text field still drives directives
    assert {"tag": "payload_route", "path": "preempt_dispatch", "count": 3} in out.debug_log


def test_channel_override_from_the_channel_input_and_from_sm() -> None:
    expected = [card("Welcome mobile"), {"type": "text", "text": "How many?"}, card("chips")]
    assert run_engine(DAG, {}, channel="MOBILE").action["response"] == expected
    assert run_engine(DAG, {"channel": "MOBILE"}).action["response"] == expected
    assert run_engine(DAG, {"channel": "WEB"}).action["response"][0] == card("Welcome card")


def test_a_question_not_preempted_stashes_its_parts_for_after_model() -> None:
    out = run_engine(DAG, BASE, last_user_text="hi", debug=True)
    assert out.action["preempt"] is False and out.action["response"] is None
    assert out.sm["_pending_payloads"] == [{"type": "text", "text": "How many?"}, card("chips")]
    assert {"tag": "payload_route", "path": "stash_question", "count": 2} in out.debug_log


def test_a_guided_announce_is_stashed_unconditionally() -> None:
    raw = {**RAW, "slots": [{**RAW["slots"][0], "preempt": False}, *RAW["slots"][1:]]}
    out = run_engine(compile_config(raw), {}, debug=True)
    assert out.action["preempt"] is False
    assert out.sm["_pending_payloads"][0] == card("Welcome card")
    assert {"tag": "payload_route", "path": "stash_unconditional", "count": 3} in out.debug_log


def test_no_parts_no_response_and_a_stale_stash_is_cleared() -> None:
    sm = _set({**BASE, "_pending_payloads": [card("old")]}, "set_party_size", 4)
    out = run_engine(DAG, sm, debug=True)  # next question: date, which has no response
    assert out.action["response"] is None and out.sm["_pending_payloads"] == []
    assert {"tag": "payload_route", "path": "none", "count": 0} in out.debug_log


def test_then_response_with_recursive_substitution_leads_the_question() -> None:
    filled = {"welcome": True, "party_size": 4, "date": "June 17", "times": "6 PM"}
    sm = {
        "filled": filled,
        "task_results": {"Find": {"ok": True, "times": "6 PM"}},
        "_task_just_completed": "Find",
    }
    out = run_engine(DAG, sm)
    assert out.action["function_call"]["name"] == "book"  # Book is ready at once: the cascade fires it
    assert out.action["response"] == [card("Times for 4 on June 17: 6 PM")]
    assert out.action["message"] == "We have 6 PM."


def test_terminal_then_response_with_end_session_and_a_channel_override() -> None:
    filled = {"welcome": True, "party_size": 4, "date": "d", "times": "t", "number": "BN-7"}
    sm = {"filled": filled, "task_results": {"Book": {"number": "BN-7"}}, "_task_just_completed": "Book"}
    out = run_engine(DAG, sm)
    assert out.action["response"] == [card("Booking BN-7"), {"type": "end_session", "reason": "completed"}]
    mobile = run_engine(DAG, sm, channel="MOBILE")
    assert mobile.action["response"] == [{"type": "audio", "uri": "gs://done/BN-7.mp3"}]


@pytest.mark.parametrize(
    ("channel", "retries", "expected"),
    [
        (None, 0, [card("Try 4 another day")]),
        ("MOBILE", 0, [card("retry mobile")]),
        (None, 1, [card("sorry d")]),
        ("MOBILE", 1, [card("sorry mobile")]),
    ],
)
def test_task_retry_and_exhaust_responses(channel: str | None, retries: int, expected: list[Any]) -> None:
    filled = {"welcome": True, "party_size": 4, "date": "d"}
    sm = {"filled": filled, "task_results": {"Find": {"ok": False}}, "_task_just_completed": "Find",
          "_retries": {"Find": retries} if retries else {}}  # fmt: skip
    out = run_engine(DAG, sm, channel=channel)
    assert out.action["preempt"] is True and out.action["response"] == expected


@pytest.mark.parametrize(
    ("channel", "expected"), [(None, [card("max 8")]), ("MOBILE", [card("max 8 (mobile)")])]
)
def test_validation_error_responses(channel: str | None, expected: list[Any]) -> None:
    sm = {**BASE, "_slot_errors": [{"slot": "party_size", "code": "too_big"}]}
    out = run_engine(DAG, sm, channel=channel)
    assert out.action["message"] == "Too many." and out.action["response"] == expected


def test_validation_exhaust_response() -> None:
    sm = {**BASE, "_retries": {"slot:party_size": 1}, "_slot_errors": [{"slot": "party_size", "code": "x"}]}
    out = run_engine(DAG, sm)
    assert out.sm["status"] == "escalated"
    # {party_size} is not filled: an unknown placeholder stays as written (§5b.3).
    assert out.action["response"] == [
        card("Call {party_size}-team"),
        {"type": "transfer", "reason": "escalate"},
    ]


def test_steer_back_exhaust_response() -> None:
    armed = run_engine(DAG, {**BASE, "_steer_back_turns": 2}, last_user_text="la la")
    out = run_engine(DAG, armed.sm)  # the model's step recorded nothing: the armed tier applies
    assert out.sm["status"] == "escalated" and out.action["message"] == "Goodbye."
    assert out.action["response"] == [{"type": "end_session", "reason": "stalled"}]


def test_hard_steer_back_re_asks_with_the_question_parts() -> None:
    armed = run_engine(DAG, {**BASE, "_steer_back_turns": 1}, last_user_text="la la")
    out = run_engine(DAG, armed.sm)
    assert out.action["reason"] == "steer_back_hard"
    assert out.action["response"] == [{"type": "text", "text": "How many?"}, card("chips")]


def test_response_parts_in_the_config_are_never_mutated() -> None:
    run_engine(DAG, {"filled": {"party_size": 4}, "_last_state": {}})
    parts = DAG.slot("party_size").responses.default
    assert parts is not None and dict(parts[1]) == card("chips")
