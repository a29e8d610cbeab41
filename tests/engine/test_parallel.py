"""Parallel tasks (docs/engine.md "Parallel tasks"): one decision fires every ready, independent ``parallel``
task; each result is judged on its own (retries, failure handling, escalation)."""

from __future__ import annotations

from typing import Any

import pytest

from slotgraph.adapters.cxas import action_dict
from slotgraph.config import CompiledDag, compile_config
from slotgraph.engine import after_tool, run_engine
from slotgraph.engine.actions import FunctionCall, Reason
from slotgraph.engine.errors import EngineStateError


def raw(parallel: bool = True, dependent: bool = False) -> dict[str, Any]:
    second_inputs = ["city", "flight"] if dependent else ["city", "nights"]
    return {
        "slots": [
            {"name": "city", "setter": "set_city", "ask": "Where?"},
            {"name": "nights", "setter": "set_nights", "ask": "Nights?"},
            {"name": "flight", "source": "task:Flight"},
            {"name": "hotel", "source": "task:Hotel"},
            {"name": "name", "setter": "set_name", "ask": "Flight {flight}, hotel {hotel}. Name?",
             "requires": ["flight", "hotel"]},
            {"name": "ref", "source": "task:Book"},
        ],
        "tasks": [
            {"name": "Flight", "tool": "quote_flight", "inputs": ["city"], "outputs": {"price": "flight"},
             "success_check": "ok", "parallel": parallel, "then_say": "Flight found.",
             "on_failure": {"retry_say": "Flight again.", "max_retries": 2,
                            "on_exhaust": {"say": "No flights.", "then": "escalate"}}},
            {"name": "Hotel", "tool": "quote_hotel", "inputs": second_inputs, "outputs": {"total": "hotel"},
             "success_check": "ok", "parallel": parallel, "then_say": "Hotel found.",
             "on_failure": {"retry_say": "Hotel again.", "max_retries": 2,
                            "on_exhaust": {"say": "No hotels.", "then": "escalate"}}},
            {"name": "Book", "tool": "book", "inputs": ["city", "nights", "name"], "outputs": {"ref": "ref"},
             "success_check": "ok", "terminal": True, "parallel": True, "then_say": "Booked {ref}."},
        ],
    }  # fmt: skip


@pytest.fixture
def dag() -> CompiledDag:
    return compile_config(raw())


READY = {"filled": {"city": "Lisbon", "nights": 3}}


def test_independent_parallel_tasks_fire_in_one_decision(dag: CompiledDag) -> None:
    result = run_engine(dag, READY, debug=True)
    action = result.action
    assert action.reason is Reason.FIRE and action.preempt
    assert action.function_call == FunctionCall("quote_flight", {"city": "Lisbon"})
    assert action.parallel_calls == (FunctionCall("quote_hotel", {"city": "Lisbon", "nights": 3}),)
    fires = [entry for entry in result.debug_log if entry["tag"] == "fire"]
    assert [entry["task"] for entry in fires] == ["Flight", "Hotel"]
    assert all(entry["group"] == ["Flight", "Hotel"] for entry in fires)
    invoke = next(entry for entry in result.debug_log if entry["tag"] == "invoke")
    assert invoke["fired"] == "quote_flight" and invoke["parallel"] == ["quote_hotel"]
    assert action_dict(action)["parallel_calls"] == [
        {"name": "quote_hotel", "args": {"city": "Lisbon", "nights": 3}}
    ]


def test_tasks_that_do_not_opt_in_fire_one_at_a_time() -> None:
    action = run_engine(compile_config(raw(parallel=False)), READY).action
    assert action.function_call == FunctionCall("quote_flight", {"city": "Lisbon"})
    assert action.parallel_calls == ()
    assert "parallel_calls" not in action_dict(action)


def test_a_task_reading_another_ones_output_is_not_fired_with_it() -> None:
    action = run_engine(compile_config(raw(dependent=True)), READY).action
    assert action.function_call == FunctionCall("quote_flight", {"city": "Lisbon"})
    assert action.parallel_calls == ()


def test_a_terminal_task_is_never_parallel(dag: CompiledDag) -> None:
    assert not dag.task_by_name["Book"].parallel


def _route_both(dag: CompiledDag, flight: dict[str, Any], hotel: dict[str, Any]) -> dict[str, Any]:
    fired = run_engine(dag, READY).sm
    sm = after_tool(fired, dag, "quote_flight", {"city": "Lisbon"}, flight)
    return after_tool(sm, dag, "quote_hotel", {"city": "Lisbon", "nights": 3}, hotel)


def test_every_result_of_the_decision_is_judged(dag: CompiledDag) -> None:
    sm = _route_both(dag, {"ok": True, "price": "€90"}, {"ok": True, "total": "€300"})
    assert sm["_task_just_completed"] == "Flight" and sm["_parallel_completed"] == ["Hotel"]
    result = run_engine(dag, sm, debug=True)
    assert [entry["name"] for entry in result.debug_log if entry["tag"] == "task"] == ["Flight", "Hotel"]
    assert "_task_just_completed" not in result.sm and "_parallel_completed" not in result.sm
    # both then_say lead; the second's question is the slot's (both outputs were needed to ask it)
    assert result.action.message == "Flight found. Hotel found. Flight €90, hotel €300. Name?"


def test_a_failed_parallel_task_is_retried_on_its_own(dag: CompiledDag) -> None:
    sm = _route_both(dag, {"ok": True, "price": "€90"}, {"ok": False})
    result = run_engine(dag, sm)
    assert result.action.reason is Reason.TASK_RETRY
    assert result.action.function_call == FunctionCall("quote_hotel", {"city": "Lisbon", "nights": 3})
    assert result.action.parallel_calls == ()
    assert result.action.message == "Flight found. Hotel again."
    assert result.sm["_retries"] == {"Hotel": 1}
    assert result.sm["filled"]["flight"] == "€90"


def test_an_exhausted_parallel_task_escalates_and_the_other_result_is_kept(dag: CompiledDag) -> None:
    sm = _route_both(dag, {"ok": True, "price": "€90"}, {"ok": False})
    retried = run_engine(dag, sm)
    sm = after_tool(retried.sm, dag, "quote_hotel", {"city": "Lisbon", "nights": 3}, {"ok": False})
    result = run_engine(dag, sm)
    assert result.action.reason is Reason.TASK_EXHAUST
    assert result.action.message == "No hotels."
    assert result.sm["status"] == "escalated"
    assert result.sm["task_results"]["Flight"] == {"ok": True, "price": "€90"}


def test_both_failing_are_retried_together_each_with_its_message(dag: CompiledDag) -> None:
    result = run_engine(dag, _route_both(dag, {"ok": False}, {"ok": False}))
    assert result.action.reason is Reason.TASK_RETRY
    assert result.action.function_call is not None and result.action.function_call.name == "quote_flight"
    assert [call.name for call in result.action.parallel_calls] == ["quote_hotel"]
    assert result.action.message == "Flight again. Hotel again."
    assert result.sm["_retries"] == {"Flight": 1, "Hotel": 1}


def test_a_malformed_parallel_completed_key_is_refused(dag: CompiledDag) -> None:
    with pytest.raises(EngineStateError, match="_parallel_completed"):
        run_engine(dag, {"_parallel_completed": "Hotel"})
