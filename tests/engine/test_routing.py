"""Tool-result routing (§6a), the readback tools and the deferred rejection (§7.1), begin_turn (§2.4)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from slotgraph.config import compile_config
from slotgraph.engine import (
    EngineInputError,
    EngineStateError,
    after_tool,
    begin_turn,
    confirm_pending,
    reject_pending,
)

from .toy import toy_dag

DAG = compile_config(
    {
        "slots": [
            {"name": "size", "setter": "set_basics", "setter_field": "party_size", "requires_readback": True},
            {
                "name": "day",
                "setter": "set_basics",
                "setter_field": "preferred_date",
                "requires_readback": True,
            },
            {"name": "times", "source": "task:Find"},
            {
                "name": "time",
                "setter": "set_time",
                "requires": ["times"],
                "validate_against": {
                    "response_field": "display",
                    "filled_slot": "times",
                    "error_code": "nope",
                },
            },
            {"name": "issue", "setter": "set_issue"},
            {"name": "service", "setter": "set_service"},
        ],
        "tasks": [
            {
                "name": "Find",
                "tool": "find_times",
                "inputs": ["size", "day"],
                "outputs": {"available": "times"},
                "success_check": "success",
            }
        ],
    }
)


def route(sm: dict[str, Any], tool: str, args: dict[str, Any], result: Any) -> dict[str, Any]:
    before = copy.deepcopy(sm)
    out = after_tool(sm, DAG, tool, args, result)
    assert sm == before and out is not sm
    return out


def test_setter_success_goes_to_pending() -> None:
    out = route({}, "set_issue", {"issue": "modem"}, {"stored": True, "value": "modem"})
    assert out["pending"] == {"issue": "modem"} and out["filled"] == {}


def test_setter_error_signals_slot_error() -> None:
    out = route({}, "set_issue", {"issue": ""}, {"error": True, "error_code": "empty"})
    assert out["_slot_errors"] == [{"slot": "issue", "code": "empty"}] and out["pending"] == {}


def test_prerequisite_not_met() -> None:
    out = route({}, "set_time", {"time": "7 PM"}, {"stored": True, "value": "19:00", "display": "7 PM"})
    assert out["_slot_errors"] == [{"slot": "time", "code": "prereq_not_met"}]
    assert out["pending"] == {}


@pytest.mark.parametrize("display", ["7:30 PM", " 7:30 pm ", "7:30 PM"])
def test_validate_against_accepts_an_offered_option(display: str) -> None:
    sm = {"filled": {"times": "6 PM, 7:30 PM, 9 PM"}}
    out = route(sm, "set_time", {"time": display}, {"stored": True, "value": "19:30", "display": display})
    assert out["pending"] == {"time": "19:30"} and out["_slot_errors"] == []


def test_validate_against_rejects_other_values() -> None:
    sm = {"filled": {"times": "6 PM, 7:30 PM, 9 PM"}}
    out = route(sm, "set_time", {"time": "8 PM"}, {"stored": True, "value": "20:00", "display": "8 PM"})
    assert out["_slot_errors"] == [{"slot": "time", "code": "nope"}] and out["pending"] == {}


def test_inferred_slots_go_to_pending_unless_filled() -> None:
    result = {"stored": True, "value": "modem dead", "inferred": {"service": "Internet", "ghost": 1}}
    out = route({}, "set_issue", {"issue": "modem dead"}, result)
    assert out["pending"] == {"issue": "modem dead", "service": "Internet"}
    out = route({"filled": {"service": "TV"}}, "set_issue", {"issue": "x"}, {**result, "value": "x"})
    assert out["pending"] == {"issue": "x"} and out["filled"] == {"service": "TV"}


def test_multi_slot_setter_routes_each_field() -> None:
    result = {"stored": True, "values": {"party_size": 4}, "field_errors": {"preferred_date": "past_date"}}
    out = route({}, "set_basics", {"party_size": 4, "preferred_date": "2020-01-01"}, result)
    assert out["pending"] == {"size": 4}
    assert out["_slot_errors"] == [{"slot": "day", "code": "past_date"}]


def test_multi_slot_whole_call_error_goes_to_the_first_field_given() -> None:
    out = route({}, "set_basics", {"preferred_date": "x"}, {"error": True, "error_code": "bad"})
    assert out["_slot_errors"] == [{"slot": "day", "code": "bad"}]


def test_non_dict_setter_result_is_an_invalid_result_error() -> None:
    out = route({}, "set_issue", {"issue": "x"}, "stored")
    assert out["_slot_errors"] == [{"slot": "issue", "code": "invalid_result"}]


def test_executor_success_fills_outputs() -> None:
    out = route({}, "find_times", {}, {"success": True, "available": "6 PM"})
    assert out["task_results"] == {"Find": {"success": True, "available": "6 PM"}}
    assert out["filled"] == {"times": "6 PM"} and out["_task_just_completed"] == "Find"


@pytest.mark.parametrize("result", [{"success": False, "available": "6 PM"}, {"success": True}, "boom"])
def test_executor_failure_or_missing_output_fills_nothing(result: Any) -> None:
    out = route({}, "find_times", {}, result)
    assert out["filled"] == {} and out["_task_just_completed"] == "Find" and "Find" in out["task_results"]


def test_unknown_tool_leaves_state_alone() -> None:
    out = route({"filled": {"size": 2}}, "transfer_to_agent", {}, {"ok": True})
    assert out["filled"] == {"size": 2} and out["pending"] == {} and out["_slot_errors"] == []


def test_confirm_pending_moves_everything_and_flags_the_transition() -> None:
    sm = {"filled": {"a": 1}, "pending": {"b": 2, "c": 3}}
    out = confirm_pending(sm)
    assert out["filled"] == {"a": 1, "b": 2, "c": 3} and out["pending"] == {}
    assert out["_readback_transition"] is True
    assert sm == {"filled": {"a": 1}, "pending": {"b": 2, "c": 3}}
    assert "_readback_transition" not in confirm_pending({})


def test_reject_is_deferred_to_begin_turn_and_spares_later_corrections() -> None:
    dag = toy_dag()
    sm = reject_pending({"pending": {"num_guests": 4, "date": "d"}})
    assert sm["pending"] == {"num_guests": 4, "date": "d"}
    assert sm["_rejection_requested"] is True and sm["_rejection_snapshot"] == {"num_guests": 4, "date": "d"}
    corrected = {**sm, "pending": {"num_guests": 6, "date": "d"}}
    out = begin_turn(dag, corrected)
    assert out["pending"] == {"num_guests": 6}
    assert "_rejection_requested" not in out and "_rejection_snapshot" not in out
    assert "_rejection_requested" not in reject_pending({})


def test_begin_turn_initialises_the_spec_defaults() -> None:
    out = begin_turn(toy_dag(), {"_event_prefilled_this_turn": True, "custom": 1})
    assert out == {
        "filled": {},
        "pending": {},
        "deferred": {},
        "task_results": {},
        "_retries": {},
        "_last_state": {},
        "_slot_errors": [],
        "_steer_back_turns": 0,
        "_system_message": "",
        "status": "in_progress",
        "custom": 1,
    }


@pytest.mark.parametrize(
    ("sm", "key"),
    [
        ([], "sm"),
        ({"filled": []}, "filled"),
        ({"_retries": {"T": "1"}}, "_retries"),
        ({"_slot_errors": [{"code": "x"}]}, "_slot_errors"),
        ({"status": "done"}, "status"),
        ({"_steer_back_turns": True}, "_steer_back_turns"),
        ({"_readback_transition": "yes"}, "_readback_transition"),
    ],
)
def test_bad_state_is_named(sm: Any, key: str) -> None:
    with pytest.raises(EngineStateError) as info:
        after_tool(sm, DAG, "set_issue", {}, {"stored": True, "value": 1})
    assert key in str(info.value) and "fix:" in str(info.value) and info.value.code == "invalid_state"


def test_bad_tool_name_or_args() -> None:
    with pytest.raises(EngineInputError):
        after_tool({}, DAG, "", {}, {})
    with pytest.raises(EngineInputError):
        after_tool({}, DAG, "set_issue", ["x"], {})  # type: ignore[arg-type]
