"""Steer-back never swallows an answer: the model always sees the user's message (docs/engine.md)."""

from __future__ import annotations

from slotgraph.runtime import ScriptedModel, ScriptedStep, call

from .toy_agent import Backend, clock, toy_agent

DRIFT = [
    ScriptedStep(text="Hello! How many guests?"),
    ScriptedStep(text="I can't say about the weather. How many guests?"),
    ScriptedStep(text="There is parking nearby. How many guests?"),
]


def test_a_valid_answer_in_the_hard_tier_is_recorded() -> None:
    model = ScriptedModel(
        [
            *DRIFT,
            ScriptedStep(
                tool_calls=(call("set_num_guests", count=2),),
                expect_in_instruction=["record it with the matching tool now"],
                label="the hard tier is armed: the model sees the answer",
            ),
            ScriptedStep(text="Two guests. What date works for you?"),
        ]
    )
    session = toy_agent(model, Backend()).session(clock=clock)
    for text in ("hi", "what's the weather?", "do you have parking?"):
        session.send(text)
    result = session.send("2")
    model.assert_complete()
    assert session.state["filled"]["num_guests"] == 2
    assert session.state["_steer_back_turns"] == 0
    assert result.text == "Two guests. What date works for you?"
    assert "_hard_steer_yielded" not in session.state


def test_no_answer_in_the_hard_tier_gets_the_engines_question() -> None:
    model = ScriptedModel(
        [*DRIFT, ScriptedStep(text="The chef is from Naples.", label="armed, nothing recorded")]
    )
    session = toy_agent(model, Backend()).session(clock=clock)
    for text in ("hi", "what's the weather?", "do you have parking?"):
        session.send(text)
    result = session.send("is the chef Italian?")
    model.assert_complete()
    assert result.text == "The chef is from Naples. How many guests?"
    assert [e.origin for e in result.events if e.kind == "text"] == ["model", "engine"]
    assert session.state["_hard_steer_yielded"] is True
