"""The runner and every expectation: each passes on what happened and fails, side by side, when it did not."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from slotgraph.evals import Case, CaseRunner, RunOptions, load_cases

from .conftest import TOY, TOY_NO_READBACK, RunScenario, WriteScenario

NOW = "2026-07-11T12:00:00"
SETTERS = [
    {"name": "set_num_guests", "args": {"num_guests": 2}},
    {"name": "set_date", "args": {"date": "2026-07-20"}},
]


def _booking(
    turn2: dict[str, Any] | None = None, conversation: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Hi, then two setters → CheckAvailability fires, the engine asks for the time."""
    return {
        "agent": str(TOY_NO_READBACK),
        "now": NOW,
        "turns": [
            {"user": "Hi", "model": [{"text": "Welcome! How many guests?"}]},
            {"user": "2 people on the 20th", "model": [{"tool_calls": SETTERS}], "expect": turn2 or {}},
        ],
        "expect": conversation or {},
    }


PASSING: list[dict[str, Any]] = [
    {"tool_calls": [{"name": "set_num_guests", "args": {"num_guests": 2.0}, "origin": "model"}]},
    {"tool_calls": [{"name": "check_availability", "origin": "engine", "result": {"success": True}}]},
    {"tool_calls": [{"name": "set_date"}, {"name": "set_num_guests"}]},
    {
        "tool_calls": [{"name": "set_num_guests"}, {"name": "set_date"}, {"name": "check_availability"}],
        "ordered": True,
        "only": True,
    },
    {"not_called": ["make_reservation"], "refused": [], "refusals": 0},
    {"state": {"filled.num_guests": 2, "filled": {"date": "2026-07-20"}, "status": "in_progress"}},
    {"state_during": {"filled": {"num_guests": 2}, "task_results": {}}},
    {"absent": ["filled.name", "pending.num_guests"]},
    {"text": "Which time"},
    {
        "text": {
            "contains": ["we have", "9 PM"],
            "not_contains": "sorry",
            "regex": "^We have .* Which time\\?$",
            "equals": "We have 6 PM, 7:30 PM, 9 PM. Which time?",
        }
    },
    {"preempted": False, "model_calls": 1, "ended": False, "transfer": False, "status": "in_progress"},
    {"visible_tools": ["set_num_guests", "set_date"], "hidden_tools": ["set_chosen_time", "confirm_pending"]},
]

FAILING: list[tuple[dict[str, Any], str, str, str]] = [
    (
        {"tool_calls": [{"name": "set_num_guests", "args": {"num_guests": 3}}]},
        "turns[1].expect.tool_calls[0]",
        'set_num_guests({"num_guests": 3} ⊆)',
        "closest: set_num_guests",
    ),
    (
        {"tool_calls": [{"name": "set_num_guests", "args": {"num_guests": "2"}}]},
        "turns[1].expect.tool_calls[0]",
        "set_num_guests",
        'expected "2" at num_guests, got 2',
    ),
    (
        {"tool_calls": [{"name": "check_availability", "origin": "model"}]},
        "turns[1].expect.tool_calls[0]",
        "[model]",
        "origin engine",
    ),
    (
        {"tool_calls": [{"name": "check_availability", "result": {"success": False}}]},
        "turns[1].expect.tool_calls[0]",
        '→ {"success": false} ⊆',
        "result: expected false at success",
    ),
    (
        {"tool_calls": [{"name": "set_date"}, {"name": "set_num_guests"}], "ordered": True},
        "turns[1].expect.tool_calls[1]",
        "set_num_guests(…)",
        "out of order",
    ),
    (
        {"tool_calls": [{"name": "set_date"}], "only": True},
        "turns[1].expect.only",
        "no other tool calls",
        "set_num_guests",
    ),
    (
        {"not_called": ["check_availability"]},
        "turns[1].expect.not_called[0]",
        "check_availability not called",
        "check_availability",
    ),
    ({"refused": ["set_name"]}, "turns[1].expect.refused[0]", "set_name refused", "refused: []"),
    ({"state": {"filled.num_guests": 3}}, "turns[1].expect.state.filled.num_guests", "3", "2"),
    ({"state": {"filled.name": "Ada"}}, "turns[1].expect.state.filled.name", '"Ada"', "<missing>"),
    ({"state": {"filled": {}}}, "turns[1].expect.state.filled", "{}", '"num_guests": 2'),
    (
        {"state_during": {"filled": {"name": "Ada"}}},
        "turns[1].expect.state_during.filled",
        '{"name": "Ada"}',
        "states seen",
    ),
    ({"absent": ["filled.num_guests"]}, "turns[1].expect.absent[0]", "filled.num_guests absent", "2"),
    ({"text": "Sorry"}, "turns[1].expect.text.contains[0]", "contains 'Sorry'", "We have"),
    ({"text": {"not_contains": "9 pm"}}, "turns[1].expect.text.not_contains[0]", "does not contain", "9 PM"),
    ({"text": {"regex": "^Which"}}, "turns[1].expect.text.regex", "matches /^Which/", "We have"),
    ({"text": {"equals": "We have"}}, "turns[1].expect.text.equals", "'We have'", "Which time?"),
    ({"preempted": True}, "turns[1].expect.preempted", "preempted: True", "preempted: False"),
    ({"model_calls": 2}, "turns[1].expect.model_calls", "2", "1"),
    (
        {"visible_tools": ["set_name", "make_reservation"]},
        "turns[1].expect.visible_tools[1]",
        "make_reservation visible in the turn's first model call",
        "visible: [",
    ),
    (
        {"hidden_tools": ["set_date"]},
        "turns[1].expect.hidden_tools[0]",
        "set_date hidden in model call 1",
        "'set_date'",
    ),
    ({"ended": True}, "turns[1].expect.ended", "ended: True", "ended: False"),
    ({"transfer": True}, "turns[1].expect.transfer", "handed over: True", "handed over: False"),
    ({"refusals": 1}, "turns[1].expect.refusals", "1", "0"),
    ({"payloads": [{"type": "payload"}]}, "turns[1].expect.payloads[0]", '{"type": "payload"} ⊆', "[]"),
    ({"status": "complete"}, "turns[1].expect.status", '"complete"', '"in_progress"'),
]


