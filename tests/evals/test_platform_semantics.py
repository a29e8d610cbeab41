"""The original platform's evaluation semantics: golden matching, scenarios, tool-test YAML."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from slotgraph.config import compile_config
from slotgraph.evals.errors import ScenarioFormatError
from slotgraph.evals.expectations import check_turn
from slotgraph.evals.format import ToolCallExpect, TurnExpect
from slotgraph.evals.golden import GoldenSettings, import_golden
from slotgraph.evals.matching import find_mismatch
from slotgraph.evals.tool_tests import Check, check, load_tool_tests
from slotgraph.runtime import DagEngine, TurnResult, Usage, readback_result
from slotgraph.runtime.events import StateSnapshotEvent, ToolCallEvent, ToolResultEvent, TransferEvent


def _golden(*turns: list[dict[str, Any]]) -> dict[str, Any]:
    return {"displayName": "G", "golden": {"turns": [{"steps": steps} for steps in turns]}}


def _import(data: dict[str, Any], agent: Path, **settings: Any) -> Any:
    scenario, _ = import_golden(
        data,
        agent / "evaluations" / "G" / "G.json",
        agent=agent,
        today=None,
        settings=GoldenSettings(**settings),
    )
    return scenario


@pytest.fixture()
def booking(tmp_path: Path) -> Path:
    agent = tmp_path / "Booking_Agent"
    agent.mkdir()
    (agent / "agent.yaml").write_text("name: Booking_Agent\ndag: {slots: [], tasks: []}\n")
    return agent


def _facts(*events: Any, state: dict[str, Any] | None = None) -> TurnResult:
    return TurnResult(tuple(events), 1, Usage(), 0, "in_progress", state or {})


def test_an_expected_empty_mapping_matches_anything_under_platform_rules() -> None:
    assert find_mismatch({"pending": {}}, {"pending": {"a": 1}}, empty_matches_any=True) is None
    assert find_mismatch({"pending": {}}, {"pending": {"a": 1}}) is not None
    assert find_mismatch({"pending": {}}, {}, empty_matches_any=True) == "missing key pending"
    assert find_mismatch({"n": 4.0}, {"n": 4}, empty_matches_any=True) is None


def test_golden_state_and_args_use_the_platform_rules(booking: Path) -> None:
    data = _golden(
        [
            {"userInput": {"text": "no"}},
            {"expectation": {"note": "n", "toolCall": {"tool": "reject_pending", "args": {}}}},
            {"expectation": {"note": "m", "updatedVariables": {"sm": {"pending": {}, "filled": {}}}}},
        ]
    )
    expect = _import(data, booking).turns[0].expect
    assert expect.platform_matching
    call = ToolCallEvent("c1", "reject_pending", {"why": "x"}, "model")
    state = {"pending": {"a": 1}, "filled": {"b": 2}}
    assert check_turn(expect, _facts(call, state=state), 1, "t") == []
    strict = TurnExpect(tool_calls=[ToolCallExpect(name="reject_pending", args={})])
    assert check_turn(strict, _facts(call, state=state), 1, "t") != []


def test_a_mid_turn_state_counts(booking: Path) -> None:
    data = _golden(
        [
            {"userInput": {"text": "Johnson"}},
            {"expectation": {"note": "n", "updatedVariables": {"sm": {"pending": {"name": "Johnson"}}}}},
        ]
    )
    expect = _import(data, booking).turns[0].expect
    mid = StateSnapshotEvent({"pending": {"name": "Johnson"}}, "set_name")
    assert check_turn(expect, _facts(mid, state={"pending": {}, "deferred": {"name": "J"}}), 1, "t") == []
    assert check_turn(expect, _facts(state={"pending": {}}), 1, "t") != []


def test_agent_transfers_count(booking: Path) -> None:
    data = _golden(
        [
            {"userInput": {"text": "book"}},
            {"expectation": {"note": "self", "agentTransfer": {"targetAgent": "Booking_Agent"}}},
        ],
        [
            {"userInput": {"text": "bill"}},
            {"expectation": {"note": "other", "agentTransfer": {"targetAgent": "Billing_Agent"}}},
        ],
    )
    first, second = (t.expect for t in _import(data, booking).turns)
    assert first.transfer_requested == "Booking_Agent" and second.transfer_to == "Billing_Agent"
    asked = ToolResultEvent("c", "set_active_flow", {"stored": True, "target_agent": "Booking_Agent"})
    assert check_turn(first, _facts(asked), 1, "t") == []
    assert check_turn(first, _facts(), 1, "t") != []
    handed = TransferEvent("transfer to Billing_Agent", {"agent": "Billing_Agent"})
    assert check_turn(second, _facts(handed), 1, "t") == []
    escalated = TransferEvent("escalated", {})
    assert check_turn(second, _facts(escalated), 1, "t") != []


def test_agent_response_follows_the_similarity_threshold_and_extra_calls_the_setting(booking: Path) -> None:
    data = _golden(
        [
            {"userInput": {"text": "hi"}},
            {"expectation": {"note": "n", "agentResponse": {"chunks": [{"text": "Hello"}]}}},
        ]
    )
    assert _import(data, booking, semantic_similarity_threshold=0).turns[0].expect.text is None
    assert _import(data, booking).turns[0].expect.text is not None
    assert _import(data, booking, extra_tool_calls="fail").turns[0].expect.only
    assert not _import(data, booking).turns[0].expect.only


def test_a_scenario_file_becomes_a_simulation(booking: Path) -> None:
    data = {
        "displayName": "S",
        "scenario": {
            "task": "You are Priya and want a whitening visit.",
            "userFacts": [{"name": "patient_name", "value": "Priya"}],
            "rubrics": ["The agent is kind."],
            "scenarioExpectations": [
                {
                    "toolExpectation": {
                        "expectedToolCall": {"tool": "set_visit_basics", "args": {"visit_reason": "x"}}
                    }
                },
                {"agentResponse": {"chunks": [{"text": "ID"}]}},
            ],
            "maxTurns": 9,
        },
    }
    scenario = _import(data, booking)
    assert scenario.user_sim is not None and scenario.user_sim.max_turns == 9
    assert "patient_name: Priya" in scenario.user_sim.goal
    assert scenario.expect.tool_calls[0].name == "set_visit_basics"
    assert "The agent is kind." in scenario.description


def test_tool_test_operators() -> None:
    data = {"result": {"s": "HD-12345", "n": 2, "items": ["a", "b"], "d": {"k": 1}, "none": None}}
    holds = [
        Check("$.result.s", "equals", "HD-12345"),
        Check("$.result.s", "contains", "HD-"),
        Check("$.result.items", "contains", "a"),
        Check("$.result.d", "contains", "k"),
        Check("$.result.n", "greater_than", 1),
        Check("$.result.n", "less_than", 3),
        Check("$.result.items", "length_equals", 2),
        Check("$.result.s", "length_greater_than", 3),
        Check("$.result.items", "length_less_than", 3),
        Check("$.result.none", "is_null"),
        Check("$.result.absent", "is_null"),
        Check("$.result.n", "is_not_null"),
        Check("$.result.d['k']", "equals", 1),
    ]
    for item in holds:
        assert check(item, data) is None, item
    fails = [
        Check("$.result.n", "contains", 2),  # not a container
        Check("$.result.s", "greater_than", 1),  # type mismatch
        Check("$.result.absent", "is_not_null"),
        Check("$.result.absent", "equals", None),
    ]
    for item in fails:
        assert check(item, data) is not None, item


def test_tool_test_files_are_validated_with_locations(tmp_path: Path) -> None:
    file = tmp_path / "tool_tests" / "t.yaml"
    file.parent.mkdir()
    file.write_text(
        "_anchor: &ctx {state: {sm: {pending: {a: 1}}}}\n"
        "tests:\n"
        "- {name: ok, tool: confirm_pending, context: *ctx, expectations: {response: "
        "[{path: $.result.committed, operator: equals, value: [a]}]}}\n"
        "- {name: misspelt, tool: set_x, agrs: {v: 1}}\n"
    )
    ok, misspelt = load_tool_tests(file)
    assert ok.state == {"sm": {"pending": {"a": 1}}} and misspelt.args == {"v": 1}
    file.write_text("tests:\n- {name: both, tool: t, context: {state: {}}, variables: {}}\n")
    with pytest.raises(ScenarioFormatError, match="both 'variables' and 'context'"):
        load_tool_tests(file)
    file.write_text(
        "tests:\n- {name: x, tool: t, expectations: {response: [{path: $.a, operator: equal}]}}\n"
    )
    with pytest.raises(ScenarioFormatError, match="unknown operator 'equal'"):
        load_tool_tests(file)


def test_readback_tools_answer_with_what_they_did() -> None:
    dag = compile_config({"slots": [{"name": "a", "setter": "set_a", "ask": "A?"}], "tasks": []})
    result, sm = readback_result(DagEngine(), dag, "confirm_pending", {"pending": {"a": 1}})
    assert result == {"committed": ["a"], "stored": True} and sm["filled"] == {"a": 1}
    result, sm = readback_result(DagEngine(), dag, "reject_pending", {"pending": {"a": 1}})
    assert result == {"rejected": ["a"], "stored": True} and sm["_rejection_requested"] is True
    result, sm = readback_result(DagEngine(), dag, "confirm_pending", {"pending": {}})
    assert result["error"] is True and result["error_code"] == "nothing_pending"
    result, sm = readback_result(DagEngine(), dag, "reject_pending", {"pending": {}})
    assert result == {"rejected": [], "stored": True}  # the platform's reject only records the request
