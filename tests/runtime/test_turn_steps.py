"""``TurnResult.steps``: one record per loop step — what the engine decided and what the model saw."""

from __future__ import annotations

import functools
from typing import Any

import pytest

from slotgraph.engine import Reason
from slotgraph.runtime import (
    Agent,
    ScriptedModel,
    ScriptedStep,
    ToolResultEvent,
    call,
    step_to_json,
    tool_execution,
    turn_loop,
)

from .toy_agent import Backend, clock, toy_agent, toy_dag


def test_each_step_records_the_decision_the_tools_and_its_events() -> None:
    model = ScriptedModel(
        [
            ScriptedStep(text="How many guests?"),
            ScriptedStep(tool_calls=(call("set_num_guests", count=2), call("set_date", date="2026-07-20"))),
        ]
    )
    session = toy_agent(model, Backend()).session(clock=clock, debug=True)
    session.send("hi")
    result = session.send("2 people on the 20th")
    model.assert_complete()
    kinds = [(s.index, s.kind, s.reason) for s in result.steps]
    assert kinds == [
        (1, "model", Reason.NEXT_QUESTION),  # the model records both values
        (2, "engine", Reason.FIRE),  # the engine fires the task with them
        (3, "engine", Reason.NEXT_QUESTION),  # and asks the next question behind its then_say
    ]
    first, fire, ask = result.steps
    assert "set_num_guests" in first.visible_tools and "check_availability" in first.hidden_tools
    assert [e.kind for e in first.events].count("tool_call") == 2 and first.usage.prompt_tokens > 0
    assert [e.kind for e in fire.events] == ["tool_call", "tool_result", "state_snapshot"]
    assert fire.usage.total_tokens == 0 and not fire.model_called
    assert ask.directive == "We have 6 PM, 7:30 PM, 9 PM. Which time?" == result.directive
    assert result.hidden_tools == ask.hidden_tools and "set_num_guests" in ask.hidden_tools
    assert [e for s in result.steps for e in s.events] == list(result.events)
    assert result.debug_log == tuple(entry for s in result.steps for entry in s.debug_log)
    assert [e["tag"] for e in fire.debug_log][-1] == "invoke"
    assert step_to_json(ask)["reason"] == "next_question"


def test_a_closed_gate_and_a_terminal_session_are_steps_without_an_engine_decision() -> None:
    model = ScriptedModel([ScriptedStep(text="How many guests?")])
    gated = toy_agent(model, Backend(), gate_slot="num_guests").session(clock=clock)
    (step,) = gated.send("hi").steps
    assert (step.kind, step.phase, step.reason, step.directive) == ("model", "gate", None, None)
    assert "set_num_guests" in step.visible_tools


class _Clock:
    """A stand-in for ``perf_counter`` that moves only when the test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, ms: float) -> None:
        self.now += ms / 1000


def test_each_step_records_its_time_split_into_engine_and_model_and_each_tool_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ticks = _Clock()
    monkeypatch.setattr(turn_loop, "perf_counter", ticks)
    monkeypatch.setattr(tool_execution, "perf_counter", ticks)
    prepare = turn_loop.prepare_call

    def slow_prepare(**kwargs: Any) -> Any:  # the engine's decision takes 2 ms
        ticks.advance(2)
        return prepare(**kwargs)

    monkeypatch.setattr(turn_loop, "prepare_call", slow_prepare)
    backend = Backend()
    tools = backend.tools()
    check = next(t for t in tools if t.__name__ == "check_availability")

    @functools.wraps(check)
    def slow_check(*args: Any, **kwargs: Any) -> Any:  # the task's tool takes 7 ms
        ticks.advance(7)
        return check(*args, **kwargs)

    tools = [slow_check if t is check else t for t in tools]
    model = ScriptedModel(
        [
            ScriptedStep(tool_calls=(call("set_num_guests", count=2), call("set_date", date="2026-07-20")),
                         check=lambda _request: ticks.advance(40)),  # the model answers in 40 ms
        ]
    )  # fmt: skip
    agent = Agent.from_config(toy_dag(), tools=tools, model=model, name="toy")
    result = agent.session(clock=clock).send("2 people on the 20th")
    timings = [(s.kind, s.duration_ms, s.engine_ms, s.model_ms) for s in result.steps]
    assert timings == [
        ("model", pytest.approx(42), pytest.approx(2), pytest.approx(40)),  # the setters take no time
        ("engine", pytest.approx(9), pytest.approx(2), 0),  # the engine fires the task: 2 + 7 ms
        ("engine", pytest.approx(2), pytest.approx(2), 0),  # and asks the next question
    ]
    took = {e.name: e.duration_ms for e in result.events if isinstance(e, ToolResultEvent)}
    assert took == {"set_num_guests": 0, "set_date": 0, "check_availability": pytest.approx(7)}
    assert step_to_json(result.steps[1])["duration_ms"] == pytest.approx(9)


def test_a_refused_call_ran_no_tool_code_so_its_result_has_no_duration() -> None:
    model = ScriptedModel([ScriptedStep(tool_calls=(call("check_availability"),)), ScriptedStep(text="ok")])
    result = toy_agent(model, Backend()).session(clock=clock).send("hi")
    (refused,) = [e for e in result.events if isinstance(e, ToolResultEvent)]
    assert refused.failed and refused.duration_ms is None
    assert refused == ToolResultEvent(refused.call_id, refused.name, refused.result, True, duration_ms=5.0)
