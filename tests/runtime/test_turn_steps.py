"""``TurnResult.steps``: one record per loop step — what the engine decided and what the model saw."""

from __future__ import annotations

from slotgraph.engine import Reason
from slotgraph.runtime import ScriptedModel, ScriptedStep, call, step_to_json

from .toy_agent import Backend, clock, toy_agent


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
