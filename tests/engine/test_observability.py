"""Observability, spec §19: every ``[slot-filling:<tag>]`` tag of §19.2 as a log line on the
``slotgraph.engine`` logger and as a ``_debug_log`` entry; the line format; the invocation counter ``n``;
zero cost when off; nothing shared between invocations."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest
from tests.engine.bella import TIMES, after_times, bella_dag
from tests.engine.spec_view import run_engine

from slotgraph.config import compile_config
from slotgraph.engine import LOGGER_NAME, EngineResult, after_tool, fill_slots, format_line
from slotgraph.engine.invocation import Trace

DAG = bella_dag()
W = {"welcome": True}
BASICS = {"party_size": 4, "preferred_date": "2026-06-17"}
STILL = {"filled": dict(W), "_last_state": {"filled": dict(W)}}


def _grouped() -> EngineResult:
    raw = {
        "slots": [{"name": "size", "setter": "set_size"},
                  {"name": "note", "setter": "set_note", "requires_readback": True},
                  {"name": "quote", "source": "task:Quote"}],
        "tasks": [{"name": "Quote", "tool": "quote", "inputs": ["size"], "outputs": {"quote": "quote"}},
                  {"name": "Book", "tool": "book", "inputs": ["size", "note"], "readback_inputs": True}],
    }  # fmt: skip
    dag = compile_config(raw)
    sm = run_engine(dag, after_tool({}, dag, "set_note", {"n": "x"}, {"stored": True, "value": "x"})).sm
    return run_engine(
        dag, after_tool(sm, dag, "set_size", {"s": 2}, {"stored": True, "value": 2}), debug=True
    )


def _run(sm: dict[str, Any], text: str = "", **kw: Any) -> EngineResult:
    return run_engine(DAG, sm, last_user_text=text, debug=True, **kw)


def _failed(task: str, retries: int) -> dict[str, Any]:
    filled = {**after_times()["filled"], "guest_name": "C", "special_requests": "None"}
    return {"filled": filled, "task_results": {task: {"success": False}}, "_task_just_completed": task,
            "_retries": {task: retries}}  # fmt: skip


SCENARIOS: dict[str, Callable[[], EngineResult]] = {
    "progress": lambda: _run(
        after_tool(
            {"filled": dict(W)}, DAG, "set_reservation_basics", BASICS, {"stored": True, "values": BASICS}
        )
    ),
    "invoke": lambda: _run({}),
    "slot_error": lambda: _run({**STILL, "_slot_errors": [{"slot": "party_size", "code": "parse_error"}]}),
    "slot_error_exhaust": lambda: _run(
        {**STILL, "_retries": {"slot:party_size": 2}, "_slot_errors": [{"slot": "party_size", "code": "x"}]}
    ),
    "task": lambda: _run(
        {
            "filled": {**W, **BASICS, "available_times": TIMES},
            "_task_just_completed": "FindAvailableTimes",
            "task_results": {"FindAvailableTimes": {"success": True, "available_times": TIMES}},
        }
    ),
    "task_exhaust": lambda: _run(_failed("BookReservation", 1)),
    "slot_deactivated": lambda: _run({"filled": {**W, "party_size": 2, "large_party_phone": "555"}}),
    "steer_back_soft": lambda: _run({**STILL, "_steer_back_turns": 1}, "jazz?"),
    # the hard and escalate tiers are armed on the user's invocation and applied on the next one (after the
    # model's step) when the state did not change
    "steer_back_hard": lambda: _run(_run({**STILL, "_steer_back_turns": 3}, "jazz?").sm),
    "steer_back_escalate": lambda: _run(_run({**STILL, "_steer_back_turns": 5}, "jazz?").sm),
    "steer_back_yield": lambda: _run({**STILL, "_hard_steer_yielded": True}, "jazz?"),
    "auto_confirm": lambda: _run(
        {"filled": dict(W), "pending": dict(BASICS), "_last_state": {"pending": BASICS}}, "yes"
    ),
    "auto_confirm_inline": lambda: _run(
        {"filled": dict(W), "pending": dict(BASICS), "_last_state": {"pending": BASICS}},
        "Yea, also my wife has a shellfish allergy",
    ),
    "announce": lambda: _run({}),
    "fill_slots": lambda: _run({}, event_data={"party_size": 4}),
    "re_deferred": _grouped,
    "payload_route": lambda: _run({}),
}
SPEC_TAGS = {
    "progress", "invoke", "slot_error", "slot_error_exhaust", "task", "task_exhaust", "slot_deactivated",
    "steer_back_soft", "steer_back_hard", "steer_back_escalate", "steer_back_yield", "auto_confirm",
    "auto_confirm_inline", "announce", "fill_slots", "re_deferred", "payload_route",
}  # fmt: skip
DATA_KEYS = {
    "progress": {"pending+", "confirmed", "task+", "rejected"},
    "invoke": {"n", "phase", "filled", "pending", "deferred", "fresh", "hidden"},
    "slot_error": {"slot", "code", "retries"},
    "slot_error_exhaust": {"slot"},
    "task": {"name", "ok"},
    "task_exhaust": {"name"},
    "slot_deactivated": {"slot", "source"},
    "steer_back_soft": {"turns", "directive"},
    "steer_back_hard": {"turns", "msg"},
    "steer_back_escalate": {"turns"},
    "steer_back_yield": {"turns"},
    "auto_confirm": {"user_msg"},
    "auto_confirm_inline": {"committed"},
    "announce": {"slot"},
    "fill_slots": {"slot", "value"},
    "re_deferred": {"slot", "task"},
    "payload_route": {"path", "count"},
}


def test_every_spec_tag_has_a_scenario() -> None:
    assert set(SCENARIOS) == SPEC_TAGS == set(DATA_KEYS)


@pytest.mark.parametrize("tag", sorted(SPEC_TAGS))
def test_each_tag_is_a_debug_entry_and_a_log_line(tag: str, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger=LOGGER_NAME):
        result = SCENARIOS[tag]()
    entries = [e for e in result.debug_log if e["tag"] == tag]
    assert entries, f"no {tag} entry in {[e['tag'] for e in result.debug_log]}"
    assert DATA_KEYS[tag] <= set(entries[0])
    lines = [r.getMessage() for r in caplog.records if r.name == LOGGER_NAME]
    data = {k: v for k, v in entries[0].items() if k != "tag"}
    assert format_line(tag, data) in lines


def test_line_format_is_the_specs() -> None:
    assert format_line("announce", {"slot": "welcome"}) == "[slot-filling:announce] slot='welcome'"
    assert format_line("task", {"name": "Find", "ok": True}) == "[slot-filling:task] name='Find' ok=True"
    assert format_line("x", {}) == "[slot-filling:x]"


def test_invocation_counter_increases_per_session() -> None:
    sm: dict[str, Any] = {}
    seen = []
    for text in ("", "hi", "", "hello?"):
        out = run_engine(DAG, sm, last_user_text=text, debug=True)
        sm = out.sm
        seen.append(next(e["n"] for e in out.debug_log if e["tag"] == "invoke"))
    assert seen == [1, 2, 3, 4] and sm["_invocation_count"] == 4
    assert run_engine(DAG, {}).sm["_invocation_count"] == 1  # another session starts at 1


def test_debug_off_means_no_debug_log_and_logger_off_means_no_lines(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        out = run_engine(DAG, {})
    assert out.debug_log == () and not [r for r in caplog.records if r.name == LOGGER_NAME]


class Boom:
    def __repr__(self) -> str:
        raise AssertionError("formatted while logging is off")


def test_zero_cost_when_off() -> None:
    trace = Trace(enabled=False, log=False)
    assert not trace.active
    trace.emit("announce", slot=Boom())  # not formatted: no error
    assert trace.entries == []


def test_trace_follows_the_logger_level(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger=LOGGER_NAME):
        assert Trace().log is True
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        assert Trace().log is False


def test_logs_of_two_invocations_are_separate() -> None:
    first = run_engine(DAG, {}, debug=True)
    second = run_engine(DAG, first.sm, last_user_text="hi", debug=True)
    assert [e for e in second.debug_log if e["tag"] == "announce"] == []
    assert "_debug_log" not in second.sm


def test_public_fill_slots_logs_lines(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger=LOGGER_NAME):
        fill_slots({}, DAG, {"party_size": 4})
    assert "[slot-filling:fill_slots] slot='party_size' value=4" in caplog.messages