@pytest.mark.parametrize("expect", PASSING)
def test_expectations_that_hold_pass(run_scenario: RunScenario, expect: dict[str, Any]) -> None:
    result = run_scenario(_booking(expect))
    assert result.outcome == "passed", result.all_failures


@pytest.mark.parametrize(("expect", "where", "expected", "actual"), FAILING)
def test_expectations_that_do_not_hold_fail_side_by_side(
    run_scenario: RunScenario, expect: dict[str, Any], where: str, expected: str, actual: str
) -> None:
    result = run_scenario(_booking(expect))
    assert result.outcome == "failed"
    failures = [f for f in result.all_failures if f.expectation == where]
    assert failures, [f.expectation for f in result.all_failures]
    assert failures[0].turn == 2
    assert expected in failures[0].expected, failures[0]
    assert actual in failures[0].actual, failures[0]


@pytest.mark.parametrize(
    ("conversation", "where", "expected"),
    [
        ({"status": "complete"}, "expect.status", '"complete"'),
        ({"tasks": [{"task": "MakeReservation"}]}, "expect.tasks[0]", "fired MakeReservation"),
        (
            {"tasks": [{"tool": "check_availability", "args": {"date": "2026-07-21"}}]},
            "expect.tasks[0]",
            'check_availability({"date": "2026-07-21"} ⊆)',
        ),
        ({"not_fired": ["CheckAvailability"]}, "expect.not_fired[0]", "CheckAvailability never fired"),
        ({"max_model_calls": 1}, "expect.max_model_calls", "≤ 1"),
        ({"ended": True}, "expect.ended", "ended: True"),
        ({"state": {"filled.open_slots": "8 PM"}}, "expect.state.filled.open_slots", '"8 PM"'),
    ],
)
def test_conversation_expectations(
    run_scenario: RunScenario, conversation: dict[str, Any], where: str, expected: str
) -> None:
    result = run_scenario(_booking(conversation=conversation))
    assert result.outcome == "failed"
    (failure,) = result.failures
    assert failure.turn is None and failure.expectation == where and expected in failure.expected


def test_conversation_expectations_that_hold(run_scenario: RunScenario) -> None:
    conversation = {
        "status": "in_progress",
        "tasks": [{"task": "CheckAvailability", "args": {"num_guests": 2}}, {"tool": "check_availability"}],
        "not_fired": ["MakeReservation", "make_reservation"],
        "max_model_calls": 2,
        "ended": False,
        "state": {"filled.open_slots": "6 PM, 7:30 PM, 9 PM"},
    }
    result = run_scenario(_booking(conversation=conversation))
    assert result.outcome == "passed", result.all_failures
    assert result.model_calls == 2 and result.preempted_turns == 0 and result.tokens > 0
    assert all("end_session" not in t.visible_tools[0] for t in result.turns)  # hidden mid-flow


def test_a_scripted_step_that_is_not_met_fails_its_turn_and_stops(run_scenario: RunScenario) -> None:
    data = _booking()
    data["turns"][0]["model"] = [{"text": "Hi", "expect_tools": ["set_name"]}]
    result = run_scenario(data)
    assert result.outcome == "failed" and len(result.turns) == 1
    (failure,) = result.all_failures
    assert failure.expectation == "turns[0]" and "ScriptedModelError" in failure.actual


