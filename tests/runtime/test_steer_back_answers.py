"""Steer-back's hard tier applies before the model runs (spec §7.6, as on the original platform), and the
turn after it yields to the model so the answer to the forced question is recorded (docs/engine.md)."""

from __future__ import annotations

from slotgraph.runtime import ScriptedModel, ScriptedStep, call

from .toy_agent import Backend, clock, toy_agent

DRIFT = [
    ScriptedStep(text="Hello! How many guests?"),
    ScriptedStep(text="I can't say about the weather. How many guests?"),
    ScriptedStep(text="There is parking nearby. How many guests?"),
]


def test_the_hard_tier_asks_before_the_model_runs_and_the_next_answer_is_recorded() -> None:
    model = ScriptedModel(
        [
            *DRIFT,
            ScriptedStep(tool_calls=(call("set_num_guests", count=2),), label="the yield: the model runs"),
            ScriptedStep(text="Two guests. What date works for you?"),
        ]
    )
    session = toy_agent(model, Backend()).session(clock=clock)
    for text in ("hi", "what's the weather?", "do you have parking?"):
        session.send(text)
    forced = session.send("is the chef Italian?")
    assert forced.model_calls == 0  # preempted: the engine asked
    assert forced.text == "How many guests?"
    assert session.state["_hard_steer_yielded"] is True
    result = session.send("2")
    model.assert_complete()
    assert {**session.state["filled"], **session.state["pending"]}.get("num_guests") == 2, session.state
    assert session.state["_steer_back_turns"] == 0
    assert result.text == "Two guests. What date works for you?"