def test_an_unexpected_model_call_fails_the_turn(run_scenario: RunScenario) -> None:
    data = _booking()
    data["turns"][0]["model"] = []
    result = run_scenario(data)
    assert "unexpected model call" in result.all_failures[0].actual


@pytest.mark.scripted_leftover("the test is about unused steps")
def test_unused_scripted_steps_fail_the_turn_but_the_case_goes_on(run_scenario: RunScenario) -> None:
    data = _booking()
    data["turns"][0]["model"].append({"text": "never said"})
    result = run_scenario(data)
    assert [f.expectation for f in result.all_failures] == ["turns[0].model"]
    assert len(result.turns) == 2


def test_a_turn_after_the_session_ended_fails(run_scenario: RunScenario, tmp_path: Path) -> None:
    chat = tmp_path / "chat"  # an agent without a flow: its model may end the session
    chat.mkdir()
    (chat / "agent.yaml").write_text("name: chat\ninstruction: Chat.\ndag: dag.yaml\n")
    (chat / "dag.yaml").write_text("slots: []\ntasks: []\n")
    data = {
        "agent": str(chat),
        "model": "scripted",
        "turns": [
            {
                "user": "bye",
                "model": [{"tool_calls": [{"name": "end_session", "args": {"reason": "done"}}]}],
                "expect": {"ended": True, "transfer": False},
            },
            {"user": "hello?"},
        ],
    }
    result = run_scenario(data)
    assert [f.expectation for f in result.all_failures] == ["turns[1]"]
    assert "has ended" in result.all_failures[0].actual


def test_replay_plays_the_expected_model_calls(run_scenario: RunScenario) -> None:
    data = {
        "agent": str(TOY_NO_READBACK),
        "model": "replay",
        "now": NOW,
        "turns": [
            {"user": "Hi", "expect": {"text": "How many guests?"}},
            {
                "user": "2 on the 20th",
                "expect": {"tool_calls": [*SETTERS, {"name": "check_availability", "origin": "engine"}]},
            },
        ],
    }
    assert run_scenario(data).outcome == "passed"


def test_scripted_steps_stand_in_for_one_turn_of_another_model(run_scenario: RunScenario) -> None:
    data = {
        "agent": str(TOY_NO_READBACK),
        "model": "offline",
        "now": NOW,
        "turns": [
            {
                "user": "Hello",
                "model": [{"text": "Scripted hello"}],
                "expect": {"text": {"equals": "Scripted hello"}},
            },
            {
                "user": "2 people",
                "expect": {"tool_calls": [{"name": "set_num_guests", "args": {"num_guests": 2}}]},
            },
        ],
    }
    assert run_scenario(data).outcome == "passed"


def test_the_run_model_overrides_the_scenario(write_scenario: WriteScenario) -> None:
    path = write_scenario(_booking({"text": "Which time"}))
    (case,) = load_cases([path])
    result = CaseRunner(RunOptions(model="offline")).run(case)
    assert result.outcome == "passed", result.all_failures  # the offline model fills the same slots
    assert result.turns[0].text != "Welcome! How many guests?"  # the script was not played


def test_an_agent_that_does_not_load_fails_the_case(run_scenario: RunScenario, tmp_path: Path) -> None:
    result = run_scenario({"agent": str(tmp_path / "nowhere"), "turns": [{"user": "Hi"}]})
    assert result.outcome == "failed" and result.failures[0].expectation == "agent"


def test_an_unknown_model_spec_fails_the_case(run_scenario: RunScenario) -> None:
    result = run_scenario({"agent": str(TOY), "model": "nosuch:model", "turns": [{"user": "Hi"}]})
    assert result.outcome == "failed" and "nosuch" in result.failures[0].actual


def test_env_knobs_apply_per_turn_and_are_restored(run_scenario: RunScenario) -> None:
    os.environ.pop("TOY_FULLY_BOOKED", None)
    os.environ["TOY_FAIL"] = "kept"
    data = _booking({"tool_calls": [{"name": "check_availability", "result": {"success": False}}]})
    data["env"] = {"TOY_FAIL": ""}
    data["turns"][1]["env"] = {"TOY_FULLY_BOOKED": "2026-07-20"}
    try:
        result = run_scenario(data)
        assert result.outcome == "passed", result.all_failures
        assert "TOY_FULLY_BOOKED" not in os.environ and os.environ["TOY_FAIL"] == "kept"
    finally:
        os.environ.pop("TOY_FAIL", None)


def test_a_load_failure_is_a_failed_result(write_scenario: WriteScenario) -> None:
    (failure,) = load_cases([write_scenario("agent: x\n")])
    assert not isinstance(failure, Case)
    result = CaseRunner().run(failure)
    assert result.outcome == "failed" and "a scenario needs 'turns'" in result.error
